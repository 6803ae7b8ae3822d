#!/usr/bin/env bash
# bench/v075.sh: the everyday commands at 100 handoffs beside
# session-handoff v0.7.5 (the single-file tool this one replaces), in one
# run, interleaved, each in a fresh process: the median wall time, its
# ratio, and the load. See bench/README.md.
#
#   bench/v075.sh                         # 100 handoffs, 21 runs
#   BENCH_SIZE=1000 BENCH_RUNS=11 bench/v075.sh
#   BENCH_V075=/path/to/v0.7.5/binary bench/v075.sh
#
# Environment:
#   BENCH_SIZE       handoffs in each store (default 100)
#   BENCH_RUNS       runs of each command (default 21)
#   BENCH_V075       a v0.7.5 binary; without it, v0.7.5 is built from
#                    BENCH_V075_SRC (a clone of agent19710101/session-handoff),
#                    or from a shallow clone of its tag v0.7.5 on GitHub
#   BENCH_KEEP       set to 1 to keep the work directory
#
# v0.7.5 keeps its store in $XDG_CONFIG_HOME/session-handoff/handoffs.json
# and has no show command: its way to print a whole record is
# list --latest --json, set beside our show latest.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
n=${BENCH_SIZE:-100}
runs=${BENCH_RUNS:-21}
positive_int BENCH_SIZE "$n"
positive_int BENCH_RUNS "$runs"
require "git" go git EPOCHREALTIME
make_work

# Both binaries as a release builds them: static, trimmed, stripped.
build() { CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$@"; }
build "$sh" ./cmd/session-handoff
old=${BENCH_V075:-}
if [ -z "$old" ]; then
  src=${BENCH_V075_SRC:-}
  if [ -z "$src" ]; then
    src=$work/v075-src
    git clone --quiet --depth 1 --branch v0.7.5 https://github.com/agent19710101/session-handoff "$src" 2>>"$log" ||
      fail "could not clone v0.7.5: set BENCH_V075 to its binary or BENCH_V075_SRC to a clone"
  fi
  old=$work/v075
  (cd "$src" && git -c advice.detachedHead=false checkout --quiet v0.7.5 && GOFLAGS=-mod=mod build "$old" ./cmd/session-handoff) >>"$log" 2>&1 ||
    fail "could not build v0.7.5 from $src"
fi

machine
echo "runs:    $runs of each command, interleaved (v0.7.5, ours, v0.7.5, ours…); times are medians in ms"

# Ours: genstore's store and project (a git repository, one commit), with
# an origin remote. v0.7.5: as many handoffs saved by itself in the same
# project.
go run ./bench/genstore "$work/s" "$n" >/dev/null
app=$work/s/app
git -C "$app" remote add origin https://example.com/app.git
export SESSION_HANDOFF_HOME=$work/s/home XDG_CONFIG_HOME=$work/v075-config
cd "$app"
for i in $(seq "$n"); do
  "$old" save --tool codex --project . --title "Handoff number $i" --summary "Where things stood" --next "Run the tests" >/dev/null 2>>"$log" || fail "v0.7.5 save failed"
done

names=(save list latest render show)
declare -A ours=(
  [save]="save --quiet --title bench --summary S --next A"
  [list]="list" [latest]="list --latest" [render]="render latest" [show]="show latest"
)
declare -A theirs=(
  [save]="save --tool codex --project . --title bench --summary S --next A"
  [list]="list --limit 20" [latest]="list --latest" [render]="render --id latest" [show]="list --latest --json"
)
for _ in $(seq "$runs"); do
  for name in "${names[@]}"; do
    # shellcheck disable=SC2086
    measure "old-$name" "$old" ${theirs[$name]}
    # shellcheck disable=SC2086
    measure "ours-$name" "$sh" ${ours[$name]}
  done
done

echo
echo "== $n handoffs (load at end $(cut -d' ' -f1-3 /proc/loadavg)); ratio = ours / v0.7.5"
printf '| %-13s | %-21s | %9s | %8s | %5s |\n' ours v0.7.5 "v0.7.5 ms" "ours ms" ratio
printf '|%s|%s|%s|%s|%s|\n' --------------- ----------------------- ----------: ---------: ------:
for name in "${names[@]}"; do
  o=$(median_ms "$work/old-$name.times")
  w=$(median_ms "$work/ours-$name.times")
  printf '| %-13s | %-21s | %9s | %8s | %5s |\n' "${ours[$name]%% --[a-z]* [A-Za-z]*}" "${theirs[$name]%% --tool*}" "$o" "$w" "$(awk -v a="$w" -v b="$o" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
done
echo "save: ours 'save --quiet --title bench --summary S --next A' (git status alone at the commit of the"
echo "project's previous handoff, as here; after a commit status, log and rev-list in one round); v0.7.5"
echo "'save --tool codex --project . …' (one git status). show latest has no v0.7.5 command: its"
echo "list --latest --json prints the whole record."
