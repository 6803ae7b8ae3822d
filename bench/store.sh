#!/usr/bin/env bash
# bench/store.sh: store save and list at 100, 10,000 and 100,000 records,
# each in a fresh process, beside the standard way to do the same over a
# directory of JSON files with coreutils and jq, in one run. See
# bench/README.md.
#
#   bench/store.sh                          # 100, 10,000 and 100,000 records, 11 runs each
#   BENCH_SIZES="1000 50000" BENCH_RUNS=5 bench/store.sh
#   BENCH_GO=1 bench/store.sh               # also the in-process Go benchmarks (about 90 s)
#
# Environment:
#   BENCH_SIZES  store sizes, in records, separated by spaces (default "100 10000 100000")
#   BENCH_RUNS   runs of each command at each size (default 11)
#   BENCH_GO     set to 1 to also run go test -bench 'BenchmarkSave|BenchmarkList' ./store/
#   BENCH_KEEP   set to 1 to keep the work directory (its path is printed)
#
# The standard side, over DIR, a copy of the store's record files (same
# bytes, same modification times):
#   save: printf '%s\n' "$json" > DIR/.tmp-NAME; sync DIR/.tmp-NAME; mv DIR/.tmp-NAME DIR/NAME.json; sync DIR
#   list: cd DIR && ls -t | head -n 20 | xargs -d '\n' jq -r .title
#
# It installs nothing: a missing tool stops it with the command to run.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD

sizes=${BENCH_SIZES:-100 10000 100000}
runs=${BENCH_RUNS:-11}
. bench/lib.sh
for n in $sizes; do positive_int BENCH_SIZES "$n"; done
[ -n "${sizes// /}" ] || { echo "bench: BENCH_SIZES is empty" >&2; exit 2; }
positive_int BENCH_RUNS "$runs"
require "jq coreutils findutils git" go git jq ls sync mv head xargs /usr/bin/true EPOCHREALTIME
make_work

echo "== session-handoff store benchmark"
machine
echo "tools:   $(go version | cut -d' ' -f3), $(ls --version | head -n1), $(jq --version)"
echo "build:   go build ./cmd/session-handoff ./bench/genstore"
go build -o "$sh" ./cmd/session-handoff
go build -o "$work/genstore" ./bench/genstore


# --- the standard side ----------------------------------------------------------
# std_save NAME: durably add one JSON file (the payload) to $std, the way a
# careful shell script does: write a temporary file in the directory, fsync
# it (coreutils sync FILE), rename it into place, fsync the directory so the
# rename is durable. The write is the shell's own (printf is a builtin).
std_save() {
  local tmp=$std/.tmp-$1
  printf '%s\n' "$payload" >"$tmp" && sync "$tmp" && mv "$tmp" "$std/$1.json" && sync "$std"
}
# std_list: the titles of the 20 newest files, newest first. (Without
# pipefail: ls dies of SIGPIPE when head has its 20 lines, as it should.)
std_list() { (set +o pipefail; cd "$std" && ls -t | head -n 20 | xargs -d '\n' jq -r .title); }

ours_save() { "$sh" save --no-git --title "$title" --summary "$summary" --next "Run the race tests" --next "Update the docs"; }
ours_list() { "$sh" list; }

title="Benchmark save"
summary="Where things stood after the benchmark session: the store is full, the index is current, and the next save must cost the same as the first."

echo "runs:    $runs of each command at each size, interleaved (ours save, standard save, ours list, standard list, then the start-up of each, ...)"
for n in $sizes; do
  d=$work/n$n
  mkdir -p "$d"
  s=${EPOCHREALTIME/[.,]/}
  "$work/genstore" "$d" "$n" >>"$log" 2>&1 || fail "genstore $n failed"
  export SESSION_HANDOFF_HOME=$d/home
  std=$d/std
  # The standard directory: the store's record files, same bytes, same
  # modification times (genstore sets them to each record's creation time).
  cp -a "$d/home/data/records" "$std"
  # Flush the bulk writes now, or the first fsyncs measured would pay for them.
  sync
  awk -v n="$n" -v s="$s" -v e="${EPOCHREALTIME/[.,]/}" 'BEGIN {printf "store:   %d records made and copied in %.1f s\n", n, (e - s) / 1e6}'
  cd "$d/app"

  # One save of ours, untimed: its record file is the standard side's payload,
  # so both sides write the same bytes. Then one standard save, and a check
  # that both lists show the same 20 titles.
  saved=$(ours_save 2>>"$log") || fail "save failed"
  id=$(awk '$1 == "saved" {print $2}' <<<"$saved")
  payload=$(cat "$d/home/data/records/$id.json") || fail "no record file for '$saved'"
  std_save warmup
  ours_titles=$("$sh" list --json | jq -r '.[].title')
  [ "$ours_titles" = "$(std_list)" ] || fail "at $n records the two lists differ:
ours:
$ours_titles
standard:
$(std_list)"
  [ "$(wc -l <<<"$ours_titles")" -eq $((n + 1 < 20 ? n + 1 : 20)) ] || fail "at $n records, list shows $(wc -l <<<"$ours_titles") handoffs"

  for i in $(seq 1 "$runs"); do
    measure "ours-save-$n" ours_save
    measure "std-save-$n" std_save "run-$i"
    measure "ours-list-$n" ours_list
    measure "std-list-$n" std_list
    # The floor under every fresh process of each side.
    measure ours-start "$sh" --version
    measure std-start /usr/bin/true
  done
  cd "$repo"
  # Each size's store is gone before the next is made: 100,000 records take
  # about 400 MiB of disk twice over.
  rm -rf "$d"
done

# --- report ----------------------------------------------------------------------
echo
echo "== results (median of $runs runs, wall time of a fresh process; ratio = ours / standard)"
printf '| %9s | %-4s | %9s | %12s | %5s |\n' records op "ours ms" "standard ms" ratio
printf '|%s|%s|%s|%s|%s|\n' ----------: :----- ----------: -------------: ------:
for n in $sizes; do
  for op in save list; do
    o=$(median_ms "$work/ours-$op-$n.times")
    t=$(median_ms "$work/std-$op-$n.times")
    printf '| %9s | %-4s | %9s | %12s | %5s |\n' "$n" "$op" "$o" "$t" "$(awk -v a="$o" -v b="$t" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')"
  done
done
echo "start-up (median of all rounds): session-handoff --version $(median_ms "$work/ours-start.times") ms, /usr/bin/true $(median_ms "$work/std-start.times") ms"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cat <<'EOF'
commands:
  ours save:     session-handoff save --no-git --title T --summary S --next A --next B
                 (record: temp file, fsync, rename, directory fsync; pending marker; index append under a lock)
  standard save: printf '%s\n' "$json" > DIR/.tmp-X; sync DIR/.tmp-X; mv DIR/.tmp-X DIR/X.json; sync DIR
  ours list:     session-handoff list            (the 20 newest, from the index)
  standard list: cd DIR && ls -t | head -n 20 | xargs -d '\n' jq -r .title
notes:
  - the standard commands run from this script's shell: their processes are fresh, the shell is not.
  - DIR holds the same record files as the store (same bytes and modification times); the standard
    save writes the bytes of one of our records.
EOF

if [ "${BENCH_GO:-}" = 1 ]; then
  echo
  echo "== in process: go test -run '^\$' -bench 'BenchmarkSave|BenchmarkList' ./store/"
  go test -run '^$' -bench 'BenchmarkSave|BenchmarkList' ./store/ | grep '^Benchmark'
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
else
  echo "in-process figures (go test -bench 'BenchmarkSave|BenchmarkList' ./store/, about 90 s): BENCH_GO=1"
fi
