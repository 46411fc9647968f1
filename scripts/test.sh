#!/usr/bin/env bash
# The test command: builds the guest programs the tests run (wasm32-wasip2 / wasip1) and runs
# every test of the host workspace and of the guest-tools workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-wasip2 wasm32-wasip1 >/dev/null 2>&1 || rustup target add wasm32-wasip2 wasm32-wasip1
cargo test --workspace --locked
if [ -f guest_tools/Cargo.toml ]; then
  cargo test --manifest-path guest_tools/Cargo.toml --workspace --locked
fi
