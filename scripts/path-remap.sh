# Sourced by scripts/firmware-test.sh and scripts/boards.sh (after they set $root).
#
# A firmware image holds its sources' paths (the panic locations of core, its dependencies and
# the standard library); a path's length moves every string after it in .rodata, and with it
# the flash size, the alignment memcpy meets and so the instructions a lesson takes. Building
# as if the checkout were /capsim and cargo's home /cargo makes the image's bytes, and every
# figure firmware/README.md states, the same wherever the repository and cargo live.
# `cargo build "${path_remap[@]}" …` adds the flags to the target's own (a `cfg(all())`
# target's rustflags are joined to a triple's, cargo's documented rule).
# The other half is in the manifests: cargo hashes a path dependency that lies outside the
# workspace by its absolute path into every symbol's name (`-C metadata`), and the names' order
# moves the functions' layout, so the firmware workspaces reach capsim-core through links inside
# their own folders (firmware/capsim-core, firmware/boards/capsim-core; see firmware/Cargo.toml).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
path_remap=(--config "target.'cfg(all())'.rustflags=['--remap-path-prefix=$root=/capsim', '--remap-path-prefix=$cargo_home=/cargo']")
