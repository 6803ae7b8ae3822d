#!/usr/bin/env bash
# bench/binsize.sh: the release build's size and start-up, beside a
# hello-world Go program built the same way (CGO_ENABLED=0 -trimpath
# -ldflags "-s -w -buildid=", the flags of .goreleaser.yaml), in one run:
# each start-up command runs BENCH_RUNS times, interleaved with the others
# so that machine load hits them alike; medians and the difference from
# hello world are printed.
#
#   bench/binsize.sh
#   BENCH_RUNS=200 bench/binsize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh

runs=${BENCH_RUNS:-100}
positive_int BENCH_RUNS "$runs"
require "golang-go bc" go bc EPOCHREALTIME
make_work
machine

build() { # OUT PACKAGE-DIR
  CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -ldflags "-s -w -buildid=" -o "$1" "$2" 2>>"$log" ||
    fail "go build $2"
}
build "$sh" ./cmd/session-handoff
mkdir -p "$work/hello"
cat >"$work/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello, world") }
GO
printf 'module hello\n\ngo 1.26\n' >"$work/hello/go.mod"
(cd "$work/hello" && build "$work/hello-world" .)

size=$(wc -c <"$sh")
hello_size=$(wc -c <"$work/hello-world")
printf 'size: session-handoff %.2f MiB, hello world %.2f MiB (%.1fx)\n' \
  "$(echo "$size / 1048576" | bc -l)" "$(echo "$hello_size / 1048576" | bc -l)" "$(echo "$size / $hello_size" | bc -l)"
if file "$sh" 2>/dev/null | grep -q 'statically linked'; then echo "linking: static"; fi

export HOME=$work/home
mkdir -p "$HOME"
for ((i = 0; i < runs; i++)); do
  measure hello "$work/hello-world"
  measure help "$sh" --help
  measure version "$sh" version
done
hello=$(median "$work/hello.times")
printf '%-28s %8s %10s\n' "start-up (median of $runs)" "ms" "- hello"
for name in hello help version; do
  m=$(median "$work/$name.times")
  printf '%-28s %8.2f %+10.2f\n' "$name" "$(echo "$m / 1000" | bc -l)" "$(echo "($m - $hello) / 1000" | bc -l)"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
