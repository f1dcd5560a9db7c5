#!/usr/bin/env bash
# Trunk's post-build hook (Trunk.toml): the page's module split in two, each
# part then optimised for size (tools/wasm-split; docs/browser.md, "The page's module
# in two parts"):
#   <name>_bg.wasm        what a page runs until its starter cluster is built
#                         (the functions web/split-keep.txt names), with a
#                         stub for every other function;
#   <name>_deferred.wasm  the other functions, fetched once the page is ready,
#                         or at once, synchronously, if a stub is called first.
# The split and wasm-opt are scripts/split-wasm.sh's; the glue (<name>.js)
# gets the loader (scripts/split-glue.mjs), and index.html the new files' hashes.
# KUBESIM_SPLIT=instrument moves every function and makes each stub report
# itself (scripts/split-profile.sh); KUBESIM_SPLIT=off only optimises.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TRUNK_STAGING_DIR:?run by trunk as a post_build hook}"
mode="${KUBESIM_SPLIT:-split}"

shopt -s nullglob
wasms=("$TRUNK_STAGING_DIR"/kubesim-web-*_bg.wasm)
[ "${#wasms[@]}" = 1 ] || { echo "split-page: expected one kubesim-web-*_bg.wasm in $TRUNK_STAGING_DIR" >&2; exit 1; }
bg="${wasms[0]}"
stem="${bg%_bg.wasm}"
js="$stem.js"
deferred="${stem}_deferred.wasm"
case "$mode" in
  # The module as cargo linked it, with its relocations (.cargo/config.toml),
  # for the data that moves too; the split checks it is the one Trunk's
  # wasm-bindgen read.
  split) ./scripts/split-wasm.sh split "$bg" "$bg" "$deferred" web/split-keep.txt \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/kubesim-web.wasm" ;;
  instrument) ./scripts/split-wasm.sh instrument "$bg" "$bg" "$deferred" "$TRUNK_STAGING_DIR/split-slots.txt" ;;
  off) ./scripts/split-wasm.sh off "$bg" "$bg" - - ;;
  *) echo "split-page: KUBESIM_SPLIT is split, instrument or off, not $mode" >&2; exit 1 ;;
esac
if [ "$mode" = off ]; then
  node scripts/split-glue.mjs "$js" - --index "$TRUNK_STAGING_DIR/index.html" "$bg"
else
  node scripts/split-glue.mjs "$js" "$(basename "$deferred")" --on-ready-mark --index "$TRUNK_STAGING_DIR/index.html" "$bg"
fi
