#!/usr/bin/env bash
# Builds and runs the simulator's native door on 127.0.0.1 (default port
# 6443; pass other flags through, e.g. --listen 127.0.0.1:8080).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "cargo is required (https://rustup.rs)"; exit 1; }
cargo build --release --quiet
exec ./target/release/kubesim serve "$@"
