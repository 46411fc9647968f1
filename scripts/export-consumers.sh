#!/usr/bin/env bash
# The real consumers of `clawrun export` (tests/it/export_cli.rs), pinned, in a virtual
# environment at target/export-consumers (re-running is a no-op); prints its Python's path:
# - inspect-ai, whose `read_eval_log` and `inspect log dump` read the `.eval` log;
# - opentelemetry-proto, whose protobuf messages parse the OTLP/JSON export;
# - harbor's ATIF models (harbor.models.trajectories and its validator): harbor asks for
#   Python 3.12, but those modules need only pydantic, so the wheel is installed without its
#   dependencies on the Python there is.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
venv="$target/export-consumers"
want="inspect-ai==0.3.285 opentelemetry-proto==1.45.2 harbor==0.26.0"
stamp="$venv/.clawrun-pins"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
  "${pip[@]}" inspect-ai==0.3.285 opentelemetry-proto==1.45.2 >&2
  "${pip[@]}" --no-deps --ignore-requires-python harbor==0.26.0 >&2
  echo "$want" > "$stamp"
fi
echo "$venv/bin/python"
