#!/usr/bin/env bash
# bench/search.sh: search over a generated archive of agent sessions: the
# full index (wall time, peak RSS, index size against the archive), the
# incremental update after one new 10 MiB session, one-word and phrase
# queries as whole processes (median of BENCH_RUNS, --json), with and
# without the catch-up each search does first, beside `rg -l WORD` over the
# same archive, in one run. See docs/SEARCH.md.
#
#   bench/search.sh                               # 2,000 sessions of 256 KiB: 500 MiB
#   BENCH_FULL=1 bench/search.sh                  # the issue's campaign: 20,000 sessions, 5 GiB
#   BENCH_SESSIONS=1500 BENCH_KB=128 bench/search.sh
#
# The archive holds the ten agents' sessions in turn (bench/gensessions).
#
# Environment:
#   BENCH_FULL      set to 1 for the 5 GiB campaign (20,000 sessions; ten
#                   minutes or more of both CPUs, 6 GiB of disk): never in CI
#   BENCH_SESSIONS  sessions in the archive (default 2000, 20000 with BENCH_FULL=1)
#   BENCH_KB        size of each session in KiB (default 256)
#   BENCH_RUNS      runs of each query (default 21)
#   BENCH_KEEP      set to 1 to keep the work directory (its path is printed)
#
# It installs nothing: a missing tool stops it with the command to run.
set -euo pipefail

cd "$(dirname "$0")/.."

full_sessions=2000
[ "${BENCH_FULL:-}" = 1 ] && full_sessions=20000
sessions=${BENCH_SESSIONS:-$full_sessions}
kb=${BENCH_KB:-256}
runs=${BENCH_RUNS:-21}
. bench/lib.sh
positive_int BENCH_SESSIONS "$sessions"
positive_int BENCH_KB "$kb"
positive_int BENCH_RUNS "$runs"
require "ripgrep time coreutils sqlite3" go rg du sqlite3 /usr/bin/time EPOCHREALTIME
make_work

echo "== session-handoff search benchmark"
machine
echo "tools:   $(go version | cut -d' ' -f3), $(rg --version | head -n1)"
go build -o "$sh" ./cmd/session-handoff
go build -o "$work/gensessions" ./bench/gensessions
go test -c -o "$work/search.test" ./internal/search
# The archive is the home directory of the agents: built after go build,
# which keeps its module cache under the real one.
export HOME=$work/home SESSION_HANDOFF_HOME=$work/sh
unset CLAUDE_CONFIG_DIR CODEX_HOME GEMINI_CLI_HOME XDG_DATA_HOME XDG_CONFIG_HOME CLINE_DIR PI_CODING_AGENT_DIR QWEN_HOME QWEN_RUNTIME_DIR COPILOT_HOME XDG_STATE_HOME
mkdir -p "$HOME"

s=${EPOCHREALTIME/[.,]/}
"$work/gensessions" -n "$sessions" -kb "$kb" -home "$HOME"
e=${EPOCHREALTIME/[.,]/}
archive=$(du -sb "$HOME" | cut -f1)
echo "archive: $sessions sessions (the ten agents in turn), $((archive >> 20)) MiB, generated in $(((e - s) / 1000000)) s"

# The full index, in a fresh process.
/usr/bin/time -f '%e %M' -o "$work/full.time" "$sh" search --reindex 2>>"$log" || fail "search --reindex failed"
read -r full_s full_kb <"$work/full.time"
index=$(du -sb "$SESSION_HANDOFF_HOME/data/search-index" | cut -f1)
echo
echo "full index:         ${full_s} s, peak RSS $((full_kb >> 10)) MiB, index $((index >> 20)) MiB = $(awk -v i="$index" -v a="$archive" 'BEGIN {printf "%.1f", 100 * i / a}')% of the archive"
echo "                    goal: <= 60 s, <= 300 MiB, <= 5% (issue 46)"

# One new 10 MiB session.
"$work/gensessions" -n 1 -kb 10240 -from "$sessions" -home "$HOME"
/usr/bin/time -f '%e %M' -o "$work/inc.time" "$sh" search --update 2>>"$log" || fail "search --update failed"
read -r inc_s inc_kb <"$work/inc.time"
echo "one new 10 MiB session: ${inc_s} s, peak RSS $((inc_kb >> 10)) MiB (goal: <= 0.5 s)"

# A snapshot taken within 2 s of a change is not kept (docs/SEARCH.md):
# the searches in that window list the sessions again. The full catch-up
# with nothing changed (what a search pays then, and what the hooks run)
# is measured by itself; the queries start once the window has passed.
sleep 2
for i in $(seq "$runs"); do
  measure update-nothing "$sh" search --update
done
word=refresh
phrase='"token rotation"'
for i in $(seq "$runs"); do
  measure word "$sh" search "$word" --json
  measure word-noupdate "$sh" search "$word" --json --no-update
  measure phrase "$sh" search "$phrase" --json
  measure phrase-noupdate "$sh" search "$phrase" --json --no-update
  measure rg-l rg -l --hidden "$word" "$HOME"
done
echo
echo "median of $runs, whole process, --json:"
echo "  search $word                   $(median_ms "$work/word.times") ms   (goal: <= 20 ms)"
echo "  search $word --no-update       $(median_ms "$work/word-noupdate.times") ms"
echo "  search $phrase          $(median_ms "$work/phrase.times") ms   (goal: <= 50 ms)"
echo "  search $phrase --no-update $(median_ms "$work/phrase-noupdate.times") ms"
echo "  rg -l --hidden $word (the floor a user reaches for) $(median_ms "$work/rg-l.times") ms"
echo "  search --update, nothing changed (the full catch-up) $(median_ms "$work/update-nothing.times") ms"
# The same queries in process, over the index just built (BenchmarkSearch
# in internal/search), median ns/op of 5 counts.
SEARCH_BENCH_INDEX=$SESSION_HANDOFF_HOME/data/search-index "$work/search.test" -test.run '^$' -test.bench Search -test.count 5 >"$work/inproc.txt" 2>>"$log" ||
  fail "BenchmarkSearch failed (see $log)"
echo
echo "in process (BenchmarkSearch over the same index), median of 5:"
for q in refresh token_rotation deadlock; do
  awk -v q="$q" '$1 ~ "^BenchmarkSearch/" q "-" {print $3}' "$work/inproc.txt" | sort -n | awk -v q="$q" '{a[NR] = $1} END {printf "  %-16s %.2f ms\n", q, a[int((NR + 1) / 2)] / 1e6}'
done
echo "  goal: <= 5 ms"
echo
echo "start-up of a command that does not search: internal/search has no package init:"
GODEBUG=inittrace=1 "$sh" version 2>&1 >/dev/null | grep -c 'internal/search' | sed 's/^/  inits of internal\/search: /' || true
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
