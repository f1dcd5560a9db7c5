#!/usr/bin/env bash
# Remakes web/split-keep.txt, the functions the page's module keeps in the
# part a page loads first (docs/browser.md, "The page's module in two
# parts"): an instrumented build, then a fresh page and a reload of it in
# headless Chromium until ready, noting every function they run. Run it when
# e2e/split.test.mjs says a page loaded the second part before it was ready.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-web-tools.sh --with-browser
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
KUBESIM_SPLIT=instrument trunk build index.html --release --dist "$out"
cargo build --quiet --bin kubesim
UI="$out" node e2e/split-profile.mjs > web/split-keep.txt.new
mv web/split-keep.txt.new web/split-keep.txt
echo "web/split-keep.txt: $(grep -vc '^#' web/split-keep.txt) functions"
