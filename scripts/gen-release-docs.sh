#!/usr/bin/env bash
# Writes the shell completions and man pages that release archives carry,
# into dist-docs/, using the binary built from this tree.
#   scripts/gen-release-docs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist-docs
rm -rf "$out"
mkdir -p "$out/completions" "$out/man"
bin=$(mktemp -d)/session-handoff
trap 'rm -rf "$(dirname "$bin")"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/session-handoff
for sh in bash zsh fish powershell; do
  "$bin" completion "$sh" > "$out/completions/session-handoff.$sh"
done
"$bin" man "$out/man"
echo "wrote $(ls "$out/completions" | wc -l) completions and $(ls "$out/man" | wc -l) man pages to $out/"
