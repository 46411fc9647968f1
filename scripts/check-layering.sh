#!/usr/bin/env bash
# The layering check (ARCHITECTURE.md §1):
# 1. the crate graph ARCHITECTURE.md draws (its `crate-graph` block) is exactly the one cargo
#    reports: every edge drawn exists and every direct workspace dependency is drawn;
# 2. the crates below the sandbox build without wasmtime;
# 3. no library crate depends on the CLI's crates (clap, indicatif) unless through an optional
#    feature (`run` and `trial` offer clap derives behind `clap`).
# Fails naming the crate and the dependency.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# 1. The drawn graph against cargo's.
drawn=$(awk '/<!-- crate-graph/{on=1} on&&/^```text/{inside=1; next} inside&&/^```/{exit} inside' ARCHITECTURE.md \
  | awk -F'->' '{gsub(/ +$/,"",$1); n=split($2,d," "); out=""; for(i=1;i<=n;i++) out=out" "d[i]; print $1 ":" out}' \
  | python3 -c 'import sys
for line in sys.stdin:
    name, deps = line.rstrip("\n").split(":", 1)
    print(name.strip() + ":" + " ".join(sorted(deps.split())))' | sort)
actual=$(cargo metadata --no-deps --format-version 1 --offline --locked | python3 -c 'import json, sys
m = json.load(sys.stdin)
names = {p["name"] for p in m["packages"]}
for p in m["packages"]:
    deps = sorted({d["name"].removeprefix("clawrun-") for d in p["dependencies"]
                   if d["name"] in names and d["kind"] in (None, "build")})
    print(p["name"] + ":" + " ".join(deps))' | sort)
if [ -z "$drawn" ]; then
  echo "layering: ARCHITECTURE.md has no crate-graph block" >&2
  status=1
elif [ "$drawn" != "$actual" ]; then
  echo "layering: the crate graph in ARCHITECTURE.md §1 is not cargo's (< drawn, > cargo):" >&2
  diff <(echo "$drawn") <(echo "$actual") | grep '^[<>]' >&2 || true
  status=1
fi

# 2. Below the sandbox: no wasmtime.
wasmtime_free=(clawrun-vfs clawrun-hostcall clawrun-task clawrun-agents clawrun-judge
  clawrun-report clawrun-web-text clawrun-faults clawrun-web clawrun-services clawrun-export clawrun-browser)
for crate in "${wasmtime_free[@]}"; do
  if found=$(cargo tree --locked --offline -q -p "$crate" -e normal,build --prefix none \
    | grep -E '^(wasmtime|wasi-|wiggle|cranelift)' | sed 's/ .*//' | sort -u) && [ -n "$found" ]; then
    echo "layering: $crate must build without wasmtime but depends on: $(echo "$found" | tr '\n' ' ')" >&2
    echo "  (see: cargo tree -p $crate -i $(echo "$found" | head -1); ARCHITECTURE.md §1)" >&2
    status=1
  fi
done

# 3. The CLI's crates stay in the CLI.
libraries=("${wasmtime_free[@]}" clawrun-sandbox clawrun-trial clawrun-external clawrun-run clawrun-fuzz)
for crate in "${libraries[@]}"; do
  if found=$(cargo tree --locked --offline -q -p "$crate" -e normal,build --prefix none --depth 1 \
    | grep -E '^(clap|indicatif|clap_complete|clap_mangen) ' | sed 's/ .*//' | sort -u) && [ -n "$found" ]; then
    echo "layering: library crate $crate depends on the CLI's $(echo "$found" | tr '\n' ' ')(make it an optional feature)" >&2
    status=1
  fi
done

[ "$status" = 0 ] && echo "layering: the crate graph is ARCHITECTURE.md's; ${#wasmtime_free[@]} crates build without wasmtime; ${#libraries[@]} library crates without clap or indicatif"
exit "$status"
