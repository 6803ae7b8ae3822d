#!/usr/bin/env bash
# Drives `session-handoff select` in a real terminal (tmux): types a filter,
# moves with the arrow keys, presses enter, and checks both what the picker
# drew and the id it printed. Also checks that without a terminal it refuses.
# Prints "N passed, N failed" and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "tmux is not installed (apt-get install tmux)"; exit 1; }

work=$(mktemp -d)
sock="$work/tmux.sock"
cleanup() { tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

go build -o "$work/session-handoff" ./cmd/session-handoff
export SESSION_HANDOFF_HOME="$work/home"
bin="$work/session-handoff"
mkdir "$work/p"
for t in "Auth refresh tokens" "Landing page copy" "Rate limiter" "Auth session cleanup"; do
  "$bin" save --no-git --project "$work/p" --title "$t" >/dev/null
done
want=$("$bin" list --query "refresh" --json | sed -n 's/.*"id": "\([0-9A-Z]*\)".*/\1/p')

passed=0 failed=0
check() { if eval "$2"; then passed=$((passed+1)); else failed=$((failed+1)); echo "FAIL: $1"; fi; }

# Every wait is for a condition, polled every 0.05 s and bounded by a
# number of polls (600: 30 s on an idle machine, more under load, when
# each poll takes longer), so a loaded machine is slower, never red.
polls=600
# wait_re REGEX: poll the pane until a line matches.
wait_re() {
  for _ in $(seq 1 $polls); do
    tmux -S "$sock" capture-pane -p -t "$target" > "$work/pane" 2>/dev/null || true
    grep -qE -- "$1" "$work/pane" && return 0
    sleep 0.05
  done
  return 1
}
wait_for() { wait_re "$(printf '%s' "$1" | sed 's/[][\\.*^$]/\\&/g')"; }
# wait_done: poll until the picker has exited and its status is written.
wait_done() {
  for _ in $(seq 1 $polls); do
    [ -s "$work/done" ] && return 0
    sleep 0.05
  done
  return 1
}
# Each picker runs in a session of its own, whose pane outlives it until
# cleanup kills the server: a session that ended (after a fixed lingering
# time, on a loaded machine) or was killed could take the server down
# with it while the next new-session connects. The sleep only bounds a
# leak.
target=demo

tmux -S "$sock" new-session -d -s demo -x 120 -y 30 \
  "SESSION_HANDOFF_HOME=$SESSION_HANDOFF_HOME $bin select --print-id > $work/out; echo exit=\$? > $work/done; sleep 600"
check "picker shows all four handoffs" 'wait_for "4 of 4"'
tmux -S "$sock" send-keys -t "$target" "auth"
check "typing filters to two" 'wait_for "2 of 4"'
check "filtered list hides others" '! grep -q "Landing page copy" "$work/pane"'
# Newest first: "Auth session cleanup" is first; move down to "Auth refresh tokens".
tmux -S "$sock" send-keys -t "$target" Down
check "down moves the cursor" 'wait_re "^> .*Auth refresh tokens"'
tmux -S "$sock" send-keys -t "$target" Enter
wait_done || true
check "picker exits 0" 'grep -q "exit=0" "$work/done"'
check "enter prints the chosen id" '[ "$(cat "$work/out")" = "$want" ]'

# Escape cancels with a non-zero exit and prints no id.
rm -f "$work/done" "$work/out"
target=demo2
tmux -S "$sock" new-session -d -s demo2 -x 120 -y 30 \
  "SESSION_HANDOFF_HOME=$SESSION_HANDOFF_HOME $bin select --print-id > $work/out 2>$work/err; echo exit=\$? > $work/done; sleep 600"
check "picker shows all four again" 'wait_for "4 of 4"'
tmux -S "$sock" send-keys -t "$target" Escape
wait_done || true
check "escape exits 1" 'grep -q "exit=1" "$work/done"'
check "escape prints no id" '[ ! -s "$work/out" ]'
check "escape says cancelled" 'grep -q "select: cancelled" "$work/err"'

# Without a terminal and with no number on standard input, select lists
# the choices, exits 1 and says what to do (as v0.7.5's select did, it
# reads a number from a pipe; see the select story for that).
if "$bin" select </dev/null >"$work/out" 2>"$work/err"; then rc=0; else rc=$?; fi
check "non-terminal exits 1" '[ "$rc" = 1 ]'
check "non-terminal hints at a number, --print-id and list" 'grep -q "^hint: pipe one in .*--print-id.*session-handoff list" "$work/err"'

echo "select: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
