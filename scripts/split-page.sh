#!/usr/bin/env bash
# Trunk's post-build hook (Trunk.toml): the page's module split in two, each
# part then optimised for size (tools/wasm-split; docs/browser.md, "The page's module
# in two parts"):
#   <name>_bg.wasm        what a page runs until its starter cluster is built
#                         (the functions web/split-keep.txt names), with a
#                         stub for every other function;
#   <name>_deferred.wasm  the other functions, fetched once the page is ready,
#                         or at once, synchronously, if a stub is called first.
# The glue (<name>.js) gets the loader, and index.html the new files' hashes.
# KUBESIM_SPLIT=instrument moves every function and makes each stub report
# itself (scripts/split-profile.sh); KUBESIM_SPLIT=off only optimises.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
mode="${KUBESIM_SPLIT:-split}"
export PATH="$PWD/node_modules/.bin:$PATH"

shopt -s nullglob
wasms=("$TRUNK_STAGING_DIR"/kubesim-web-*_bg.wasm)
[ "${#wasms[@]}" = 1 ] || { echo "split-page: expected one kubesim-web-*_bg.wasm in $TRUNK_STAGING_DIR" >&2; exit 1; }
bg="${wasms[0]}"
stem="${bg%_bg.wasm}"
js="$stem.js"
deferred="${stem}_deferred.wasm"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The split goes by the functions' names as rustc gave them, so it comes
# before wasm-opt (which merges identical functions, and which ones are
# identical varies with where the sources were built); each part is then
# optimised on its own, with the features Trunk enables.
features=(--enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-mutable-globals --enable-multivalue --enable-reference-types)
if [ "$mode" = off ]; then
  wasm-opt "${features[@]}" -Oz "$bg" -o "$bg"
  node scripts/split-glue.mjs "$TRUNK_STAGING_DIR/index.html" "$bg" "$js"
  exit 0
fi

cargo build --quiet --release -p kubesim-wasm-split
split="${CARGO_TARGET_DIR:-target}/release/kubesim-wasm-split"
case "$mode" in
  split) "$split" split "$bg" "$tmp/first.wasm" "$tmp/second.wasm" web/split-keep.txt ;;
  instrument) "$split" instrument "$bg" "$tmp/first.wasm" "$tmp/second.wasm" "$TRUNK_STAGING_DIR/split-slots.txt" ;;
  *) echo "split-page: KUBESIM_SPLIT is split, instrument or off, not $mode" >&2; exit 1 ;;
esac
wasm-opt "${features[@]}" -Oz "$tmp/first.wasm" -o "$bg"
wasm-opt "${features[@]}" -Oz "$tmp/second.wasm" -o "$deferred"

node scripts/split-glue.mjs "$TRUNK_STAGING_DIR/index.html" "$bg" "$js" "$(basename "$deferred")"
