#!/usr/bin/env bash
# Re-records the golden replay records in snapshots/golden after an intended change (a task, a
# service, a tool, the judge): every bundled task, one oracle trial, fixed seed, faults on; one
# trace file per trial (--traces files), so the diff is read per trial.
# Review the diff (`git diff --stat snapshots/`) before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf snapshots/golden
cargo run --release -q -- run --suite . --agent oracle --trials 1 --seed 42 \
  --faults claw-eval:0.3 --traces files --out snapshots/golden --json > /dev/null
rm -f snapshots/golden/report.html snapshots/golden/report.md snapshots/golden/timings.jsonl
echo "recorded $(wc -l < snapshots/golden/journal.jsonl) trials in snapshots/golden"
