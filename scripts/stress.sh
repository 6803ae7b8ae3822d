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
#   STRESS_LOAD=0 STRESS_SKIP= scripts/stress.sh
#
# STRESS_COUNT     -count for the packages other than cmd/session-handoff (default 20)
# STRESS_CMD_COUNT -count for cmd/session-handoff (default 2: one pass of it
#                  takes several minutes under the race detector on a loaded
#                  machine); 0 leaves it out
# STRESS_LOAD      busy loops to start (default: one per core)
# STRESS_SKIP      go test -skip for the packages other than cmd (default: the
#                  three CPU-bound property tests of internal/capture, which
#                  compare pure functions on generated input, start nothing
#                  and read no clock, and take most of its time); empty for none
# STRESS_TIMEOUT   go test -timeout (default 60m)
# STRESS_LOGDIR    keep go test's JSON events there (default: a temporary
#                  directory, removed at the end)
#
# The packages other than cmd run with -short (store's crash test does 5
# rounds per repetition instead of 30: 100 at -count=20) in one go test, two
# packages at a time; cmd/session-handoff runs without -short (its
# multi-process tests skip under it), at the same time, in a go test of its
# own. Prints each package's result with its failing tests, then one line
# "N passed, N failed" counting top-level test runs (each -count repetition
# counts); exits non-zero when any test or package failed.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${STRESS_COUNT:-20}"
cmdcount="${STRESS_CMD_COUNT:-2}"
load="${STRESS_LOAD:-$(nproc)}"
skip="${STRESS_SKIP-^(TestShapesChangeNothing|TestExitLineMatchesRegexp|TestParseObjectMatchesStd)$}"
timeout="${STRESS_TIMEOUT:-60m}"
cmdpkg=./cmd/session-handoff

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
  pkgs=(./internal/capture ./internal/remote ./internal/handover ./internal/safefile ./store ./bundle
    ./internal/memory ./internal/people ./internal/instructions)
  [ "$cmdcount" -gt 0 ] && pkgs+=("$cmdpkg")
fi
others=()
withcmd=false
for p in "${pkgs[@]}"; do
  case "$p" in
    ./cmd/session-handoff|cmd/session-handoff|./cmd/session-handoff/) withcmd=true ;;
    *) others+=("$p") ;;
  esac
done
skipflag=()
[ -n "$skip" ] && skipflag=(-skip "$skip")

# Build first, without load: the stress is for the tests, not the compiler.
go test -race -count=1 -run '^$' "${pkgs[@]}" >/dev/null

# STRESS_LOGDIR keeps go test's JSON events (others.json, cmd.json), to
# read while the run goes on or after it.
work="${STRESS_LOGDIR:-}"
keep=true
if [ -z "$work" ]; then work=$(mktemp -d); keep=false; fi
mkdir -p "$work"
busy=()
bg=""
cleanup() {
  [ -n "$bg" ] && kill "$bg" 2>/dev/null
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null || true; done
  $keep || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# The load: busy loops, each ended by its own id when the script ends.
for _ in $(seq 1 "$load"); do
  ( while :; do :; done ) &
  busy+=($!)
done
echo "stress: ${#busy[@]} busy loop(s); -count=$count -short${skip:+ -skip '$skip'} for ${others[*]:-nothing}; -count=$cmdcount for $($withcmd && echo "$cmdpkg" || echo nothing); ${run[*]:-all tests}"

start=$SECONDS
rc_others=0 rc_cmd=0
if $withcmd; then
  go test -race -json -count="$cmdcount" -timeout="$timeout" "${run[@]}" "$cmdpkg" >"$work/cmd.json" 2>&1 &
  bg=$!
fi
if [ ${#others[@]} -gt 0 ]; then
  go test -race -json -short -p 2 -count="$count" -timeout="$timeout" "${skipflag[@]}" "${run[@]}" "${others[@]}" >"$work/others.json" 2>&1 || rc_others=$?
fi
if [ -n "$bg" ]; then
  wait "$bg" || rc_cmd=$?
  bg=""
fi
cat "$work"/*.json >"$work/all.log"

passed=0 failed=0 skipped=0 badpkgs=0
for pkg in $(go list "${pkgs[@]}"); do
  n=$count
  [ "$pkg" = "$(go list "$cmdpkg")" ] && n=$cmdcount
  q=$(printf '%s' "$pkg" | sed 's/[.]/\\./g')
  top="\"Package\":\"$q\",\"Test\":\"[^\"/]*\""
  p=$(grep -c "\"Action\":\"pass\",$top" "$work/all.log" || true)
  f=$(grep -c "\"Action\":\"fail\",$top" "$work/all.log" || true)
  s=$(grep -c "\"Action\":\"skip\",$top" "$work/all.log" || true)
  status=ok
  grep -q "\"Action\":\"pass\",\"Package\":\"$q\",\"Elapsed\"" "$work/all.log" || status=FAIL
  elapsed=$(grep -o "\"Action\":\"\(pass\|fail\)\",\"Package\":\"$q\",\"Elapsed\":[0-9.]*" "$work/all.log" | tail -1 | sed 's/.*://' || true)
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  [ "$status" = ok ] || badpkgs=$((badpkgs + 1))
  printf '%-4s %-26s -count=%-3s %5d passed %3d failed %4d skipped  %5ss\n' "$status" "${pkg#"$(go list -m)"/}" "$n" "$p" "$f" "$s" "${elapsed:-?}"
  if [ "$status" != ok ]; then
    # Which tests failed and how often, and what they said (a build
    # error, a timeout, a race outside any test shows here too).
    grep -o "\"Action\":\"fail\",\"Package\":\"$q\",\"Test\":\"[^\"]*\"" "$work/all.log" | sed 's/.*"Test":"\([^"]*\)"/    failed: \1/' | sort | uniq -c || true
    grep "\"Package\":\"$q\"" "$work/all.log" | grep -o '"Output":"[^"]*\(panic:\|WARNING: DATA RACE\|--- FAIL\|_test\.go:[0-9]\|build failed\|setup failed\)[^"]*"' | head -30 | sed 's/^"Output":"/    /; s/\\n"$//; s/\\t/  /g' || true
  fi
done
grep -v '^{' "$work/all.log" | head -20 || true # go test's own errors (a package that does not build)
echo "stress: $((SECONDS - start))s under load; $skipped skipped, $badpkgs package(s) failed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$badpkgs" -eq 0 ] && [ "$rc_others" -eq 0 ] && [ "$rc_cmd" -eq 0 ]
