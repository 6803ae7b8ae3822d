#!/usr/bin/env bash
# bench/inbox.sh: a team inbox of 50 people at 1,000, 10,000 and 62,500
# bundles, layout 1 (one branch, the program before layout 2) and layout 2
# (one ref per recipient) side by side: receive (first, on a new machine,
# with 20 unread; then with nothing new), inbox and send times, bytes
# fetched, the clone's size, and the remote's size as built and after
# everyone has received. See bench/README.md.
#
#   bench/inbox.sh                                    # 1000 10000 62500, file:// and http://
#   BENCH_SIZES="1000 10000" BENCH_TRANSPORTS=file bench/inbox.sh
#
# Environment:
#   BENCH_SIZES       team history in bundles (default "1000 10000 62500")
#   BENCH_TRANSPORTS  file (a local bare repository) and/or http (git
#                     http-backend on loopback, smart HTTP, protocol v2)
#   BENCH_V1_REV      the commit whose program writes layout 1 (default 09f3ab8)
#   BENCH_RUNS        runs of the repeated commands (default 5)
#   BENCH_KEEP        set to 1 to keep the work directory
#
# The inboxes are written with git fast-import (bench/geninbox): my 20
# unread bundles are real ones, signed by a trusted sender; the others'
# are 2,300 random bytes each, spread over 49 people. "After everyone
# received" empties every recipient ref as a receive does (a commit of
# the empty tree), then runs git gc --prune=now on the remote; layout 1
# is measured after the same gc. "git ms" sums the elapsed times git's
# trace2 reports for the command's git processes (nested ones included).
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
sizes=${BENCH_SIZES:-1000 10000 62500}
transports=${BENCH_TRANSPORTS:-file http}
v1rev=${BENCH_V1_REV:-09f3ab8}
runs=${BENCH_RUNS:-5}
. bench/lib.sh
for n in $sizes; do positive_int BENCH_SIZES "$n"; done
positive_int BENCH_RUNS "$runs"
require "git coreutils" go git du sha256sum EPOCHREALTIME
make_work

echo "== session-handoff inbox benchmark"
machine
echo "tools:   $(go version | cut -d' ' -f3), $(git --version)"
echo "build:   layout 2 from this tree; layout 1 from $v1rev"
go build -o "$sh" ./cmd/session-handoff
go build -o "$work/geninbox" ./bench/geninbox
mkdir "$work/v1src"
git archive "$v1rev" | tar -x -C "$work/v1src"
(cd "$work/v1src" && go build -o "$work/sh-v1" ./cmd/session-handoff) || fail "build of $v1rev"

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
# 'latest' is the project's: every command runs in the project.
mkdir -p "$work/project"
cd "$work/project"
as() { SESSION_HANDOFF_HOME=$1 "${@:2}"; }

# Keys: me, bob (who sends to me, trusted) and a peer I send to.
for who in me bob peer; do as "$work/$who" "$sh" keygen --name "$who@bench" --no-passphrase >/dev/null 2>>"$log" || fail "keygen $who"; done
me_age=$(as "$work/me" "$sh" key show --age-recipient)
peer_age=$(as "$work/peer" "$sh" key show --age-recipient)
bob_key=$(as "$work/bob" "$sh" key show --signing-key)
me_hex=$(printf '%s' "$me_age" | sha256sum | cut -d' ' -f1)
as "$work/me" "$sh" trust add "$bob_key" --principal bob@bench >/dev/null 2>>"$log" || fail "trust add"
as "$work/me" "$sh" people add peer@bench "$peer_age" >/dev/null 2>>"$log" || fail "people add"
as "$work/bob" "$sh" people add receiver@bench "$me_age" >/dev/null 2>>"$log" || fail "people add"

# My 20 unread bundles: real sends from bob, taken out of a scratch inbox.
git init -q --bare "$work/scratch.git"
as "$work/bob" "$sh" remote add scratch "file://$work/scratch.git" >/dev/null
mkdir -p "$work/mine"
for i in $(seq 1 20); do
  as "$work/bob" "$sh" save --no-git --project "$work/project" --title "From bob $i" --summary "$(head -c 1500 /dev/zero | tr '\0' x)" >/dev/null 2>>"$log" || fail save
  as "$work/bob" "$sh" send latest --to receiver@bench >/dev/null 2>>"$log" || fail send
done
git -C "$work/scratch.git" ls-tree "refs/heads/inbox/$me_hex" | while read -r _ _ oid name; do
  git -C "$work/scratch.git" cat-file blob "$oid" >"$work/mine/$name"
done
echo "mine:    $(ls "$work/mine" | wc -l) bundles of $(du -cb "$work/mine"/*.handoff | tail -n1 | cut -f1) bytes in all"

mkdir "$work/repos"
url=""
if [[ " $transports " == *" http "* ]]; then
  "$work/geninbox" -serve "$work/repos" >"$work/url" 2>>"$log" &
  server=$!
  trap 'kill $server 2>/dev/null; remove_work' EXIT
  for _ in $(seq 1 100); do [ -s "$work/url" ] && break; sleep 0.05; done
  url=$(cat "$work/url")
  [ -n "$url" ] || fail "the http server did not start"
fi

ms() { awk '{printf "%.0f", $1 / 1000}'; }
kib() { du -sb "$1" | awk '{printf "%.0f", $1 / 1024}'; }
# gitms FILE: the elapsed times git's trace2 reports, summed, in ms.
gitms() { awk '/ exit elapsed:/ {sub(/.*elapsed:/, ""); s += $1} END {printf "%.0f", s * 1000}' "$1"; }

printf '\n%-7s %-6s %-5s %8s %9s %10s %7s %8s %9s %9s %8s %8s %8s %9s %9s\n' \
  bundles layout via "build s" "remote KB" "receive ms" "cpu ms" "git ms" "fetch KB" "new0 ms" "git ms" "inbox ms" "send ms" "clone KB" "after KB"
for n in $sizes; do
  for layout in 1 2; do
    bin=$sh
    [ "$layout" = 1 ] && bin=$work/sh-v1
    built=$work/built-l$layout-$n.git
    git init -q --bare "$built"
    s=${EPOCHREALTIME/[.,]/}
    "$work/geninbox" -layout "$layout" -bundles "$n" -me "$me_hex" -mine "$work/mine" | git -C "$built" fast-import --quiet 2>>"$log" || fail "fast-import"
    build=$(( (${EPOCHREALTIME/[.,]/} - s) / 1000 ))
    remote_kb=$(kib "$built")
    for via in $transports; do
      # Each transport gets the inbox as built: a receive changes it.
      bare=$work/repos/l$layout-$n-$via.git
      cp -a "$built" "$bare"
      case $via in
        file) u="file://$bare" ;;
        http) u="$url/l$layout-$n-$via.git" ;;
      esac
      home=$work/home-$layout-$n-$via
      cp -a "$work/me" "$home"
      as "$home" "$bin" remote add team "$u" >/dev/null 2>>"$log" || fail "remote add"
      rm -f "$work"/*.times
      TIMEFORMAT='%3U %3S'
      { time GIT_TRACE2="$work/trace" measure "first" as "$home" "$bin" receive; } 2>"$work/cpu"
      cpu1=$(awk '{printf "%.0f", ($1 + $2) * 1000}' "$work/cpu")
      git1=$(gitms "$work/trace"); rm -f "$work/trace"
      imported=$(as "$home" "$bin" list --json 2>/dev/null | grep -c '"title": "From bob' || true)
      [ "$imported" = 20 ] || fail "layout $layout, $n bundles via $via: imported $imported of 20"
      fetched=$(find "$home/data/remotes/team/.git/objects" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f", s / 1024}')
      for _ in $(seq 1 "$runs"); do measure "again" as "$home" "$bin" receive; done
      GIT_TRACE2="$work/trace" as "$home" "$bin" receive >/dev/null 2>>"$log"
      git0=$(gitms "$work/trace"); rm -f "$work/trace"
      # Layout 1's inbox fails past about 49,400 bundles: say so.
      inbox_ms=failed
      if as "$home" "$bin" inbox >/dev/null 2>>"$log"; then
        for _ in $(seq 1 "$runs"); do measure "inbox" as "$home" "$bin" inbox; done
        inbox_ms=$(median_ms "$work/inbox.times")
      fi
      for i in $(seq 1 "$runs"); do
        as "$home" "$bin" save --no-git --project "$work/project" --title "To peer $i" >/dev/null 2>>"$log"
        measure "send" as "$home" "$bin" send latest --to peer@bench
      done
      clone=$(kib "$home/data/remotes/team/.git")
      printf '%-7s %-6s %-5s %8.1f %9s %10s %7s %8s %9s %9s %8s %8s %8s %9s' "$n" "$layout" "$via" "$(echo "$build" | awk '{print $1/1000}')" \
        "$remote_kb" "$(ms <"$work/first.times")" "$cpu1" "$git1" "$fetched" "$(median_ms "$work/again.times")" "$git0" \
        "$inbox_ms" "$(median_ms "$work/send.times")" "$clone"
      if [ "$via" = "${transports##* }" ]; then
        # Everyone has received: every recipient ref emptied, as a
        # receive does; then the host's gc.
        if [ "$layout" = 2 ]; then
          empty=$(GIT_AUTHOR_NAME=session-handoff GIT_AUTHOR_EMAIL=session-handoff@invalid GIT_COMMITTER_NAME=session-handoff GIT_COMMITTER_EMAIL=session-handoff@invalid git -C "$bare" commit-tree -m "session-handoff: 0 bundles" "$(git -C "$bare" mktree </dev/null)")
          git -C "$bare" for-each-ref --format='update %(refname) '"$empty" refs/heads/inbox/ | git -C "$bare" update-ref --stdin
        fi
        git -C "$bare" reflog expire --expire=now --all
        git -C "$bare" gc --quiet --prune=now
        printf ' %9s\n' "$(kib "$bare")"
      else
        printf ' %9s\n' -
      fi
    done
  done
done
echo
echo "receive: the first, on a new machine, 20 unread; cpu ms: its user and system time, git's included (the machine's"
echo "load inflates it less than the wall time); fetch KB: the clone's object files after it; new0: a receive with"
echo "nothing new (median of $runs); git ms: the git time trace2 reports for one such run (nested processes included)"
echo "remote KB: as built; after KB: after everyone received and gc --prune=now; load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
