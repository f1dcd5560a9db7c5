#!/usr/bin/env bash
# scripts/split-profile.sh [page|headless|element]
# Remakes a module's keep list, the functions it keeps in the part loaded
# first (docs/browser.md, "The page's module in two parts"; docs/embedding.md,
# "Two parts"): an instrumented build, then the module run until ready,
# noting every function it runs.
#   page      web/split-keep.txt: a fresh page and a reload of it in
#             headless Chromium, twice (e2e/split-profile.mjs);
#   headless  embed/split-keep.txt: new simulators in Node;
#   element   element/split-keep.txt: www/embed-example.html's elements
#             (e2e/split-profile-pkg.mjs).
# Run it when e2e/split.test.mjs (the page) or the package's tests say a
# module loaded its second part before it was ready.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-page}
./scripts/install-web-tools.sh --with-browser
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
case "$which" in
  page)
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    KUBESIM_SPLIT=instrument trunk build index.html --release --dist "$out"
    cargo build --quiet --bin kubesim
    UI="$out" node e2e/split-profile.mjs > web/split-keep.txt.new
    list=web/split-keep.txt ;;
  headless | element)
    # The whole package built instrumented.
    KUBESIM_SPLIT=instrument ./scripts/build-pkg.sh
    list=$([ "$which" = headless ] && echo embed/split-keep.txt || echo element/split-keep.txt)
    node e2e/split-profile-pkg.mjs "$which" > "$list.new" ;;
  *) echo "usage: $0 [page|headless|element]" >&2; exit 2 ;;
esac
mv "$list.new" "$list"
# The package built again, split by the new list.
[ "$which" = page ] || ./scripts/build-pkg.sh
echo "$list: $(grep -vc '^#' "$list") functions"
