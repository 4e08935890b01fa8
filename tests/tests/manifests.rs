//! `core/Cargo.toml` writes out what the other crates inherit from the root workspace, because
//! the firmware workspaces reach it through links inside their own folders (so that cargo
//! hashes a path relative to their root and a board image's bytes do not depend on where the
//! repository is checked out; see `firmware/Cargo.toml`). These tests keep the written-out
//! values equal to the root's and the links pointing at `core/`.

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn manifest(path: &str) -> String {
    fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The value of `key = …` in `[section]` (a one-line value, as these manifests write them).
fn value<'a>(text: &'a str, section: &str, key: &str) -> Option<&'a str> {
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == format!("[{section}]");
        } else if inside {
            if let Some((k, v)) = line.split_once('=') {
                if k.trim() == key {
                    return Some(v.trim());
                }
            }
        }
    }
    None
}

/// Each of `keys` in core/Cargo.toml's `[core_section]` is the root's in `[root_section]`.
fn assert_written_out_as_the_roots(root_section: &str, core_section: &str, keys: &[&str]) {
    let (root, core) = (manifest("Cargo.toml"), manifest("core/Cargo.toml"));
    for key in keys {
        let inherited = value(&root, root_section, key)
            .unwrap_or_else(|| panic!("the root's [{root_section}] has no {key}"));
        assert_eq!(
            value(&core, core_section, key),
            Some(inherited),
            "core/Cargo.toml's {key} is not the root workspace's"
        );
    }
}

#[test]
fn the_cores_package_fields_are_the_root_workspaces() {
    assert_written_out_as_the_roots(
        "workspace.package",
        "package",
        &["version", "edition", "license", "rust-version"],
    );
}

#[test]
fn the_cores_shared_dependencies_are_the_root_workspaces() {
    assert_written_out_as_the_roots(
        "workspace.dependencies",
        "dependencies",
        &["heapless", "rand_core", "libm"],
    );
}

#[test]
fn the_firmware_workspaces_reach_the_core_through_their_own_links() {
    for (workspace, section) in [
        ("firmware", "dependencies"),
        ("firmware/boards", "workspace.dependencies"),
    ] {
        let link = repo().join(workspace).join("capsim-core");
        assert!(
            fs::symlink_metadata(&link).is_ok_and(|m| m.file_type().is_symlink()),
            "{} is not a link",
            link.display()
        );
        assert_eq!(
            fs::canonicalize(&link).ok(),
            fs::canonicalize(repo().join("core")).ok(),
            "{} does not lead to core/",
            link.display()
        );
        let text = manifest(&format!("{workspace}/Cargo.toml"));
        let spec = value(&text, section, "capsim-core").unwrap_or_default();
        assert!(
            spec.starts_with(r#"{ path = "capsim-core""#),
            "{workspace}/Cargo.toml's capsim-core is not the link: {spec}"
        );
    }
}
