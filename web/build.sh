#!/usr/bin/env bash
# Builds the ptxemu playground into the folder DIR: a static page (index.html, its script,
# worker and style sheet) and ptxemu.wasm, the litmus parser, the models, the explorer and
# `explain` compiled to WebAssembly. Any static host serves DIR; locally:
#     bash web/build.sh site && python3 -m http.server -d site
# The build needs only the wasm32-unknown-unknown target (added here with rustup when it is
# missing) and the crates the workspace already uses.
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: bash web/build.sh DIR" >&2
    exit 2
fi
out=$1
root="$(cd "$(dirname "$0")/.." && pwd)"
target="wasm32-unknown-unknown"
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx "$target"; then
    echo "adding the Rust target $target (rustup target add $target)" >&2
    rustup target add "$target" >&2
fi
# The `web` profile (workspace Cargo.toml): release without debug information, so the
# module stays small and its artifacts do not disturb the native release build's.
(cd "$root" && cargo build -p ptxemu-web --profile web --target "$target")
dir="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$out"
cp "$dir/$target/web/ptxemu_web.wasm" "$out/ptxemu.wasm"
for f in index.html app.js worker.js sw.js style.css; do
    cp "$root/web/page/$f" "$out/$f"
done
echo "wrote the playground to $out ($(du -k "$out/ptxemu.wasm" | cut -f1) KiB of WebAssembly); serve it with: python3 -m http.server -d $out"
