#!/usr/bin/env bash
# The held-out check (issue 32): capture over real transcripts kept OUTSIDE
# the repository, each beside its expectation file <transcript>.expect.json
# (the fields of internal/agents' realExpectation, as JSON:
# docs/TRANSCRIPTS.md), scored field by field.
#
#   scripts/heldout.sh DIR
#
# Prints, per field (title, requests with no injected text, files,
# commands with their outcomes, last failure, todos, compaction, plan with
# its status, cancelled), how many transcripts passed and the rate, then
# every mismatch; exits non-zero unless every field is at 100%.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/heldout.sh DIR  (a directory of transcripts with .expect.json files, outside the repository)" >&2
  exit 2
fi
dir=$(cd "$1" && pwd -P)
cd "$(dirname "$0")/.."
repo=$(pwd -P)
case "$dir/" in
  "$repo"/*) echo "heldout: $dir is inside the repository; a held-out set is kept outside it" >&2; exit 2 ;;
esac
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/agents.test" ./internal/agents
cd internal/agents
"$bin/agents.test" -test.run '^TestHeldOut$' -test.count=1 -heldout "$dir"
