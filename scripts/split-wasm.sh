#!/usr/bin/env bash
# scripts/split-wasm.sh MODE IN.wasm FIRST.wasm SECOND.wasm LIST [LINKED.wasm]
# One module (wasm-bindgen's output, before wasm-opt) split in two by
# tools/wasm-split, each part then optimised for size with wasm-opt -Oz and
# the features Trunk enables (docs/browser.md, "The page's module in two
# parts"). MODE:
#   split       FIRST keeps the functions LIST names (a keep list, such as
#               web/split-keep.txt), SECOND has the others;
#   instrument  every function moves and each stub reports itself; LIST is
#               written: the key of each slot, for scripts/split-profile.sh;
#   off         no split: FIRST is IN optimised (SECOND and LIST unused).
# LINKED (split only): the module as cargo linked it with `-C
# link-arg=--emit-relocs`, before wasm-bindgen; the read-only data only the
# moved functions use then moves with them (tools/wasm-split/src/data.rs);
# KUBESIM_SPLIT_DATA=off leaves all data in FIRST (to compare, or to rule
# the data's move out when something reads zeros).
# The split goes by the functions' names as rustc gave them, so it comes
# before wasm-opt (which merges identical functions, and which ones are
# identical varies with where the sources were built).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" = 5 ] || [ "$#" = 6 ] || { echo "usage: $0 split|instrument|off IN.wasm FIRST.wasm SECOND.wasm LIST [LINKED.wasm]" >&2; exit 2; }
mode=$1 in=$2 first=$3 second=$4 list=$5 linked=${6:-}
[ "${KUBESIM_SPLIT_DATA:-on}" = off ] && linked=
export PATH="$PWD/node_modules/.bin:$PATH"
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-multivalue --enable-reference-types)
cargo build --quiet --release -p kubesim-wasm-split
split="${CARGO_TARGET_DIR:-target}/release/kubesim-wasm-split"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ "$mode" = off ]; then
  # Without the custom sections wasm-bindgen carried over (the linker's
  # relocations among them), which wasm-opt would keep.
  "$split" strip "$in" "$tmp/in.wasm"
  wasm-opt "${features[@]}" -Oz "$tmp/in.wasm" -o "$first"
  exit 0
fi
case "$mode" in
  split) "$split" split "$in" "$tmp/first.wasm" "$tmp/second.wasm" "$list" ${linked:+"$linked"} ;;
  instrument) "$split" instrument "$in" "$tmp/first.wasm" "$tmp/second.wasm" "$list" ;;
  *) echo "split-wasm: MODE is split, instrument or off, not $mode" >&2; exit 2 ;;
esac
wasm-opt "${features[@]}" -Oz "$tmp/first.wasm" -o "$first"
wasm-opt "${features[@]}" -Oz "$tmp/second.wasm" -o "$second"
