#!/usr/bin/env bash
# Runs fuzz targets, each for FUZZTIME (default 5s; CI uses 3s), one after another.
#
#   scripts/fuzz.sh                                  # every target, 5 s each
#   FUZZTIME=3s scripts/fuzz.sh                      # every target, 3 s each (CI)
#   FUZZTIME=10m scripts/fuzz.sh                     # every target, 10 minutes each
#   FUZZTIME=10m scripts/fuzz.sh FuzzRead FuzzArmor  # only the named targets (all packages)
#   FUZZ_PARALLEL=1 ...                              # workers per target (default: GOMAXPROCS)
#   FUZZ_MIN_EXECS=1000 ...                          # at least this many executions per target:
#                                                    # a target short of it after FUZZTIME (a slow
#                                                    # reader on a loaded machine) runs on for the rest
#
# A failure stops the script with go test's output; Go writes the failing
# input under the package's testdata/fuzz/<target>/, where it becomes a
# regression test once committed. Prints one line per target with its
# executions and new corpus entries, then "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-5s}"
parallel=()
[ -n "${FUZZ_PARALLEL:-}" ] && parallel=(-parallel="$FUZZ_PARALLEL")

# wanted TARGET [NAME...]: true when no names were given or TARGET is one of them.
wanted() {
  local target=$1; shift
  [ $# -eq 0 ] && return 0
  for name in "$@"; do [ "$name" = "$target" ] && return 0; done
  return 1
}

passed=0 failed=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    wanted "$target" "$@" || continue
    log=$(mktemp)
    # A short -fuzzminimizetime keeps a worker from spending the whole run
    # minimising one input. Go reports "context deadline exceeded" when the
    # time runs out while a worker is still busy with an input; that is not
    # a finding (no failing input is written, and the run fuzzed for its
    # whole time), so it counts as passed, with a note. A real failure
    # writes testdata/fuzz/... and fails the run.
    note=""
    if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime=2s \
        "${parallel[@]}" "$pkg" >"$log" 2>&1; then
      if grep -q "Failing input written" "$log" || ! grep -q "context deadline exceeded" "$log" \
          || ! grep -q "fuzz: elapsed:" "$log"; then
        echo "FAIL $pkg $target"
        cat "$log"; rm -f "$log"
        failed=$((failed + 1))
        [ -n "${FUZZ_KEEP_GOING:-}" ] && continue
        echo "$passed passed, $failed failed"
        exit 1
      fi
      note=" (time ran out while a worker was busy; no failing input)"
    fi
    # The last progress line: "fuzz: elapsed: 10m0s, execs: N (R/sec), new interesting: K (total: T)".
    last=$(grep -o 'execs: [0-9]* ([0-9]*/sec), new interesting: [0-9]* (total: [0-9]*)' "$log" | tail -1 | sed 's| ([0-9]*/sec)||' || true)
    execs=$(sed -n 's/^execs: \([0-9]*\).*/\1/p' <<<"$last")
    if [ -n "${FUZZ_MIN_EXECS:-}" ] && [ "${execs:-0}" -lt "$FUZZ_MIN_EXECS" ]; then
      # Short of the minimum: the rest as a count of executions, which
      # the load cannot shrink.
      more=$((FUZZ_MIN_EXECS - ${execs:-0}))
      if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="${more}x" -fuzzminimizetime=2s \
          "${parallel[@]}" "$pkg" >"$log" 2>&1; then
        echo "FAIL $pkg $target (the executions after $fuzztime)"
        cat "$log"; rm -f "$log"
        failed=$((failed + 1))
        [ -n "${FUZZ_KEEP_GOING:-}" ] && continue
        echo "$passed passed, $failed failed"
        exit 1
      fi
      note="$note (short of $FUZZ_MIN_EXECS executions in $fuzztime: $more more run)"
    fi
    printf 'ok   %-58s %s%s\n' "$pkg $target" "${last:-no progress line}" "$note"
    rm -f "$log"
    passed=$((passed + 1))
  done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
