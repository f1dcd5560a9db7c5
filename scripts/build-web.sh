#!/usr/bin/env bash
# Builds the browser app into dist/ (served at /ui/ by `kubesim serve`).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-web-tools.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
trunk build index.html --release "$@"
