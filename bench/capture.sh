#!/usr/bin/env bash
# bench/capture.sh: capture throughput on large Claude Code and Codex
# transcripts, each in a fresh process, beside jq parsing every line of the
# same JSONL and wc -l as the pure-I/O floor, in one run. See
# bench/README.md.
#
#   bench/capture.sh                     # 100 MiB transcripts, 5 runs each
#   BENCH_MB=20 BENCH_RUNS=3 bench/capture.sh
#
# Environment:
#   BENCH_MB     size of each transcript in MiB (default 100)
#   BENCH_RUNS   runs of each command on each transcript (default 5)
#   BENCH_KEEP   set to 1 to keep the work directory (its path is printed)
#
# It installs nothing: a missing tool stops it with the command to run.
set -euo pipefail

cd "$(dirname "$0")/.."

mb=${BENCH_MB:-100}
runs=${BENCH_RUNS:-5}
. bench/lib.sh
positive_int BENCH_MB "$mb"
positive_int BENCH_RUNS "$runs"
require "jq time coreutils" go jq wc /usr/bin/time EPOCHREALTIME
make_work
mkdir -p "$work/home" "$work/app"
export SESSION_HANDOFF_HOME=$work/home

echo "== session-handoff capture benchmark"
machine
echo "tools:   $(go version | cut -d' ' -f3), $(jq --version), $(wc --version | head -n1)"
echo "build:   go build ./cmd/session-handoff ./bench/gentranscript"
go build -o "$sh" ./cmd/session-handoff
go build -o "$work/gentranscript" ./bench/gentranscript

agents=(claude-code codex)
for a in "${agents[@]}"; do
  f=$work/$a.jsonl
  s=${EPOCHREALTIME/[.,]/}
  "$work/gentranscript" -agent "$a" -mb "$mb" -o "$f" || fail "gentranscript -agent $a failed"
  e=${EPOCHREALTIME/[.,]/}
  size=$(stat -c %s "$f")
  lines=$(wc -l <"$f")
  # Check once, untimed, that capture reads every line (its statistics
  # count them) and that jq parses every line.
  got=$(cd "$work/app" && "$sh" capture --from "$a" --session "$f" --dry-run --no-git --json 2>>"$log" | jq .stats.lines) ||
    fail "capture --from $a failed"
  [ "$got" = "$lines" ] || fail "capture read $got lines of $a.jsonl, which has $lines"
  [ "$(jq -c . "$f" | wc -l)" = "$lines" ] || fail "jq did not print one line per line of $a.jsonl"
  awk -v a="$a" -v b="$size" -v l="$lines" -v t=$((e - s)) 'BEGIN {
    printf "input:   %s.jsonl, %d bytes, %d lines (made in %.1f s); capture and jq both read all %d lines\n", a, b, l, t / 1e6, l
  }'
done

# --- the commands -----------------------------------------------------------------
# All three read the same file from a warm page cache (the checks above
# read it), write their output to /dev/null, and start as fresh processes.
ours() { (cd "$work/app" && "$sh" capture --from "$1" --session "$work/$1.jsonl" --dry-run --no-git); }
std() { jq -c . "$work/$1.jsonl"; }
floor() { wc -l "$work/$1.jsonl"; }


echo "runs:    $runs of each, interleaved (ours, jq, wc -l on Claude Code, then on Codex, then again)"
for i in $(seq 1 "$runs"); do
  for a in "${agents[@]}"; do
    measure "ours-$a" ours "$a"
    measure "std-$a" std "$a"
    measure "floor-$a" floor "$a"
  done
done

# Peak memory, from one more run of each under GNU time (not timed: time's
# own start would count).
rss() { /usr/bin/time -f '%M' -o "$work/rss" "$@" >/dev/null 2>>"$log" || fail "$* failed"; awk '{printf "%.0f", $1 / 1024}' "$work/rss"; }
declare -A peak
for a in "${agents[@]}"; do
  peak[ours-$a]=$(cd "$work/app" && rss "$sh" capture --from "$a" --session "$work/$a.jsonl" --dry-run --no-git)
  peak[std-$a]=$(rss jq -c . "$work/$a.jsonl")
  peak[floor-$a]=$(rss wc -l "$work/$a.jsonl")
done

# --- report ----------------------------------------------------------------------

echo
echo "== results ($mb MiB transcripts, median of $runs runs, wall time of a fresh process; MB/s is 10^6 bytes per second)"
printf '| %-11s | %-42s | %8s | %8s | %8s | %14s |\n' transcript command "s" "MB/s" "peak MiB" "ours/this MB/s"
printf '|%s|%s|%s|%s|%s|%s|\n' :------------ :------------------------------------------- ---------: ---------: ---------: ---------------:
for a in "${agents[@]}"; do
  size=$(stat -c %s "$work/$a.jsonl")
  o=$(median "$work/ours-$a.times")
  for side in ours std floor; do
    case $side in
      ours) cmd="session-handoff capture --dry-run --no-git" ;;
      std) cmd="jq -c . FILE" ;;
      floor) cmd="wc -l FILE" ;;
    esac
    t=$(median "$work/$side-$a.times")
    awk -v a="$a" -v c="$cmd" -v t="$t" -v o="$o" -v b="$size" -v p="${peak[$side-$a]}" 'BEGIN {
      printf "| %-11s | %-42s | %8.3f | %8.1f | %8s | %14.2f |\n", a, c, t / 1e6, b / t, p, t / o
    }'
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cat <<'EOF'
notes:
  - ours/this MB/s is our throughput divided by that command's: above 1, capture is faster.
  - capture --dry-run reads the whole transcript (the check above compares the lines it counted
    with wc -l), folds it into a handoff, redacts it, and prints the handoff (a few KiB) instead
    of saving it; jq -c . parses every line into a value and prints it again.
  - ours is one process that also starts the Go runtime and the CLI (about 40-60 ms here;
    see store.sh's start-up line).
EOF
