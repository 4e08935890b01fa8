#!/usr/bin/env bash
# The three shards of one bulkhead grid, as a batch engine leaves them (one JSON Lines file a
# shard): `capsim summary examples/shards/bulkhead-*.json` is the grid's --summary, byte for
# byte (scripts/cross-commands.txt runs it on every determinism target). Rerun after a change
# to bulkhead's rows: bash examples/shards/make.sh
set -euo pipefail
cd "$(dirname "$0")"
for k in 1 2 3; do
    capsim bulkhead --split shared,24 --mode healthy,slowdown --seed 1..=5 --format json --shard "$k/3" >"bulkhead-$k-of-3.json"
done
