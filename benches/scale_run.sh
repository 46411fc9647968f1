#!/usr/bin/env bash
# Scale benchmark: `clawrun run` of T002's oracle trials (faults off, --report md) at several
# trial counts and worker counts, run folder in DIR (on the disk you want to measure; not
# tmpfs unless that is the point). Prints trials/s (start-up and summary included) and peak
# RSS, then removes each run folder.
#
#   benches/scale_run.sh [CLAWRUN_BINARY] [DIR] [COUNTS] [JOBS]
#
# Defaults: target/release/clawrun, a temporary folder under /tmp, "1000 10000", "1 2".
# COUNTS="1000 10000 100000" adds the long run (about 3.2 GB of traces while it lasts).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/clawrun}
dir=${2:-$(mktemp -d)}
counts=${3:-1000 10000}
jobs=${4:-1 2}
mkdir -p "$dir"
printf '%-8s %-4s %10s %12s %10s\n' trials jobs seconds trials/s "peak MB"
for j in $jobs; do
  for n in $counts; do
    out="$dir/scale-$n-$j"
    rm -rf "$out"
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" \
      "$bin" run tasks/T002_email_triage --trials "$n" -j "$j" --faults none \
      --report md --out "$out" > /dev/null 2> "$dir/stderr.txt" \
      || { cat "$dir/stderr.txt" >&2; exit 1; }
    read -r secs kb < "$dir/time.txt"
    awk -v n="$n" -v j="$j" -v s="$secs" -v kb="$kb" \
      'BEGIN { printf "%-8d %-4d %10.2f %12.0f %10.1f\n", n, j, s, n / s, kb / 1024 }'
    rm -rf "$out"
  done
done
rm -f "$dir/time.txt" "$dir/stderr.txt"
