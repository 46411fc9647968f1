#!/usr/bin/env bash
# Memory benchmark: peak RSS of `clawrun run -j 2` whose agent tries to fill the disk (each
# trial doubles a file until the quota refuses it, then creates files until inodes run out),
# for several --disk-quota values. Peak host memory should follow -j x quota + a constant.
#
#   benches/disk_fill_rss.sh [CLAWRUN_BINARY] [TRIALS]
#
# Prints one line per quota: quota, trials, wall seconds, peak RSS (MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/clawrun}
trials=${2:-8}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/suite/tasks/disk_fill"
cat > "$work/suite/tasks/disk_fill/task.yaml" <<'YAML'
task_id: disk_fill
prompt: {text: "Fill the disk"}
rubric:
  - name: wrote
    weight: 1.0
    check: {type: file_exists, path: /workspace/f}
oracle:
  steps:
    - call: Bash
      args: {command: "echo x > f"}
  answer: done
YAML
cat > "$work/agent.yaml" <<'YAML'
steps:
  - call: Bash
    args: {command: "echo 0123456789abcdef > f; i=0; while [ $i -lt 60 ]; do cat f f > g && mv g f || break; i=$((i+1)); done; ls -l f"}
  - call: Bash
    args: {command: "cp f f2; cp f f3; mkdir -p many; i=0; while [ $i -lt 100000 ]; do : > many/$i || break; i=$((i+1)); done; echo files $i"}
answer: done
YAML

printf '%-10s %-7s %-9s %s\n' quota trials seconds peak_rss_mib
for quota in 16MiB 64MiB 256MiB 512MiB; do
  out="$work/run-$quota"
  /usr/bin/time -f '%e %M' -o "$work/time" "$bin" run --suite "$work/suite" \
    --agent "scripted:$work/agent.yaml" --trials "$trials" -j 2 --faults none \
    --disk-quota "$quota" --out "$out" --json > /dev/null
  read -r secs kib < "$work/time"
  printf '%-10s %-7s %-9s %s\n' "$quota" "$trials" "$secs" "$((kib / 1024))"
done
