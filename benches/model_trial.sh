#!/usr/bin/env bash
# Model-driven trials end to end: `clawrun mock-llm` serves a scripted model (3 requests:
# list the inbox, read one message, answer) on loopback, and `clawrun run` plays T002 with
# `--agent openai:mock` against it. Prints the median wall time of REPEAT one-trial runs
# (process start, task load, the model round trips, judge, journal and summary), the same for
# an oracle one-trial run and for `clawrun --version` (start-up alone), and the CPU time per
# trial of 100 model-driven trials at -j 2.
#
#   benches/model_trial.sh [CLAWRUN_BINARY] [REPEAT]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/clawrun}
repeat=${2:-21}
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/script.yaml" <<'YAML'
rules:
  - match: {turn: 0}
    reply:
      tool_calls:
        - name: gmail_list_messages
          arguments: {days_back: 30, max_results: 50}
  - match: {turn: 1}
    reply:
      tool_calls:
        - name: gmail_get_message
          arguments: {message_id: msg_001}
  - reply:
      text: "Needs reply: msg_001 (boss). FYI: msg_003 newsletter, msg_005 HR. Spam: msg_004 lottery, msg_008 survey."
YAML
"$bin" mock-llm --port 0 --script "$work/script.yaml" > "$work/port.txt" 2> /dev/null &
server=$!
for _ in $(seq 100); do [ -s "$work/port.txt" ] && break; sleep 0.05; done
port=$(sed 's/.*://' "$work/port.txt" | tr -d '[:space:]')
export OPENAI_API_KEY=dummy
model=(--agent openai:mock --base-url "http://127.0.0.1:$port/v1" --no-probe)

# Median wall time in milliseconds of REPEAT runs of the command.
median_ms() {
  local times=()
  for _ in $(seq "$repeat"); do
    rm -rf "$work/run"
    local start end
    start=$(date +%s%N)
    "$@" > /dev/null 2>&1
    end=$(date +%s%N)
    times+=($(( (end - start) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk -v n="$repeat" \
    'NR == int((n + 1) / 2) { printf "%.1f ms\n", $1 / 1000 }'
}
one=(run tasks/T002_email_triage --trials 1 -j 1 --faults none --report none --json --out "$work/run")
echo "one model-driven trial: $(median_ms "$bin" "${one[@]}" "${model[@]}")"
echo "one oracle trial:       $(median_ms "$bin" "${one[@]}")"
echo "clawrun --version:      $(median_ms "$bin" --version)"
echo "/bin/true (the loop):   $(median_ms /bin/true)"
rm -rf "$work/run"
/usr/bin/time -f '%e %U %S' -o "$work/time.txt" "$bin" run tasks/T002_email_triage \
  --trials 100 -j 2 --faults none --report none --json --out "$work/run" "${model[@]}" > /dev/null
read -r secs user sys < "$work/time.txt"
awk -v s="$secs" -v u="$user" -v y="$sys" \
  'BEGIN { printf "100 model-driven trials, -j 2: %.2f s, %.2f ms CPU per trial\n", s, (u + y) * 10 }'
