#!/usr/bin/env bash
# The end-to-end suite: session-handoff against the real agents (Claude
# Code, Codex CLI, Gemini CLI; GitHub Copilot CLI, OpenCode and Qwen Code
# in the hook, MCP, compaction and doctor scenarios; Cline CLI in the
# hook, compaction and doctor scenarios and its own; pi in the hook,
# compaction and doctor scenarios and its own; Kilo Code's CLI in its
# own; Crush in its own, when
# E2E_CRUSH_BIN names its binary), headless and offline (internal/e2e).
#
#   scripts/e2e.sh [go test flags, e.g. -run TestCaptureAndBrief/codex]
#
# Installs the agents at the versions in internal/e2e/versions.env from the
# npm registry into a cache that survives between runs
# (${XDG_CACHE_HOME:-~/.cache}/session-handoff-e2e/<versions>), builds
# session-handoff and the test binary, then runs the tests inside a network
# namespace whose only interface is loopback: the fake model listens on
# 127.0.0.1 there, and no agent can reach any other address.
# E2E_TRANSCRIPTS_OUT=DIR keeps the transcripts the agents wrote; E2E_DUMP=DIR
# keeps every request body the fake model received (to write a scenario);
# E2E_VERBOSE=1 prints the whole log when the tests pass too.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

# shellcheck source=../internal/e2e/versions.env
. internal/e2e/versions.env

# Gemini CLI and Qwen Code need Node 20 or later (their package.json
# engines), and pi runs on node too; the others ship native binaries
# inside their npm packages.
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "e2e: Node $node_major is too old: Gemini CLI needs Node 20 or later" >&2; exit 1
fi

# The agents: program, npm package, version (versions.env). Each installs
# into a cache of its own, kept between runs, so that a new pin installs
# that agent alone.
agents=(
  "claude @anthropic-ai/claude-code ${CLAUDE_CODE_VERSION}"
  "codex @openai/codex ${CODEX_VERSION}"
  "gemini @google/gemini-cli ${GEMINI_VERSION}"
  "copilot @github/copilot ${COPILOT_VERSION}"
  "cline cline ${CLINE_VERSION}"
  "pi @mariozechner/pi-coding-agent ${PI_VERSION}"
  "qwen @qwen-code/qwen-code ${QWEN_CODE_VERSION}"
  "opencode opencode-ai ${OPENCODE_VERSION}"
  "kilo @kilocode/cli ${KILO_VERSION}"
)
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/session-handoff-e2e"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="$work/bin"
mkdir -p "$bin"
pins=""
for entry in "${agents[@]}"; do
  read -r program package version <<<"$entry"
  cache="$cache_root/$program-$version"
  if [ ! -f "$cache/.complete" ]; then
    echo "installing $package@$version into $cache"
    rm -rf "$cache"; mkdir -p "$cache"
    # --ignore-scripts: no package's install script runs (node-pty's would
    # build with node-gyp); the native binaries come inside the platform
    # packages (@anthropic-ai/claude-code-linux-x64, @openai/codex-linux-x64).
    npm install --prefix "$cache" --no-audit --no-fund --ignore-scripts --loglevel=error "$package@$version" >/dev/null
    if [ "$program" = claude ]; then
      # Claude Code's bin/claude.exe is a stub until its postinstall links
      # the platform package's binary in its place (install.cjs of
      # @anthropic-ai/claude-code@2.1.328, which picks glibc or musl, x64
      # or arm64).
      (cd "$cache/node_modules/@anthropic-ai/claude-code" && node install.cjs >/dev/null)
    fi
    if [ "$program" = opencode ]; then
      # So is OpenCode's bin/opencode.exe, until its postinstall links
      # the platform package's binary (postinstall.mjs of opencode-ai
      # 1.18.33: opencode-linux-x64, or -baseline without AVX2, or -musl).
      (cd "$cache/node_modules/opencode-ai" && node postinstall.mjs >/dev/null)
    fi
    touch "$cache/.complete"
  fi
  ln -s "$cache/node_modules/.bin/$program" "$bin/$program"
  # Each agent runs, at the pinned version, before any test.
  got=$("$bin/$program" --version 2>&1 | head -1) || { echo "e2e: $program does not run: $got" >&2; exit 1; }
  case "$got" in *"$version"*) ;; *) echo "e2e: $program --version says '$got', want $version" >&2; exit 1 ;; esac
  pins="$pins $program $version,"
done
# Copilot CLI unpacks its package (~235 MB) on its first run into
# $COPILOT_CACHE_HOME/pkg: once, for every world of the suite
# (internal/e2e gives each E2E_COPILOT_CACHE).
export E2E_COPILOT_CACHE="$cache_root/copilot-${COPILOT_VERSION}/.copilot-cache"

# Crush (@charmland/crush) is a Go binary that its npm package downloads
# from GitHub releases at install time (install.js), which these machines
# cannot reach, and the Go module proxy refuses its module: its scenarios
# (internal/e2e/crush_test.go, build tag e2e_crush) run when
# E2E_CRUSH_BIN names a crush binary, such as one built from its source.
# The binary must be CRUSH_VERSION (versions.env).
tags=e2e
if [ -n "${E2E_CRUSH_BIN:-}" ]; then
  ln -s "$E2E_CRUSH_BIN" "$bin/crush"
  got=$("$bin/crush" --version 2>&1 | head -1) || { echo "e2e: crush does not run: $got" >&2; exit 1; }
  case "$got" in *"$CRUSH_VERSION"*) ;; *) echo "e2e: crush --version says '$got', want $CRUSH_VERSION" >&2; exit 1 ;; esac
  pins="$pins crush $CRUSH_VERSION,"
  tags=e2e,e2e_crush
fi

go build -o "$work/session-handoff" ./cmd/session-handoff
go test -c -tags "$tags" -o "$work/e2e.test" ./internal/e2e

# unshare --net makes a namespace with only a loopback interface, down;
# --map-root-user lets a user who is not root do so where the kernel
# allows unprivileged user namespaces.
userns=()
[ "$(id -u)" -ne 0 ] && userns=(--map-root-user)
set +e
E2E_AGENT_BIN="$bin" E2E_SESSION_HANDOFF="$work/session-handoff" \
  unshare "${userns[@]}" --net -- sh -c 'ip link set lo up && exec "$0" "$@"' \
  "$work/e2e.test" -test.v -test.timeout 15m "$@" >"$work/log" 2>&1
status=$?
set -e
if [ "$status" -eq 0 ] && [ -z "${E2E_VERBOSE:-}" ]; then
  grep -E '^\s*(--- |ok|PASS|\S+_test.go:[0-9]+: \S+ .*: [0-9.]+ s$)' "$work/log"
else
  cat "$work/log"
fi
echo "e2e:${pins%,}: took $(( $(date +%s) - start )) s"
if [ -z "${E2E_CRUSH_BIN:-}" ]; then
  # Said, not passed over: Crush's scenarios did not run.
  echo "e2e: not run: Crush's scenarios (internal/e2e/crush_test.go): E2E_CRUSH_BIN names no crush binary, which its npm package cannot install here"
fi
exit "$status"
