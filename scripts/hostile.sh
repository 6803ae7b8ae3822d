#!/usr/bin/env bash
# The hostile-input campaign (issue 9, "Proof"): every hostile input of the
# corpora (bundles, transcripts, keys, trust stores, configuration and
# memory files, armed repositories, and what agents reach: a breaking
# directory name, linked agent directories, untrusted next steps, a 3 MB
# MCP argument, a spliced armor paste; who counts as me: me@ comments, a
# device named like a path, FIFOs, batch pinning, the directory-name
# fallback, a removed key) goes through the CLI, and for each the exit code, the one
# error line naming the cause and the file, and the store, memory, keys and
# configuration trees before and after are checked. The inputs and what each
# must give are in cmd/session-handoff/hostile_campaign_test.go; the corpus
# is described in testdata/hostile/README.md.
#
# Prints the inputs by kind and "N passed, N failed"; exits non-zero when
# any input fails. Extra arguments go to the test binary, e.g.
#   scripts/hostile.sh -test.run 'TestHostileCampaign/trust/' -test.v
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -o "$bin/cmd.test" ./cmd/session-handoff
cd cmd/session-handoff
# A hang (a reader blocked on a FIFO, say) is a failure too: the timeout
# ends it with the stacks of every goroutine.
"$bin/cmd.test" -test.run '^TestHostileCampaign$' -test.count=1 -test.timeout=15m -hostile "$@"
