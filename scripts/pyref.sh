#!/usr/bin/env bash
# The reference Python of the Claw-Eval grader tests (tests/it/claw_eval_graders.rs): a native
# CPython with the real pydantic, openai and PyYAML that Claw-Eval's own harness uses, in a
# virtual environment at target/pyref (pinned versions; re-running is a no-op). Prints its
# absolute path.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
venv="$target/pyref"
want="pydantic==2.12.5 openai==1.109.1 PyYAML==6.0.3"
stamp="$venv/.clawrun-pins"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  # shellcheck disable=SC2086
  "$venv/bin/pip" install --quiet --disable-pip-version-check $want >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
