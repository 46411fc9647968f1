#!/usr/bin/env bash
# The layering check (ARCHITECTURE.md §1): the crates below the sandbox build without wasmtime.
# Fails, naming the crate and the path to the dependency, if any of them reaches a wasmtime or
# wasi crate (normal or build dependencies; dev-dependencies may).
set -euo pipefail
cd "$(dirname "$0")/.."
wasmtime_free=(clawrun-vfs clawrun-hostcall clawrun-task clawrun-agents clawrun-judge
  clawrun-report clawrun-web-text clawrun-faults clawrun-web clawrun-services)
status=0
for crate in "${wasmtime_free[@]}"; do
  if found=$(cargo tree --locked --offline -q -p "$crate" -e normal,build --prefix none \
    | grep -E '^(wasmtime|wasi-|wiggle|cranelift)' | sed 's/ .*//' | sort -u) && [ -n "$found" ]; then
    echo "layering: $crate must build without wasmtime but depends on: $(echo "$found" | tr '\n' ' ')" >&2
    echo "  (see: cargo tree -p $crate -i $(echo "$found" | head -1); ARCHITECTURE.md §1)" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "layering: ${#wasmtime_free[@]} crates build without wasmtime"
exit "$status"
