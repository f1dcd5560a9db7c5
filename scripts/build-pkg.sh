#!/usr/bin/env bash
# Builds the npm package in pkg/ from the same core as the page and the
# native door: the headless simulator (the core, its controllers and the
# page's kubectl, no UI) and the <kube-sim> element (the browser app).
# Each module: cargo (the page's `web` profile) -> wasm-bindgen --target
# web -> wasm-opt -Oz. The generated files land in pkg/wasm/ and
# pkg/element/ (not committed). Then
#   cd pkg && npm pack          gives kubesim-X.tgz, installable offline.
# Needs the tools scripts/install-web-tools.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

# module CRATE OUT_DIR OUT_NAME LABEL: builds one module and prints its size.
module() {
  local crate=$1 out=$2 name=$3 label=$4
  cargo build --quiet -p "$crate" --target wasm32-unknown-unknown --profile web
  rm -rf "$out"
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" \
    "target/wasm32-unknown-unknown/web/${crate//-/_}.wasm"
  # The same features Trunk enables for the page's bundle.
  wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-multivalue --enable-reference-types \
    "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
  local wasm="$out/${name}_bg.wasm" brotli
  brotli=$(node -e "const z=require('zlib');const b=require('fs').readFileSync(process.argv[1]);console.log(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)" "$wasm")
  echo "pkg: $label wasm $(( $(stat -c %s "$wasm") / 1024 )) KB, $(( brotli / 1024 )) KB brotli"
}

module kubesim-embed pkg/wasm kubesim headless

# The element, with the files it fetches next to it: the style sheet, the
# lessons and the schema with its descriptions (for explain).
module kubesim-element pkg/element kubesim_element element
cp www/style.css pkg/element/style.css
cp -r lessons pkg/element/lessons
cp src/schema/k8s-v1.33.json pkg/element/k8s-v1.33.json
