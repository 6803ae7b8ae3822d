#!/usr/bin/env bash
# bench/bundle.sh: session-handoff bundle export/import against the
# standard pipeline (tar | zstd -3 | age, and back) on the same bytes, in
# one run. See bench/README.md.
#
#   bench/bundle.sh                       # 256 MiB corpus, 5 runs of each
#   BENCH_MB=64 BENCH_RUNS=3 bench/bundle.sh
#
# Environment:
#   BENCH_MB     corpus size in MiB (default 256)
#   BENCH_RUNS   runs of each of the four commands (default 5)
#   BENCH_KEEP   set to 1 to keep the work directory (its path is printed)
#
# It installs nothing: a missing tool stops it with the command to run.
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD

mb=${BENCH_MB:-256}
runs=${BENCH_RUNS:-5}
. bench/lib.sh
positive_int BENCH_MB "$mb"
positive_int BENCH_RUNS "$runs"
require "time age zstd tar" go age zstd tar /usr/bin/time
make_work
mkdir -p "$work/home" "$work/tmp"
export SESSION_HANDOFF_HOME=$work/home

echo "== session-handoff bundle benchmark"
machine
echo "tools:   $(go version | cut -d' ' -f3), age $(age --version 2>&1), zstd $(zstd -V 2>&1 | sed -n 's/.*\(v[0-9][0-9.]*\).*/\1/p'), $(tar --version | head -n1)"

echo "build:   go build ./cmd/session-handoff ./bench/gencorpus"
go build -o "$sh" ./cmd/session-handoff
go build -o "$work/gencorpus" ./bench/gencorpus

# Import stages blobs under TMPDIR: keep that inside the work directory.
# (Set after the builds so that go's own temporary files are unaffected.)
export TMPDIR=$work/tmp

start=$(date +%s%N)
"$work/gencorpus" -mb "$mb" -tar "$work/corpus.tar"
corpus_bytes=$(stat -c %s "$work/corpus.tar")
corpus_sha=$(sha256sum "$work/corpus.tar" | cut -d' ' -f1)
printf 'corpus:  %s MiB of JSONL transcripts and Go-like source, as one tar of %d bytes (made in %.1f s), sha256 %.12s\n' \
  "$mb" "$corpus_bytes" "$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {print (b - a) / 1e9}')" "$corpus_sha"

# --- keys, a record ----------------------------------------------------------
{
  "$sh" keygen --no-passphrase --name bench@local
  "$sh" key show --age-recipient >"$work/recipient.txt"
  "$sh" trust add "$("$sh" key show --signing-key)"
  "$sh" save --no-git --project "$work" --title bench --summary "benchmark record"
} >>"$log" 2>&1 || fail "setting up keys and a record failed"
recipient=$(cat "$work/recipient.txt")
identity=$SESSION_HANDOFF_HOME/config/age_identity.txt
[ -s "$identity" ] || fail "no age identity at $identity"

# --- the four commands ---------------------------------------------------------
# Each is run by /usr/bin/time; the pipelines through bash -c. Between runs,
# outside the measurement, the outputs are removed so that every run does the
# whole work (an import into a store that already holds the bundle would
# answer "already imported" and do nothing).
export BENCH_WORK=$work BENCH_RECIPIENT=$recipient BENCH_IDENTITY=$identity

std_export='tar -cf - -C "$BENCH_WORK" corpus.tar | zstd -3 -q | age -r "$BENCH_RECIPIENT" >"$BENCH_WORK/out.tar.zst.age"'
std_import='age -d -i "$BENCH_IDENTITY" "$BENCH_WORK/out.tar.zst.age" | zstd -d -q | tar -xf - -C "$BENCH_WORK/extract"'

# measure NAME CMD...: runs CMD under /usr/bin/time and appends
# "wall-secs max-rss-kib user-secs sys-secs" to $work/NAME.times.
measure() {
  local name=$1
  shift
  if ! /usr/bin/time -f '%e %M %U %S' -o "$work/time.out" "$@" >>"$log" 2>&1; then
    fail "$name failed"
  fi
  tail -n 1 "$work/time.out" >>"$work/$name.times"
}

prep_import_ours() { rm -rf "$work/import-store" "$work/tmp"; mkdir -p "$work/tmp"; }
prep_import_std() { rm -rf "$work/extract"; mkdir -p "$work/extract"; }

echo "runs:    $runs of each, interleaved (ours, standard, ours, standard, ...)"
for i in $(seq 1 "$runs"); do
  rm -f "$work/out.handoff" "$work/out.tar.zst.age"
  measure ours-export "$sh" export latest --to-file "$work/recipient.txt" --attach "$work/corpus.tar" -o "$work/out.handoff"
  measure std-export bash -c "$std_export"
  prep_import_ours
  measure ours-import "$sh" import --store "$work/import-store" "$work/out.handoff"
  prep_import_std
  measure std-import bash -c "$std_import"
  printf '  run %d: export ours %s s / %s KiB, standard %s s / %s KiB; import ours %s s / %s KiB, standard %s s / %s KiB\n' "$i" \
    $(cut -d' ' -f1,2 "$work/ours-export.times" | tail -n1) $(cut -d' ' -f1,2 "$work/std-export.times" | tail -n1) \
    $(cut -d' ' -f1,2 "$work/ours-import.times" | tail -n1) $(cut -d' ' -f1,2 "$work/std-import.times" | tail -n1)
done

# --- check the round trips once --------------------------------------------------
blob=$(find "$work/import-store" -type f -name "$corpus_sha" | head -n1)
[ -n "$blob" ] && cmp -s "$blob" "$work/corpus.tar" || fail "our import did not store the corpus unchanged"
cmp -s "$work/extract/corpus.tar" "$work/corpus.tar" || fail "the standard pipeline did not restore the corpus unchanged"
age -d -i "$identity" "$work/out.handoff" | zstd -d -q | tar -tf - >"$work/list" || fail "our bundle is not readable by age | zstd | tar"

# --- report ----------------------------------------------------------------------
# median FILE COLUMN; max FILE COLUMN; cpu FILE (user+sys, one per run)
median() { cut -d' ' -f"$2" "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
maxof() { cut -d' ' -f"$2" "$1" | sort -g | tail -n1; }
cpu() { awk '{print $3 + $4}' "$1" >"$1.cpu"; median "$1.cpu" 1; }
mib() { awk -v k="$1" 'BEGIN {printf "%.0f", k/1024}'; }

report() {
  local what=$1 o=$work/ours-$1.times s=$work/std-$1.times
  local ot st om sm oc sc
  ot=$(median "$o" 1) st=$(median "$s" 1) om=$(mib "$(maxof "$o" 2)") sm=$(mib "$(maxof "$s" 2)")
  oc=$(cpu "$o") sc=$(cpu "$s")
  awk -v w="$what" -v ot="$ot" -v st="$st" -v om="$om" -v sm="$sm" -v oc="$oc" -v sc="$sc" 'BEGIN {
    r = (st > 0) ? ot / st : 0
    printf "%s: ours %.2f s (peak %d MiB)  standard %.2f s (peak %d MiB)  ratio %.2f  [goal <= 1.10: %s; peak < 64 MiB: %s]\n",
      w, ot, om, st, sm, r, (r <= 1.10 ? "met" : "MISSED"), (om < 64 ? "met" : "MISSED")
    printf "%*s  cpu (user+sys): ours %.2f s  standard %.2f s (all processes)  ratio %.2f\n", length(w), "", oc, sc, (sc > 0 ? oc / sc : 0)
  }'
}

ours_size=$(stat -c %s "$work/out.handoff")
std_size=$(stat -c %s "$work/out.tar.zst.age")
echo
echo "== results ($mb MiB corpus, median of $runs runs; peak RSS is the highest of the runs)"
report export
report import
awk -v c="$corpus_bytes" -v o="$ours_size" -v s="$std_size" 'BEGIN {
  printf "size:   ours %d bytes (%.2fx smaller than the corpus)  standard %d bytes (%.2fx)  ratio %.3f\n", o, c/o, s, c/s, o/s
}'
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cat <<'EOF'
notes:
  - times are wall clock (%e), memory is maximum resident set size (%M) from /usr/bin/time.
  - for the standard pipelines /usr/bin/time runs bash -c 'a | b | c' and reports the
    largest single process of the pipeline (ru_maxrss of the waited-for children),
    not the sum of its processes.
  - ours fsyncs what it writes (the bundle; on import the staged blob, which then moves into
    the store by rename) and hashes every blob; the standard pipeline does neither.
  - both sides read a warm page cache; other load on the machine skews both alike,
    since the runs are interleaved.
EOF
