#!/usr/bin/env bash
# Stress run (issue 22, not run by CI): the packages with concurrency or
# subprocesses, under the race detector, many times over, while busy loops
# keep every core loaded, as CI's machine is. A test that passes only on an
# idle machine, or only in some order of events, fails here.
#
#   scripts/stress.sh                           # the default packages, -count=20 (cmd/session-handoff: 2)
#   scripts/stress.sh -run 'Concurrent|Crash'   # only the matching tests
#   scripts/stress.sh ./store ./internal/remote # only these packages
#   STRESS_COUNT=5 STRESS_CMD_COUNT=1 scripts/stress.sh
#   STRESS_LOAD=0 scripts/stress.sh             # no busy loops
#
# STRESS_COUNT     -count for every package but cmd/session-handoff (default 20)
# STRESS_CMD_COUNT -count for cmd/session-handoff (default 2: one pass of it
#                  takes minutes under the race detector on a loaded machine)
# STRESS_LOAD      busy loops to start (default: one per core)
# STRESS_TIMEOUT   go test -timeout for each package (default 50m)
#
# Prints each package's result with its failing tests, then one line
# "N passed, N failed" counting top-level test runs (each -count
# repetition counts); exits non-zero when any test or package failed.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${STRESS_COUNT:-20}"
cmdcount="${STRESS_CMD_COUNT:-2}"
load="${STRESS_LOAD:-$(nproc)}"
timeout="${STRESS_TIMEOUT:-50m}"

run=()
pkgs=()
while [ $# -gt 0 ]; do
  case "$1" in
    -run) [ $# -ge 2 ] || { echo "stress.sh: -run needs a pattern" >&2; exit 2; }
          run=(-run "$2"); shift 2 ;;
    -run=*) run=(-run "${1#-run=}"); shift ;;
    -*) echo "stress.sh: unknown option $1 (only -run PATTERN)" >&2; exit 2 ;;
    *) pkgs+=("$1"); shift ;;
  esac
done
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(./internal/safefile ./store ./bundle ./crypto ./internal/capture ./internal/remote
    ./internal/handover ./internal/memory ./internal/people ./internal/instructions
    ./internal/redact ./cmd/session-handoff)
fi

# Build first, without load: the stress is for the tests, not the compiler.
go test -race -count=1 -run '^$' "${pkgs[@]}" >/dev/null

# The load: busy loops, each killed by its own id when the script ends.
busy=()
stop_load() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$load"); do
  ( while :; do :; done ) &
  busy+=($!)
done
echo "stress: ${#busy[@]} busy loop(s), -count=$count (cmd/session-handoff: $cmdcount), ${run[*]:-all tests}"

passed=0 failed=0 skipped=0 badpkgs=0
log=$(mktemp)
trap 'rm -f "$log"; stop_load' EXIT
start=$SECONDS
for pkg in "${pkgs[@]}"; do
  n=$count
  case "$pkg" in *cmd/session-handoff*) n=$cmdcount ;; esac
  t0=$SECONDS
  status=ok
  go test -race -json -count="$n" -timeout="$timeout" "${run[@]}" "$pkg" >"$log" 2>&1 || status=FAIL
  # Top-level tests only: subtests have a "/" in their name.
  p=$(grep -c '"Action":"pass","Package":"[^"]*","Test":"[^"/]*"' "$log" || true)
  f=$(grep -c '"Action":"fail","Package":"[^"]*","Test":"[^"/]*"' "$log" || true)
  s=$(grep -c '"Action":"skip","Package":"[^"]*","Test":"[^"/]*"' "$log" || true)
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  [ "$status" = ok ] || badpkgs=$((badpkgs + 1))
  printf '%-4s %-34s -count=%-3s %5d passed %3d failed %3d skipped  %4ds\n' "$status" "$pkg" "$n" "$p" "$f" "$s" $((SECONDS - t0))
  if [ "$status" != ok ]; then
    # Which tests failed, how often, and the package's own failure (a
    # build error, a timeout, a race outside any test).
    grep -o '"Action":"fail","Package":"[^"]*","Test":"[^"]*"' "$log" | sed 's/.*"Test":"\([^"]*\)"/    failed: \1/' | sort | uniq -c || true
    grep -o '"Output":"[^"]*\(panic:\|WARNING: DATA RACE\|--- FAIL\|_test\.go:[0-9]\|build failed\|setup failed\)[^"]*"' "$log" | head -30 | sed 's/^"Output":"/    /; s/\\n"$//; s/\\t/  /g' || true
  fi
done
echo "stress: $((SECONDS - start))s under load; $skipped skipped, $badpkgs package(s) failed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$badpkgs" -eq 0 ]
