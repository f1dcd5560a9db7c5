#!/usr/bin/env bash
# Trunk's post-build hook (Trunk.toml): the page's module optimised for size,
# then split in two (tools/wasm-split; docs/browser.md, "The page's module
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

# -g keeps the functions' names, which the split goes by; neither output
# carries them.
wasm-opt "$bg" -Oz -g -o "$tmp/opt.wasm"
if [ "$mode" = off ]; then
  wasm-opt "$tmp/opt.wasm" --strip-debug --strip-producers -o "$bg"
  exit 0
fi

cargo build --quiet --release -p kubesim-wasm-split
split="${CARGO_TARGET_DIR:-target}/release/kubesim-wasm-split"
case "$mode" in
  split) "$split" split "$tmp/opt.wasm" "$bg" "$deferred" web/split-keep.txt ;;
  instrument) "$split" instrument "$tmp/opt.wasm" "$bg" "$deferred" "$TRUNK_STAGING_DIR/split-slots.txt" ;;
  *) echo "split-page: KUBESIM_SPLIT is split, instrument or off, not $mode" >&2; exit 1 ;;
esac

node scripts/split-glue.mjs "$js" "$(basename "$deferred")" "$TRUNK_STAGING_DIR/index.html" "$bg"
