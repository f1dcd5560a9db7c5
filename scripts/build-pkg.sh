#!/usr/bin/env bash
# Builds the npm package in pkg/ from the same core as the page and the
# native door: the headless simulator (the core, its controllers and the
# page's kubectl, no UI) and the <kube-sim> element (the browser app).
# Each module: cargo (the page's `web` profile) -> wasm-bindgen --target
# web -> split in two, then wasm-opt -Oz on each part (as the page's). The
# generated files land in pkg/wasm/ and pkg/element/ (not committed). Then
#   cd pkg && npm pack          gives kubesim-X.tgz, installable offline.
# Needs the tools scripts/install-web-tools.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# brotli FILE: its size, brotli at the highest quality, in bytes.
brotli() {
  node -e "const z=require('zlib');const b=require('fs').readFileSync(process.argv[1]);console.log(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)" "$1"
}

# module CRATE OUT_DIR OUT_NAME LABEL KEEP_LIST: builds one module, splits
# it in two by KEEP_LIST (the functions a new simulator or element runs:
# scripts/split-wasm.sh; docs/embedding.md, "Two parts") and prints the
# sizes. KUBESIM_SPLIT=off builds one module; KUBESIM_SPLIT=instrument
# moves every function and writes OUT_DIR/split-slots.txt
# (scripts/split-profile.sh).
module() {
  local crate=$1 out=$2 name=$3 label=$4 keep=$5 mode=${KUBESIM_SPLIT:-split}
  cargo build --quiet -p "$crate" --target wasm32-unknown-unknown --profile web
  rm -rf "$out"
  # As linked, with its relocations (.cargo/config.toml): the split reads
  # them to move the data only the moved functions use.
  local linked="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/web/${crate//-/_}.wasm"
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" "$linked"
  local wasm="$out/${name}_bg.wasm" second="$out/${name}_deferred.wasm"
  case "$mode" in
    split) ./scripts/split-wasm.sh split "$wasm" "$wasm" "$second" "$keep" "$linked" ;;
    instrument) ./scripts/split-wasm.sh instrument "$wasm" "$wasm" "$second" "$out/split-slots.txt" ;;
    off) ./scripts/split-wasm.sh off "$wasm" "$wasm" - - ;;
    *) echo "build-pkg: KUBESIM_SPLIT is split, instrument or off, not $mode" >&2; exit 1 ;;
  esac
  if [ "$mode" = off ]; then
    echo "pkg: $label wasm $(( $(stat -c %s "$wasm") / 1024 )) KB, $(( $(brotli "$wasm") / 1024 )) KB brotli"
    return
  fi
  node scripts/split-glue.mjs "$out/$name.js" "$(basename "$second")"
  local a b
  a=$(brotli "$wasm") b=$(brotli "$second")
  echo "pkg: $label loaded first $(( $(stat -c %s "$wasm") / 1024 )) KB, $(( a / 1024 )) KB brotli;" \
    "second part $(( $(stat -c %s "$second") / 1024 )) KB, $(( b / 1024 )) KB brotli; together $(( (a + b) / 1024 )) KB brotli"
}

module kubesim-embed pkg/wasm kubesim headless embed/split-keep.txt

# The element, with the files it fetches next to it: the style sheet, the
# lessons and the schema with its descriptions (for explain).
module kubesim-element pkg/element kubesim_element element element/split-keep.txt
cp www/style.css pkg/element/style.css
cp -r lessons pkg/element/lessons
cp src/schema/k8s-v1.33.json pkg/element/k8s-v1.33.json
