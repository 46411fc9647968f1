#!/usr/bin/env bash
# Runs the official WASI test suite's wasip1 programs (github.com/WebAssembly/wasi-testsuite)
# through `clawrun exec` and prints pass/fail counts.
#
#   scripts/wasi-testsuite.sh SUITE_PATH [FILTER]
#
# SUITE_PATH is a checkout of wasi-testsuite with built programs (the `prod/testsuite-base`
# branch carries them prebuilt), or any folder below it: every `*.wasm` found under a
# `wasm32-wasip1` folder (or a `testsuite` folder) is a test; its spec is the `.json` of the same
# base name (args, dirs, env, exit_code, stdout, stderr; defaults when missing, as the suite's
# doc/specification.md says). FILTER keeps tests whose path contains it.
#
# Each spec dir D (relative to the test's folder) is copied into the sandbox at /D and every
# argument equal to D becomes /D (clawrun's guest paths are absolute); a spec's "root" folder is
# mounted at `/` (newer suite versions: the program looks for the preopen `/`). Set
# WASI_TESTSUITE_ROOT_DIR=1 for suite versions whose programs look for `/` but whose specs still
# say "dirs": the first dir is then mounted at `/` instead. Nothing is written back, so fixtures
# stay clean. scripts/wasi-testsuite-build.sh builds such a folder from a source checkout.
#
# CLAWRUN is the binary to use (default: target/release/clawrun, else target/debug/clawrun).
# Exit status: 0 when every test passed, 1 otherwise.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 SUITE_PATH [FILTER]  (SUITE_PATH: a wasi-testsuite checkout with built tests)" >&2
  exit 2
fi
suite=$(cd "$1" && pwd)
filter=${2:-}
repo=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
if [ -z "${CLAWRUN:-}" ]; then
  for c in "$target/release/clawrun" "$target/debug/clawrun"; do
    if [ -x "$c" ]; then CLAWRUN=$c; break; fi
  done
fi
if [ -z "${CLAWRUN:-}" ] || [ ! -x "$CLAWRUN" ]; then
  echo "$0: no clawrun binary; run 'cargo build --release' or set CLAWRUN" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "$0: python3 is needed to read the specs" >&2; exit 2; }

exec python3 - "$CLAWRUN" "$suite" "$filter" "${WASI_TESTSUITE_ROOT_DIR:-}" <<'PY'
import json, os, subprocess, sys

clawrun, suite, filt, root_dir = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
tests = []
for dirpath, dirnames, files in os.walk(suite):
    dirnames[:] = sorted(d for d in dirnames if not d.endswith(".dir") and not d.startswith("."))
    parts = dirpath.split(os.sep)
    if not ("wasm32-wasip1" in parts or "testsuite" in parts):
        continue
    for f in sorted(files):
        if f.endswith(".wasm") and filt in os.path.join(dirpath, f):
            tests.append(os.path.join(dirpath, f))
if not tests:
    sys.exit(f"no wasip1 test programs (*.wasm below a wasm32-wasip1 or testsuite folder) in {suite}")

passed, failed = 0, []
for wasm in tests:
    base = wasm[: -len(".wasm")]
    spec = {}
    if os.path.exists(base + ".json"):
        with open(base + ".json") as fh:
            spec = json.load(fh)
    here = os.path.dirname(wasm)
    cmd = [clawrun, "exec", "--no-cache"]
    dirs = spec.get("dirs", [])
    guest_of = {}
    if "root" in spec:
        # Newer specs name one fixture folder the program finds as the preopen "/".
        cmd += ["--dir", f"{os.path.join(here, spec['root'])}::/"]
    for i, d in enumerate(dirs):
        guest = "/" if (root_dir and i == 0) else "/" + d.strip("/")
        guest_of[d] = guest
        cmd += ["--dir", f"{os.path.join(here, d)}::{guest}"]
    for k, v in spec.get("env", {}).items():
        cmd += ["--env", f"{k}={v}"]
    cmd += [wasm, "--"] + [guest_of.get(a, a) for a in spec.get("args", [])]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        failed.append((wasm, "timed out after 300 s"))
        continue
    why = []
    want = spec.get("exit_code", 0)
    if r.returncode != want:
        why.append(f"exit {r.returncode}, expected {want}")
    for stream, got in (("stdout", r.stdout), ("stderr", r.stderr)):
        if stream in spec and got.decode(errors="replace") != spec[stream]:
            why.append(f"{stream} differs: {got[:200]!r}")
    if why:
        err = r.stderr.decode(errors="replace").strip().splitlines()
        failed.append((wasm, "; ".join(why) + (f" | stderr: {err[-1][:300]}" if err else "")))
    else:
        passed += 1

for wasm, why in failed:
    print(f"FAIL {os.path.relpath(wasm, suite)}: {why}")
print(f"wasi-testsuite: {passed} passed, {len(failed)} failed, {len(tests)} total")
sys.exit(1 if failed else 0)
PY
