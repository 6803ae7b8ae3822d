#!/usr/bin/env bash
# bench/bundle.sh: session-handoff bundle export/import against the
# standard pipeline (tar | zstd -3 | age, and back) on the same bytes, in
# one run, on two corpora. See bench/README.md.
#
#   bench/bundle.sh                       # both corpora, 5 runs of each command
#   BENCH_MB=64 BENCH_RUNS=3 bench/bundle.sh
#   BENCH_CORPORA=goroot bench/bundle.sh
#   BENCH_BASELINE=/tmp/old/session-handoff bench/bundle.sh   # this code against a build of other code
#
# Environment:
#   BENCH_CORPORA  which corpora, space-separated (default "generated goroot"):
#                  generated  BENCH_MB MiB from bench/gencorpus, as one tar
#                  goroot     a tar of $(go env GOROOT)/src (about 140 MB)
#   BENCH_MB       size of the generated corpus in MiB (default 256)
#   BENCH_RUNS     runs of each of the four commands per corpus (default 5)
#   BENCH_KEEP     set to 1 to keep the work directory (its path is printed)
#   BENCH_BASELINE a session-handoff binary built from other code (say main:
#                  git worktree add /tmp/old main && go build -C /tmp/old -o
#                  /tmp/old/session-handoff ./cmd/session-handoff): its export
#                  and import run in the same interleaved rounds, and are
#                  reported beside ours ("base")
#
# It installs nothing: a missing tool stops it with the command to run.
set -euo pipefail

cd "$(dirname "$0")/.."

mb=${BENCH_MB:-256}
runs=${BENCH_RUNS:-5}
corpora=${BENCH_CORPORA-generated goroot}
. bench/lib.sh
positive_int BENCH_MB "$mb"
positive_int BENCH_RUNS "$runs"
[ -n "${corpora// /}" ] || { echo "bench: BENCH_CORPORA is empty" >&2; exit 2; }
for c in $corpora; do
  case $c in generated | goroot) ;; *) echo "bench: BENCH_CORPORA: unknown corpus '$c' (want generated, goroot)" >&2; exit 2 ;; esac
done
require "time age zstd tar" go age zstd tar /usr/bin/time
base=${BENCH_BASELINE:-}
if [ -n "$base" ] && ! [ -x "$base" ]; then
  echo "bench: BENCH_BASELINE: $base is not an executable file" >&2
  exit 2
fi
make_work
mkdir -p "$work/home" "$work/tmp"
export SESSION_HANDOFF_HOME=$work/home

# The goals (issue 19): ours/standard wall time and CPU time, and memory.
goal_export=1.00 goal_export_cpu=1.20 goal_import=0.90 goal_peak_mib=64

echo "== session-handoff bundle benchmark"
machine
echo "tools:   $(go version | cut -d' ' -f3), age $(age --version 2>&1), zstd $(zstd -V 2>&1 | sed -n 's/.*\(v[0-9][0-9.]*\).*/\1/p'), $(tar --version | head -n1)"

echo "build:   go build ./cmd/session-handoff ./bench/gencorpus"
go build -o "$sh" ./cmd/session-handoff
go build -o "$work/gencorpus" ./bench/gencorpus
goroot=$(go env GOROOT)

# Import stages blobs under TMPDIR: keep that inside the work directory.
# (Set after the builds so that go's own temporary files are unaffected.)
export TMPDIR=$work/tmp

# Each corpus is one file, $work/NAME/corpus.tar, that both sides attach or
# archive; the outputs of its runs go beside it.
for c in $corpora; do
  mkdir -p "$work/$c"
  start=$(date +%s%N)
  case $c in
    generated)
      "$work/gencorpus" -mb "$mb" -tar "$work/$c/corpus.tar"
      what="$mb MiB of JSONL transcripts and Go-like source" ;;
    goroot)
      tar -cf "$work/$c/corpus.tar" -C "$goroot" src
      what="$goroot/src of $(go version | cut -d' ' -f3)" ;;
  esac
  bytes=$(stat -c %s "$work/$c/corpus.tar")
  sha=$(sha256sum "$work/$c/corpus.tar" | cut -d' ' -f1)
  printf 'corpus:  %-9s %s, as one tar of %d bytes (made in %.1f s), sha256 %.12s\n' "$c" "$what" "$bytes" \
    "$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {print (b - a) / 1e9}')" "$sha"
  echo "$bytes $sha" >"$work/$c/corpus.info"
done

# --- keys, a record ----------------------------------------------------------
{
  "$sh" keygen --no-passphrase --name bench@local
  "$sh" key show --age-recipient >"$work/recipient.txt"
  "$sh" trust add "$("$sh" key show --signing-key)"
  "$sh" save --no-git --project "$work" --title bench --summary "benchmark record"
} >>"$log" 2>&1 || fail "setting up keys and a record failed"
[ -z "$base" ] || echo "baseline: $base ($("$base" --version 2>/dev/null | head -n1)), run after ours in each round"
recipient=$(cat "$work/recipient.txt")
identity=$SESSION_HANDOFF_HOME/config/age_identity.txt
[ -s "$identity" ] || fail "no age identity at $identity"

# --- the four commands ---------------------------------------------------------
# Each is run by /usr/bin/time; the pipelines through bash -c. Between runs,
# outside the measurement, the outputs are removed so that every run does the
# whole work (an import into a store that already holds the bundle would
# answer "already imported" and do nothing).
export BENCH_RECIPIENT=$recipient BENCH_IDENTITY=$identity

std_export='tar -cf - -C "$BENCH_DIR" corpus.tar | zstd -3 -q | age -r "$BENCH_RECIPIENT" >"$BENCH_DIR/out.tar.zst.age"'
std_import='age -d -i "$BENCH_IDENTITY" "$BENCH_DIR/out.tar.zst.age" | zstd -d -q | tar -xf - -C "$BENCH_DIR/extract"'

# measure FILE CMD...: runs CMD under /usr/bin/time and appends
# "wall-secs max-rss-kib user-secs sys-secs" to FILE.
measure() {
  local file=$1
  shift
  if ! /usr/bin/time -f '%e %M %U %S' -o "$work/time.out" "$@" >>"$log" 2>&1; then
    fail "$(basename "$(dirname "$file")") $(basename "$file" .times) failed"
  fi
  tail -n 1 "$work/time.out" >>"$file"
}

# base_run DIR: the baseline's export and import, beside ours.
base_run() {
  local d=$1
  rm -f "$d/base.handoff"
  measure "$d/base-export.times" "$base" export latest --to-file "$work/recipient.txt" --attach "$d/corpus.tar" -o "$d/base.handoff"
  rm -rf "$d/base-store" "$work/tmp"
  mkdir -p "$work/tmp"
  measure "$d/base-import.times" "$base" import --store "$d/base-store" "$d/base.handoff"
  rm -f "$d/base-stored.handoff"
  measure "$d/base-stored.times" "$base" export latest --all-projects --store "$d/base-store" --to-file "$work/recipient.txt" -o "$d/base-stored.handoff"
}

echo "runs:    $runs of each, interleaved (per run, for each corpus: our export, the standard export, our import, our export of what it stored, the standard import${base:+, the baseline export, import and stored export}); load is the 1-minute average as the run starts"
for i in $(seq 1 "$runs"); do
  for c in $corpora; do
    d=$work/$c
    export BENCH_DIR=$d
    load=$(cut -d' ' -f1 /proc/loadavg)
    rm -f "$d/out.handoff" "$d/out.tar.zst.age"
    measure "$d/ours-export.times" "$sh" export latest --to-file "$work/recipient.txt" --attach "$d/corpus.tar" -o "$d/out.handoff"
    measure "$d/std-export.times" bash -c "$std_export"
    rm -rf "$d/import-store" "$work/tmp"
    mkdir -p "$work/tmp"
    measure "$d/ours-import.times" "$sh" import --store "$d/import-store" "$d/out.handoff"
    # The export of what that import stored: an attachment the store
    # holds (no redaction, no first pass: the record names its hash).
    rm -f "$d/stored.handoff"
    measure "$d/ours-stored.times" "$sh" export latest --all-projects --store "$d/import-store" --to-file "$work/recipient.txt" -o "$d/stored.handoff"
    rm -rf "$d/extract"
    mkdir -p "$d/extract"
    measure "$d/std-import.times" bash -c "$std_import"
    [ -z "$base" ] || base_run "$d"
    printf '  run %d %-9s load %5s  export ours %s s / %s KiB, standard %s s / %s KiB; import ours %s s / %s KiB, standard %s s / %s KiB; stored ours %s s\n' "$i" "$c" "$load" \
      $(tail -n1 "$d/ours-export.times" | cut -d' ' -f1,2) $(tail -n1 "$d/std-export.times" | cut -d' ' -f1,2) \
      $(tail -n1 "$d/ours-import.times" | cut -d' ' -f1,2) $(tail -n1 "$d/std-import.times" | cut -d' ' -f1,2) \
      "$(tail -n1 "$d/ours-stored.times" | cut -d' ' -f1)"
    [ -z "$base" ] || printf '  %*s baseline export %s s / %s KiB; import %s s / %s KiB; stored %s s\n' $((${#i} + 21)) "" \
      $(tail -n1 "$d/base-export.times" | cut -d' ' -f1,2) $(tail -n1 "$d/base-import.times" | cut -d' ' -f1,2) \
      "$(tail -n1 "$d/base-stored.times" | cut -d' ' -f1)"
  done
done

# --- check the round trips once --------------------------------------------------
# Our import must store the bundle's blob unchanged: the corpus itself, or,
# when export redacted secrets from it (the Go tree has test keys), the
# redacted copy the bundle carries. The standard pipeline restores the corpus.
for c in $corpora; do
  d=$work/$c
  read -r _ sha <"$d/corpus.info"
  age -d -i "$identity" "$d/out.handoff" | zstd -d -q | tar -xf - -C "$d" blobs ||
    fail "$c: our bundle is not readable by age | zstd | tar"
  bundled=$(find "$d/blobs" -type f | head -n1)
  stored=$(find "$d/import-store/blobs" -type f -name "$(basename "$bundled")" | head -n1)
  [ -n "$stored" ] && cmp -s "$stored" "$bundled" || fail "$c: our import did not store the bundle's blob unchanged"
  if [ "$(basename "$bundled")" = "$sha" ]; then
    cmp -s "$bundled" "$d/corpus.tar" || fail "$c: our bundle does not carry the corpus unchanged"
  else
    echo "check:   $c: export redacted secrets (see the log); the blob bundled and imported is the redacted copy"
  fi
  cmp -s "$d/extract/corpus.tar" "$d/corpus.tar" || fail "$c: the standard pipeline did not restore the corpus unchanged"
done

# --- report ----------------------------------------------------------------------
# median FILE COLUMN; maxof FILE COLUMN; cpu FILE (median of user+sys)
median() { cut -d' ' -f"$2" "$1" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
maxof() { cut -d' ' -f"$2" "$1" | sort -g | tail -n1; }
cpu() { awk '{print $3 + $4}' "$1" >"$1.cpu"; median "$1.cpu" 1; }
mib() { awk -v k="$1" 'BEGIN {printf "%.0f", k/1024}'; }

# paired A B: the median, lowest and highest of the run-by-run ratios of
# the wall times in files A and B (run i of A over run i of B): adjacent
# runs see much the same load, so these move less than a ratio of medians.
paired() {
  paste -d' ' "$1" "$2" | awk '$5 > 0 {print $1 / $5}' | sort -g |
    awk '{v[NR]=$1} END {printf "%.2f (%.2f to %.2f)", (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2), v[1], v[NR]}'
}

# report DIR DIRECTION WALL-GOAL CPU-GOAL [SIDE]: SIDE is ours (the default)
# or base, the baseline; CPU-GOAL may be empty.
report() {
  local what=$2 goal=$3 cgoal=${4:-} side=${5:-ours} o s
  o=$1/$side-$2.times s=$1/std-$2.times
  local ot st om sm oc sc label=ours
  [ "$side" = ours ] || label=base
  ot=$(median "$o" 1) st=$(median "$s" 1) om=$(mib "$(maxof "$o" 2)") sm=$(mib "$(maxof "$s" 2)")
  oc=$(cpu "$o") sc=$(cpu "$s")
  awk -v w="$what" -v l="$label" -v ot="$ot" -v st="$st" -v om="$om" -v sm="$sm" -v oc="$oc" -v sc="$sc" \
    -v g="$goal" -v cg="$cgoal" -v pg="$goal_peak_mib" 'BEGIN {
    r = (st > 0) ? ot / st : 0
    cr = (sc > 0) ? oc / sc : 0
    printf "  %s: %s %.2f s (peak %d MiB)  standard %.2f s (peak %d MiB)  ratio %.2f  [goal <= %.2f: %s; peak < %d MiB: %s]\n",
      w, l, ot, om, st, sm, r, g, (r <= g ? "met" : "MISSED"), pg, (om < pg ? "met" : "MISSED")
    printf "  %*s  cpu (user+sys): %s %.2f s  standard %.2f s (all processes)  ratio %.2f", length(w), "", l, oc, sc, cr
    if (cg != "") printf "  [goal <= %.2f: %s]", cg, (cr <= cg ? "met" : "MISSED")
    printf "\n"
  }'
  printf '  %*s  run by run, %s/standard: %s\n' ${#what} "" "$label" "$(paired "$o" "$s")"
  if [ "$side" = base ]; then
    printf '  %*s  run by run, ours/base: %s\n' ${#what} "" "$(paired "$1/ours-$2.times" "$o")"
  fi
}

echo
echo "== results (median of $runs runs; peak RSS is the highest of the runs)"
for c in $corpora; do
  d=$work/$c
  read -r bytes _ <"$d/corpus.info"
  echo "$c ($bytes bytes):"
  report "$d" export "$goal_export" "$goal_export_cpu"
  [ -z "$base" ] || report "$d" export "$goal_export" "$goal_export_cpu" base
  report "$d" import "$goal_import"
  [ -z "$base" ] || report "$d" import "$goal_import" "" base
  # stored: the export of the attachment our import stored, against the
  # same run's standard export.
  cp "$d/std-export.times" "$d/std-stored.times"
  report "$d" stored "$goal_export" "$goal_export_cpu"
  [ -z "$base" ] || report "$d" stored "$goal_export" "$goal_export_cpu" base
  awk -v c="$bytes" -v o="$(stat -c %s "$d/out.handoff")" -v s="$(stat -c %s "$d/out.tar.zst.age")" 'BEGIN {
    printf "  size:   ours %d bytes (%.2fx smaller than the corpus)  standard %d bytes (%.2fx)  ratio %.3f\n", o, c/o, s, c/s, o/s
  }'
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
cat <<'EOF'
notes:
  - times are wall clock (%e), memory is maximum resident set size (%M) from /usr/bin/time.
  - for the standard pipelines /usr/bin/time runs bash -c 'a | b | c' and reports the
    largest single process of the pipeline (ru_maxrss of the waited-for children),
    not the sum of its processes; its CPU time is that of all of them.
  - stored is our export of the attachment our import stored (export latest --store),
    compared with the same run's standard export: no redaction and no first pass.
  - ours hashes every blob, redacts the attachment in a first pass before the bundle
    is written, and fsyncs what it writes (the bundle; on import the staged blob, which
    then moves into the store by rename); the standard pipeline does none of that.
  - both sides read a warm page cache; other load on the machine skews both alike,
    since the runs are interleaved.
EOF
