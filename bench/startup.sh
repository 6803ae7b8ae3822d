#!/usr/bin/env bash
# CLI start-up and the store's everyday reads, in fresh processes, beside the
# standard tools, in one run (issue 19's table):
#
#   --help                       beside a hello-world Go binary built the same way
#   render latest                beside git status in the same repository
#   hook claude-code session-start
#   the same hook with sync on (it also starts the background 'sync pull')
#   the same hook in a project with no handoff (the whole index is searched)
#   list --latest --json
#   list                         (the 20 newest)
#   list --query WORD            (a word no handoff holds: every entry is read)
#   save --no-git
#
# at 100, 10,000 and 100,000 handoffs: the median wall time of BENCH_RUNS
# interleaved runs, its ratio to git status, and the peak RSS of one run.
#
#   bench/startup.sh                              # all three sizes, 21 runs
#   BENCH_SIZES=10000 BENCH_RUNS=11 bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
runs="${BENCH_RUNS:-21}"
positive_int BENCH_RUNS "$runs"
sizes="${BENCH_SIZES:-100 10000 100000}"
for n in $sizes; do positive_int BENCH_SIZES "$n"; done
require "git time" git /usr/bin/time EPOCHREALTIME
make_work

# Both binaries as a release builds them: static, trimmed, stripped.
build() { CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$@"; }
build "$sh" ./cmd/session-handoff
mkdir -p "$work/hello"
cat >"$work/hello/main.go" <<'EOF'
package main

import "fmt"

func main() { fmt.Println("hello") }
EOF
(cd "$work/hello" && printf 'module hello\n\ngo 1.26\n' >go.mod && build "$work/hello-world" .)

machine
echo "runs: $runs per command, interleaved; times are medians in ms"

# input_of NAME: the standard input of a row (the hook input; for
# hooknew, a session in a project with no handoff).
input_of() { if [ "$1" = hooknew ]; then echo "$work/hook-new.json"; else echo "$work/hook.json"; fi; }

# peak_mib NAME CMD...: the peak RSS of one run, in MiB.
peak_mib() {
  local in
  in=$(input_of "$1")
  shift
  /usr/bin/time -f '%M' -o "$work/rss" "$@" <"$in" >/dev/null 2>>"$log" || fail "failed: $*"
  awk '{printf "%.1f", $1 / 1024}' "$work/rss"
}

for n in $sizes; do
  dir=$work/store-$n
  go run ./bench/genstore "$dir" "$n" >/dev/null
  export SESSION_HANDOFF_HOME="$dir/home"
  cd "$dir/app"
  printf '{"cwd": "%s", "hook_event_name": "SessionStart", "source": "startup", "session_id": "bench"}' "$dir/app" >"$work/hook.json"
  git init -q "$dir/newapp"
  printf '{"cwd": "%s", "hook_event_name": "SessionStart", "source": "startup", "session_id": "bench"}' "$dir/newapp" >"$work/hook-new.json"
  # Sync on, in a configuration directory of its own (--keys): keys, a
  # remote, one paired device; the hook starts 'sync pull' and returns.
  synckeys=$work/synckeys-$n
  git init -q --bare "$work/inbox-$n.git"
  {
    "$sh" --keys "$synckeys" keygen --no-passphrase --name bench
    "$sh" --keys "$work/peer-$n" keygen --no-passphrase --name peer
    "$sh" --keys "$synckeys" devices add "$("$sh" --keys "$work/peer-$n" devices add --name peer --text)"
    "$sh" --keys "$synckeys" remote add bench "file://$work/inbox-$n.git"
    "$sh" --keys "$synckeys" sync on --global
  } >/dev/null 2>>"$log"
  rm -f "$work"/*.times
  names=(hello help git render hook hooksync hooknew latest list query save)
  declare -A label=(
    [hello]="hello world (same build)" [help]="session-handoff --help"
    [git]="git status" [render]="render latest" [hook]="hook claude-code session-start" [hooksync]="the hook, sync on" [hooknew]="hook, project without handoffs"
    [latest]="list --latest --json" [list]="list (20 newest)" [query]="list --query (no match)"
    [save]="save --no-git"
  )
  cmd_of() {
    case $1 in
      hello) echo "$work/hello-world" ;;
      help) echo "$sh --help" ;;
      git) echo "git status" ;;
      render) echo "$sh render latest" ;;
      hook | hooknew) echo "$sh hook claude-code session-start" ;;
      hooksync) echo "$sh --keys $synckeys hook claude-code session-start" ;;
      latest) echo "$sh list --latest --json" ;;
      list) echo "$sh list" ;;
      query) echo "$sh list --query no-such-words" ;;
      save) echo "$sh save --no-git --quiet --title bench" ;;
    esac
  }
  for _ in $(seq "$runs"); do
    for name in "${names[@]}"; do
      # shellcheck disable=SC2046
      measure "$name" $(cmd_of "$name") <"$(input_of "$name")"
      # The hook returns once it has started 'sync pull'; the next rows
      # are measured after that pull ends, not beside it (on 2 cores it
      # would inflate them, and the next hook's own time).
      if [ "$name" = hooksync ]; then
        while pgrep -f "sync pull --quiet --project $dir/app" >/dev/null; do sleep 0.01; done
      fi
    done
  done
  g=$(median_ms "$work/git.times")
  h=$(median_ms "$work/hello.times")
  echo
  echo "$n handoffs (load now $(cut -d' ' -f1 /proc/loadavg))"
  printf '| %-32s | %8s | %10s | %9s |\n' command ms "ratio" "peak MiB"
  printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..34})" "----------" "------------" "-----------"
  for name in "${names[@]}"; do
    m=$(median_ms "$work/$name.times")
    case $name in
      hello) ratio="-" ;;
      help) ratio=$(awk -v a="$m" -v b="$h" 'BEGIN{printf "+%.2f ms", a-b}') ;;
      *) ratio=$(awk -v a="$m" -v b="$g" 'BEGIN{printf "%.2fx git", a/b}') ;;
    esac
    # shellcheck disable=SC2046
    printf '| %-32s | %8s | %10s | %9s |\n' "${label[$name]}" "$m" "$ratio" "$(peak_mib "$name" $(cmd_of "$name"))"
  done
  cd - >/dev/null
done
