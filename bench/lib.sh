# bench/lib.sh: what the bench scripts share. Source it from a script that
# runs with `set -euo pipefail` from the repository root.

# positive_int NAME VALUE: exits 2 unless VALUE is a positive integer.
positive_int() {
  case $2 in '' | *[!0-9]* | 0) echo "bench: $1 must be a positive integer, got '$2'" >&2; exit 2 ;; esac
}

# require PACKAGES TOOL...: exits 1, naming what is missing and the apt
# command that installs PACKAGES, unless every TOOL is on PATH.
# /usr/bin/time stands for GNU time (not the shell keyword: -f %M is needed);
# EPOCHREALTIME for bash 5, whose clock times a command without a process.
require() {
  local packages=$1 tool
  shift
  local missing=()
  for tool in "$@"; do
    case $tool in
      /usr/bin/time) { [ -x /usr/bin/time ] && /usr/bin/time -f '%e %M' true >/dev/null 2>&1; } || missing+=("$tool") ;;
      EPOCHREALTIME) [ -n "${EPOCHREALTIME:-}" ] || missing+=("bash 5 or later (this is $BASH_VERSION)") ;;
      *) command -v "$tool" >/dev/null 2>&1 || missing+=("$tool") ;;
    esac
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: missing: ${missing[*]}" >&2
    echo "bench: on Debian/Ubuntu: sudo apt-get install -y $packages  (go: https://go.dev/dl/, 1.26 or later)" >&2
    exit 1
  fi
}

# make_work: a fresh work directory in $work, removed on exit (kept, and
# named, with BENCH_KEEP=1); $sh is where the binary goes, $log collects
# the commands' error output for fail.
make_work() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/session-handoff-bench.XXXXXX")
  trap remove_work EXIT
  sh=$work/session-handoff
  log=$work/log
  : >"$log"
}

remove_work() {
  if [ "${BENCH_KEEP:-}" = 1 ]; then
    echo "bench: kept $work" >&2
  else
    rm -rf "$work"
  fi
}

# fail MESSAGE: exits 1 with MESSAGE and the end of the log.
fail() {
  echo "bench: $*" >&2
  [ -s "$log" ] && tail -n 20 "$log" >&2
  exit 1
}

# machine: one line naming the machine and its load now.
machine() {
  local cpu
  cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n1)
  echo "machine: $(nproc) CPUs (${cpu:-unknown CPU}), $(uname -sm), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# measure NAME CMD...: runs CMD (standard output to /dev/null, errors to the
# log) and appends its wall time in microseconds to $work/NAME.times, read
# from bash's EPOCHREALTIME without starting a process.
measure() {
  local name=$1 s e
  shift
  s=${EPOCHREALTIME/[.,]/}
  "$@" >/dev/null 2>>"$log" || fail "$name failed: $*"
  e=${EPOCHREALTIME/[.,]/}
  echo $((e - s)) >>"$work/$name.times"
}

# median FILE: the median of the numbers in FILE, one per line.
median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# median_ms FILE: the same for microseconds, printed in milliseconds.
median_ms() { median "$1" | awk '{printf "%.2f", $1 / 1000}'; }
