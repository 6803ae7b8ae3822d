#!/usr/bin/env bash
# Checks what a release depends on, without publishing anything:
#   1. the release build is static and reproducible: linux/amd64 built twice
#      into different directories gives identical bytes;
#   2. every release platform compiles (linux, darwin, windows on amd64 and
#      arm64), and every package and its tests vet under GOOS=windows and
#      GOOS=darwin (Unix-only test calls go through internal/testsys);
#   3. a checksums file signed with ssh-keygen -Y sign verifies with stock
#      OpenSSH against an allowed_signers line (a throwaway key; the real
#      one is a release secret);
#   4. README's `go install ./cmd/session-handoff` gives a working binary;
#   5. the workflows pass actionlint, and with RELEASE_CHECK_GORELEASER=1
#      .goreleaser.yaml passes `goreleaser check` and a signed snapshot
#      release verifies (each installed with the
#      Go module proxy if missing; goreleaser takes minutes to build, so CI
#      leaves it out).
#
#   scripts/release-check.sh                             # CI's run
#   RELEASE_CHECK_GORELEASER=1 scripts/release-check.sh  # and goreleaser check
# Ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0
ok() { echo "ok    $*"; passed=$((passed + 1)); }
bad() { echo "FAIL  $*"; failed=$((failed + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The flags of .goreleaser.yaml's build, with fixed values for the -X ones.
pkg=github.com/session-handoff/session-handoff/internal/buildinfo
ldflags="-s -w -buildid= -X $pkg.version=v0.0.0-check -X $pkg.commit=0000000000000000000000000000000000000000 -X $pkg.date=2026-01-01T00:00:00Z"
release_build() { # DIR GOOS GOARCH
  CGO_ENABLED=0 GOOS=$2 GOARCH=$3 GOFLAGS=-buildvcs=false \
    go build -trimpath -ldflags "$ldflags" -o "$1/session-handoff" ./cmd/session-handoff
}

# 1. Reproducible and static.
release_build "$work/a" linux amd64
release_build "$work/b" linux amd64
if cmp -s "$work/a/session-handoff" "$work/b/session-handoff"; then
  ok "reproducible: two linux/amd64 builds are identical ($(wc -c <"$work/a/session-handoff") bytes)"
else
  bad "reproducible: two linux/amd64 builds differ"
fi
if go version -m "$work/a/session-handoff" | grep -q 'CGO_ENABLED=0' && ! ldd "$work/a/session-handoff" >/dev/null 2>&1; then
  ok "static: CGO_ENABLED=0, no dynamic loader needed"
else
  bad "static: the release binary is dynamically linked"
fi
if [ "$("$work/a/session-handoff" --version)" = "session-handoff v0.0.0-check" ]; then
  ok "--version prints the release version"
else
  bad "--version: $("$work/a/session-handoff" --version)"
fi

# 2. Every platform compiles; the tests vet on Windows.
for target in linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  if release_build "$work/$target" "${target%/*}" "${target#*/}" 2>"$work/err"; then
    ok "builds for $target"
  else
    bad "builds for $target: $(head -3 "$work/err")"
  fi
done
# go vet type-checks the tests too, so a test that calls a Unix-only
# syscall without a build tag (or internal/testsys) fails here.
for goos in windows darwin; do
  if GOOS=$goos go vet ./... 2>"$work/err"; then
    ok "every package and its tests vet under GOOS=$goos"
  else
    bad "GOOS=$goos go vet: $(grep -v '^#' "$work/err" | head -3)"
  fi
done

# 3. Signed checksums verify with stock OpenSSH.
ssh-keygen -q -t ed25519 -N '' -C release@session-handoff -f "$work/release_key"
(cd "$work/a" && sha256sum session-handoff) > "$work/checksums.txt"
ssh-keygen -q -Y sign -n file -f "$work/release_key" "$work/checksums.txt"
printf 'release@session-handoff namespaces="file" %s\n' "$(cut -d' ' -f1,2 "$work/release_key.pub")" > "$work/allowed_signers"
if ssh-keygen -Y verify -f "$work/allowed_signers" -I release@session-handoff -n file \
     -s "$work/checksums.txt.sig" < "$work/checksums.txt" >/dev/null 2>&1; then
  ok "signed checksums.txt verifies with ssh-keygen -Y verify"
else
  bad "signed checksums.txt does not verify"
fi
echo "tampered" >> "$work/checksums.txt"
if ssh-keygen -Y verify -f "$work/allowed_signers" -I release@session-handoff -n file \
     -s "$work/checksums.txt.sig" < "$work/checksums.txt" >/dev/null 2>&1; then
  bad "a changed checksums.txt still verifies"
else
  ok "a changed checksums.txt is refused"
fi

# snapshot_release: a whole release without publishing, signed with the
# throwaway key: the signature over checksums.txt must verify (GoReleaser
# once added the .sig to the file it had signed), every archive must match
# its checksum and hold what README promises, and the archived binary must
# run. The SBOM step needs syft on PATH; without it that step is skipped.
snapshot_release() {
  local skip=publish
  command -v syft >/dev/null 2>&1 || skip=publish,sbom
  if ! SIGNING_KEY_FILE="$work/release_key" "$gobin/goreleaser" release --snapshot --clean --skip="$skip" >"$work/gr" 2>&1; then
    bad "goreleaser release --snapshot: $(tail -5 "$work/gr")"; return
  fi
  if ssh-keygen -Y verify -f "$work/allowed_signers" -I release@session-handoff -n file \
       -s dist/checksums.txt.sig < dist/checksums.txt >/dev/null 2>&1 &&
     (cd dist && sha256sum --quiet -c checksums.txt); then
    ok "snapshot release: checksums.txt.sig verifies and every archive matches checksums.txt"
  else
    bad "snapshot release: the signed checksums do not verify"
  fi
  local tgz want missing=()
  tgz=$(ls dist/session-handoff_*_linux_amd64.tar.gz)
  tar tzf "$tgz" >"$work/listing"
  for want in session-handoff README.md LICENSE SECURITY.md docs/FORMAT.md completions/session-handoff.bash man/session-handoff.1; do
    grep -qx "$want" "$work/listing" || missing+=("$want")
  done
  if [ ${#missing[@]} -eq 0 ] && tar xzf "$tgz" -O session-handoff >"$work/snap" && chmod +x "$work/snap" &&
     "$work/snap" --version | grep -q '^session-handoff 0\.0\.0-SNAPSHOT'; then
    ok "snapshot release: the linux/amd64 archive holds the binary, docs, completions and man pages"
  else
    bad "snapshot release archive: missing ${missing[*]:-nothing}, or its binary does not run"
  fi
  [ "$skip" = publish ] && ok "snapshot release: SBOMs made with syft" || echo "skip  SBOM: syft is not installed"
}

# 4. README's install from a clone: go install puts a working binary in
#    GOBIN that names its build. (Homebrew, a tagged release archive and
#    `go install …@latest` need a published release: see README.)
if GOBIN="$work/gobin" go install ./cmd/session-handoff 2>"$work/err" &&
   "$work/gobin/session-handoff" version | grep -q '^session-handoff devel'; then
  ok "go install ./cmd/session-handoff gives a binary that names its build"
else
  bad "go install ./cmd/session-handoff: $(head -3 "$work/err")"
fi

# 5. Release configuration and workflows.
gobin=$(go env GOPATH)/bin
[ -x "$gobin/actionlint" ] || GOFLAGS=-mod=mod go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
if "$gobin/actionlint" .github/workflows/*.yml; then ok "actionlint: workflows"; else bad "actionlint: workflows"; fi
if [ "${RELEASE_CHECK_GORELEASER:-0}" = 1 ]; then
  [ -x "$gobin/goreleaser" ] || GOFLAGS=-mod=mod go install github.com/goreleaser/goreleaser/v2@v2.15.1
  if "$gobin/goreleaser" check >"$work/gr" 2>&1; then ok "goreleaser check"; else bad "goreleaser check: $(tail -5 "$work/gr")"; fi
  snapshot_release
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
