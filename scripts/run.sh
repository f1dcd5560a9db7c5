#!/usr/bin/env bash
# Builds and runs kubesim on 127.0.0.1: the browser app at
# http://127.0.0.1:6443/ui/ and the native API for kubectl on the same port
# (pass other flags through, e.g. --listen 127.0.0.1:8080).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
./scripts/build-web.sh
cargo build --release --quiet --bin kubesim
exec ./target/release/kubesim serve --ui dist "$@"
