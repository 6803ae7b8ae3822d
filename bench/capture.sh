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
case $mb in '' | *[!0-9]* | 0) echo "bench: BENCH_MB must be a positive integer, got '$mb'" >&2; exit 2 ;; esac
case $runs in '' | *[!0-9]* | 0) echo "bench: BENCH_RUNS must be a positive integer, got '$runs'" >&2; exit 2 ;; esac

# --- tools ------------------------------------------------------------------
missing=()
for tool in go jq wc; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
# GNU time (Debian package "time"), not the shell keyword: we need -f %M.
if ! [ -x /usr/bin/time ] || ! /usr/bin/time -f '%M' true >/dev/null 2>&1; then
  missing+=("/usr/bin/time")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench: missing: ${missing[*]}" >&2
  echo "bench: on Debian/Ubuntu: sudo apt-get install -y jq time coreutils  (go: https://go.dev/dl/, 1.26 or later)" >&2
  exit 1
fi
# EPOCHREALTIME (bash 5) times a command without forking date around it.
if [ -z "${EPOCHREALTIME:-}" ]; then
  echo "bench: needs bash 5 or later (EPOCHREALTIME), this is $BASH_VERSION" >&2
  exit 1
fi

# --- work directory -----------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/session-handoff-bench.XXXXXX")
cleanup() {
  if [ "${BENCH_KEEP:-}" = 1 ]; then
    echo "bench: kept $work" >&2
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
mkdir -p "$work/home" "$work/app"
export SESSION_HANDOFF_HOME=$work/home
sh=$work/session-handoff
log=$work/log
: >"$log"

fail() {
  echo "bench: $*" >&2
  [ -s "$log" ] && tail -n 20 "$log" >&2
  exit 1
}

cpu_model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n1)
echo "== session-handoff capture benchmark"
echo "machine: $(nproc) CPUs ($cpu_model), $(uname -sm), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
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

# measure NAME CMD...: runs CMD (standard output to /dev/null, errors to the
# log) and appends its wall time in microseconds to $work/NAME.times. The
# clock is bash's EPOCHREALTIME, read without starting a process.
measure() {
  local name=$1 s e
  shift
  s=${EPOCHREALTIME/[.,]/}
  "$@" >/dev/null 2>>"$log" || fail "$name failed: $*"
  e=${EPOCHREALTIME/[.,]/}
  echo $((e - s)) >>"$work/$name.times"
}

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
# median FILE: the median of its lines (microseconds).
median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

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
