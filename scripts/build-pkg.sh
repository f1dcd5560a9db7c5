#!/usr/bin/env bash
# Builds the npm package in pkg/ (the headless simulator: the core, its
# controllers and the page's kubectl, with no UI) from the same core as
# the page and the native door:
#   cargo (the page's `web` profile) -> wasm-bindgen --target web -> wasm-opt -Oz
# The generated files land in pkg/wasm/ and pkg/element/ (not committed). Then
#   cd pkg && npm pack          gives kubesim-X.tgz, installable offline.
# Needs the tools scripts/install-web-tools.sh installs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"

cargo build --quiet -p kubesim-embed --target wasm32-unknown-unknown --profile web
out=pkg/wasm
rm -rf "$out"
wasm-bindgen --target web --out-dir "$out" --out-name kubesim \
  target/wasm32-unknown-unknown/web/kubesim_embed.wasm
# The same features Trunk enables for the page's bundle.
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-multivalue --enable-reference-types \
  "$out/kubesim_bg.wasm" -o "$out/kubesim_bg.wasm"
brotli=$(node -e "const z=require('zlib');const b=require('fs').readFileSync(process.argv[1]);console.log(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)" "$out/kubesim_bg.wasm")
echo "pkg: headless wasm $(( $(stat -c %s "$out/kubesim_bg.wasm") / 1024 )) KB, $(( brotli / 1024 )) KB brotli"

# The element: the browser app as <kube-sim> (pkg/kube-sim.js loads it),
# with the files it fetches next to it: the style sheet, the lessons and
# the schema with its descriptions (for explain).
cargo build --quiet -p kubesim-element --target wasm32-unknown-unknown --profile web
el=pkg/element
rm -rf "$el"
wasm-bindgen --target web --out-dir "$el" --out-name kubesim_element \
  target/wasm32-unknown-unknown/web/kubesim_element.wasm
wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-multivalue --enable-reference-types \
  "$el/kubesim_element_bg.wasm" -o "$el/kubesim_element_bg.wasm"
cp www/style.css "$el/style.css"
cp -r lessons "$el/lessons"
cp src/schema/k8s-v1.33.json "$el/k8s-v1.33.json"
brotli=$(node -e "const z=require('zlib');const b=require('fs').readFileSync(process.argv[1]);console.log(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)" "$el/kubesim_element_bg.wasm")
echo "pkg: element wasm $(( $(stat -c %s "$el/kubesim_element_bg.wasm") / 1024 )) KB, $(( brotli / 1024 )) KB brotli"
