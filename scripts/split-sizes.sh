#!/usr/bin/env bash
# scripts/split-sizes.sh headless|element|page [REGEX]
# Where the bytes of a module's first part go: each function the split
# keeps there (its keep list, then the closures and small callees the split
# adds), one a line with the size of its body in bytes as wasm-bindgen
# wrote it (before wasm-opt, which shrinks most by a third or so), largest
# first, and their total. REGEX keeps only the lines that match it. Use it
# to find room before start-path code grows (docs/embedding.md, "Two
# parts"; the first parts' budgets are in BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
case "${1:-}" in
  headless) crate=kubesim-embed keep=embed/split-keep.txt ;;
  element) crate=kubesim-element keep=element/split-keep.txt ;;
  page) crate=kubesim-web keep=web/split-keep.txt ;;
  *) echo "usage: $0 headless|element|page [REGEX]" >&2; exit 2 ;;
esac
cargo build --quiet -p "$crate" --target wasm32-unknown-unknown --profile web
cargo build --quiet --release -p kubesim-wasm-split
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
target="${CARGO_TARGET_DIR:-target}"
wasm-bindgen --target web --out-dir "$tmp" --out-name m "$target/wasm32-unknown-unknown/web/${crate//-/_}.wasm"
"$target/release/kubesim-wasm-split" sizes "$tmp/m_bg.wasm" "$keep" > "$tmp/sizes.txt"
grep -E -- "${2:-.}" "$tmp/sizes.txt" || true
