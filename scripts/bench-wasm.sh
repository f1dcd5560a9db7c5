#!/usr/bin/env bash
# The page's core in instructions: the 1,000-replica rollout built as the
# bundle is (the `web` profile, then `wasm-opt -Oz` as Trunk runs it) for
# wasm32-wasip1, run by Node (V8, as Chromium) under valgrind. Timings on
# these machines vary by ±30%; instruction counts do not. One rollout's
# count is a run of two rollouts less a run of one (compiling, starting the
# server and Node's own start-up cancel out). Takes ~5 minutes.
#   ./scripts/bench-wasm.sh            (needs valgrind and the npm tools)
#   ./scripts/bench-wasm.sh creates    (50,000 ~1 KB ConfigMap creates through
#                                       Server::handle, timed, three runs)
#   ./scripts/bench-wasm.sh chromium   (the same module and creates in
#                                       headless Chromium, three runs)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-rollout}"
[ "$mode" = creates ] || [ "$mode" = chromium ] || command -v valgrind >/dev/null || { echo "bench-wasm: needs valgrind (apt-get install -y valgrind)" >&2; exit 2; }
rustup target list --installed | grep -qx wasm32-wasip1 || rustup target add wasm32-wasip1
cargo build -q -p kubesim-bench-wasm --target wasm32-wasip1 --profile web
out=target/wasm32-wasip1/web
wasm="$out/kubesim-bench-wasm.wasm"
if [ -x node_modules/.bin/wasm-opt ]; then
  node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-multivalue --enable-reference-types "$wasm" -o "$out/rollout-opt.wasm"
  wasm="$out/rollout-opt.wasm"
fi
if [ "$mode" = chromium ]; then
  for _ in 1 2 3; do node benches/wasm/chromium.mjs "$wasm" creates 50000; done
  exit 0
fi
if [ "$mode" = creates ]; then
  for _ in 1 2 3; do node --no-warnings "benches/wasm/run.mjs" "$wasm" creates 50000; done
  exit 0
fi
count() {
  # TurboFan only, compiled on first call on the main thread: the same
  # code every run (Liftoff's tier-up depends on timing).
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null --smc-check=all-non-file \
    node --no-warnings --single-threaded --no-liftoff --wasm-lazy-compilation benches/wasm/run.mjs "$wasm" "$1" 2>&1 \
    | sed -n 's/.*I *refs: *//p' | tr -d ,
}
one=$(count 1)
two=$(count 2)
brotli=$(node -e "const z=require('zlib');const b=require('fs').readFileSync(process.argv[1]);console.log(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)" "$wasm")
echo "rollout in wasm: $(( (two - one) / 1000000 )) M instructions (runs of 1 and 2: $(( one / 1000000 )) M, $(( two / 1000000 )) M); core module $(( brotli / 1024 )) KB brotli"
