#!/usr/bin/env bash
# Regenerates every picture of docs/images by the README's own commands
# (each `cargo run --release -- ...` line that writes into docs/images),
# so that a picture and the command shown above it cannot part.
#
#   scripts/regenerate_images.sh           # rewrite docs/images
#   scripts/regenerate_images.sh --check   # draw into a scratch folder and
#                                          # name each picture that differs
#
# `cargo test --release -p zwang-cli --test readme_images` runs the same
# commands and fails on a stale picture.
set -euo pipefail
cd "$(dirname "$0")/.."
check=false
if [[ "${1:-}" == "--check" ]]; then
    check=true
fi
cargo build --release -q -p zwang-cli
out=docs/images
if $check; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
mapfile -t commands < <(grep -E '^cargo run --release -- .*docs/images/' README.md)
if [[ ${#commands[@]} -eq 0 ]]; then
    echo "no README command writes into docs/images" >&2
    exit 1
fi
stale=0
for line in "${commands[@]}"; do
    # The command without its comment, run by the binary just built.
    args=${line%%#*}
    args=${args#cargo run --release -- }
    args=${args//docs\/images\//$out/}
    read -r -a argv <<<"$args"
    echo "zwang ${argv[*]}"
    target/release/zwang "${argv[@]}" >/dev/null
done
if $check; then
    for f in "$out"/*; do
        name=docs/images/$(basename "$f")
        if ! cmp -s "$f" "$name"; then
            echo "stale: $name (run scripts/regenerate_images.sh)" >&2
            stale=1
        fi
    done
fi
exit $stale
