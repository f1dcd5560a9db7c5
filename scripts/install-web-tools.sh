#!/usr/bin/env bash
# Installs what building and testing the browser app needs, at the versions
# pinned here (Trunk.toml and web/Cargo.toml name the same ones), from the
# registries only: nothing is downloaded at build time.
#   --with-browser  also Debian's Chromium and ChromeDriver (for the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130   # must equal web/Cargo.toml's wasm-bindgen pin

if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  echo "== installing trunk $TRUNK_VERSION (takes several minutes, once)"
  cargo install trunk --version "=$TRUNK_VERSION" --locked
fi

if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  echo "== installing wasm-bindgen-cli $WASM_BINDGEN_VERSION"
  # Not --locked: its lock file wants a crate version the registry lacks.
  cargo install wasm-bindgen-cli --version "=$WASM_BINDGEN_VERSION"
fi

# wasm-opt (npm binaryen, pinned in package.json), playwright-core, axe-core
# and tsc (the npm package's declarations are type-checked).
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ] || [ ! -x node_modules/.bin/tsc ]; then
  command -v npm >/dev/null || { echo "npm is required (Node 20)"; exit 1; }
  npm ci --no-audit --no-fund
fi

if [ "${1:-}" = "--with-browser" ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver
fi
