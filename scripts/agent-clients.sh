#!/usr/bin/env bash
# The third-party clients the external-agent tests drive clawrun with (tests/it/mcp.rs,
# tests/it/agent_cmd.rs), pinned, in the target folder (re-running is a no-op):
# - the official MCP Python SDK in a virtual environment at target/agent-clients/py;
# - the Codex CLI from npm at target/agent-clients/node (needs node and npm).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
root="$target/agent-clients"
mkdir -p "$root"

venv="$root/py"
want="mcp==2.3.0"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.clawrun-pins" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check $want >&2
  echo "$want" > "$venv/.clawrun-pins"
fi

node="$root/node"
codex="@openai/codex@0.171.0"
if [ "$(cat "$node/.clawrun-pins" 2>/dev/null)" != "$codex" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "scripts/agent-clients.sh: npm is needed to install $codex (apt-get install nodejs npm)" >&2
    exit 1
  fi
  npm install --prefix "$node" --no-audit --no-fund --loglevel=error "$codex" >&2
  echo "$codex" > "$node/.clawrun-pins"
fi
