#!/usr/bin/env bash
# bench/synclatency.sh: does a handoff sent from one machine reach the very
# next session start on the other? Two homes on this machine (a laptop and
# a desktop), paired, syncing through a file:// remote. Each round, the
# laptop saves a handoff and pushes it (as its session end does); the
# desktop's session-start hook then runs, as an agent starting would, and
# the round counts when its briefing carries that handoff. Prints the count
# and the hook's median time, with the session start's wait for the pull
# (hooks.Options.PullWait) and without it (SESSION_HANDOFF_NO_PULL_WAIT=1),
# interleaved. See bench/README.md, "sync latency".
#
#   bench/synclatency.sh                 # 9 rounds
#   BENCH_RUNS=21 bench/synclatency.sh
set -euo pipefail

cd "$(dirname "$0")/.."
runs=${BENCH_RUNS:-9}
. bench/lib.sh
positive_int BENCH_RUNS "$runs"
require "git jq" go git jq EPOCHREALTIME
make_work

echo "== session-handoff sync latency"
machine
go build -o "$sh" ./cmd/session-handoff

export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
laptop() { SESSION_HANDOFF_HOME=$work/laptop HOME=$work/laptop-home "$sh" "$@"; }
desktop() { SESSION_HANDOFF_HOME=$work/desktop HOME=$work/desktop-home "$sh" "$@"; }
mkdir -p "$work/laptop-home" "$work/desktop-home"
git init -q --bare "$work/remote.git"
git init -q -b main "$work/app"
git -C "$work/app" commit -q --allow-empty -m first
git clone -q "$work/app" "$work/app-desktop"

laptop keygen --no-passphrase >>"$log" 2>&1 || fail "keygen"
desktop keygen --no-passphrase >>"$log" 2>&1 || fail "keygen"
text=$(laptop devices add --name laptop 2>>"$log" | grep -o "session-handoff-pair:[^ ']*" | head -n1)
back=$(desktop devices add "$text" --name desktop 2>>"$log" | grep -o "session-handoff-pair:[^ ']*" | head -n1)
laptop devices add "$back" >>"$log" 2>&1 || fail "pairing"
laptop remote add mine "file://$work/remote.git" >>"$log" || fail "remote add"
desktop remote add mine "file://$work/remote.git" >>"$log" || fail "remote add"
(cd "$work/app" && laptop sync on --global >>"$log") || fail "sync on"
(cd "$work/app-desktop" && desktop sync on --global >>"$log") || fail "sync on"

# round MODE N: one handoff from the laptop, one session start on the
# desktop; appends the hook's time to $work/MODE.times and a hit to
# $work/MODE.hits when the briefing carries the handoff.
round() {
  local mode=$1 n=$2 id s e out
  (cd "$work/app" && laptop save --title "round $mode $n" --summary "sent just now" >>"$log" 2>&1) || fail "save"
  id=$(cd "$work/app" && laptop list --json | jq -r '.[0].id')
  (cd "$work/app" && laptop sync push "$id" >>"$log" 2>&1) || fail "sync push"
  local wait=
  [ "$mode" = beside ] && wait=1
  s=${EPOCHREALTIME/[.,]/}
  out=$(cd "$work/app-desktop" && printf '{"cwd":"%s","source":"startup"}' "$work/app-desktop" |
    SESSION_HANDOFF_NO_PULL_WAIT=$wait desktop hook claude-code session-start 2>>"$log")
  e=${EPOCHREALTIME/[.,]/}
  echo $((e - s)) >>"$work/$mode.times"
  case $out in *"round $mode $n"*) echo 1 >>"$work/$mode.hits" ;; esac
  # Let the pull the hook left behind end before the next round.
  for _ in $(seq 50); do
    [ -e "$work/desktop/data/sync-pull.lock" ] && ! (flock -n "$work/desktop/data/sync-pull.lock" true) 2>/dev/null || break
    sleep 0.1
  done
}

for n in $(seq "$runs"); do
  round waited "$n"
  round beside "$n"
done
echo
echo "| session start | briefed with the handoff sent just before | hook median ms |"
echo "|---|---|---|"
for mode in waited beside; do
  hits=$( [ -f "$work/$mode.hits" ] && wc -l <"$work/$mode.hits" || echo 0)
  label="waits for its pull (150 ms at most)"
  [ "$mode" = beside ] && label="pull beside the briefing (no wait)"
  echo "| $label | $((hits)) of $runs | $(median_ms "$work/$mode.times") |"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
