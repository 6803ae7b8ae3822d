#!/usr/bin/env bash
# CLI start-up: `render latest` and `hook claude-code session-start` in a
# fresh process against a store of N handoffs (default 10,000), beside
# `git status` in the same repository as the standard tool, in one run.
# Prints medians in ms and the ratio to git status.
#
#   bench/startup.sh            # 10,000 handoffs, 21 runs each
#   BENCH_N=100000 BENCH_RUNS=11 bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
n="${BENCH_N:-10000}"
runs="${BENCH_RUNS:-21}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/session-handoff" ./cmd/session-handoff
go run ./bench/genstore "$work" "$n"
export SESSION_HANDOFF_HOME="$work/home"
cd "$work/app"
printf '{"cwd": "%s", "hook_event_name": "SessionStart", "source": "startup"}' "$work/app" > "$work/hook.json"

# median of $runs wall times, in ms, of a command (stdin from hook.json)
median() {
  local t=()
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s%N)
    "$@" < "$work/hook.json" > /dev/null 2>&1
    e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.1f", $1 / 1000 }'
}

# Interleave the three so that machine load hits them alike.
declare -A total
for round in 1 2 3; do
  total[git]+="$(median git status) "
  total[render]+="$(median "$work/session-handoff" render latest) "
  total[hook]+="$(median "$work/session-handoff" hook claude-code session-start) "
done
mid() { tr ' ' '\n' <<<"$1" | grep . | sort -n | sed -n 2p; }
g=$(mid "${total[git]}"); r=$(mid "${total[render]}"); h=$(mid "${total[hook]}")
echo "start-up at $n handoffs, median of $runs runs (middle of 3 rounds), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '| %-34s | %8s | %16s |\n' command ms "ratio to git status"
printf '| %-34s | %8s | %16s |\n' "git status" "$g" "1.00"
printf '| %-34s | %8s | %16s |\n' "session-handoff render latest" "$r" "$(awk -v a="$r" -v b="$g" 'BEGIN{printf "%.2f", a/b}')"
printf '| %-34s | %8s | %16s |\n' "session-handoff hook … session-start" "$h" "$(awk -v a="$h" -v b="$g" 'BEGIN{printf "%.2f", a/b}')"
