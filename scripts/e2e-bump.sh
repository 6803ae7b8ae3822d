#!/usr/bin/env bash
# Checks a new agent release in one command: rewrites
# internal/e2e/versions.env to the newest versions of Claude Code, Codex
# CLI, Gemini CLI, GitHub Copilot CLI, OpenCode, Cline CLI, pi and Qwen
# Code and Kilo Code on the npm registry (not Crush's, whose binary E2E_CRUSH_BIN names:
# CRUSH_VERSION stays), then runs the end-to-end suite
# (scripts/e2e.sh) against them. The files stay rewritten either way
# (versions.env and README.md's line on them): commit them when the suite
# passes, or `git checkout internal/e2e/versions.env README.md`.
#
#   scripts/e2e-bump.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

latest() { npm view "$1" version; }
claude=$(latest @anthropic-ai/claude-code)
codex=$(latest @openai/codex)
gemini=$(latest @google/gemini-cli)
copilot=$(latest @github/copilot)
cline=$(latest cline)
pi=$(latest @mariozechner/pi-coding-agent)
qwen=$(latest @qwen-code/qwen-code)
opencode=$(latest opencode-ai)
# Kilo Code's newest release whose binary (@kilocode/cli-linux-x64) the
# registry holds too: some releases have none there.
versions() { npm view "$1" versions --json | tr -d '[]", ' | grep . | sort; }
kilo=$(comm -12 <(versions @kilocode/cli) <(versions @kilocode/cli-linux-x64) | sort -V | tail -1)

. internal/e2e/versions.env
echo "claude-code ${CLAUDE_CODE_VERSION} -> ${claude}"
echo "codex       ${CODEX_VERSION} -> ${codex}"
echo "gemini      ${GEMINI_VERSION} -> ${gemini}"
echo "copilot     ${COPILOT_VERSION} -> ${copilot}"
echo "cline       ${CLINE_VERSION} -> ${cline}"
echo "pi          ${PI_VERSION} -> ${pi}"
echo "qwen-code   ${QWEN_CODE_VERSION} -> ${qwen}"
echo "opencode    ${OPENCODE_VERSION} -> ${opencode}"
echo "kilo        ${KILO_VERSION} -> ${kilo}"

sed -i.bak \
  -e "s/^CLAUDE_CODE_VERSION=.*/CLAUDE_CODE_VERSION=${claude}/" \
  -e "s/^CODEX_VERSION=.*/CODEX_VERSION=${codex}/" \
  -e "s/^GEMINI_VERSION=.*/GEMINI_VERSION=${gemini}/" \
  -e "s/^COPILOT_VERSION=.*/COPILOT_VERSION=${copilot}/" \
  -e "s/^CLINE_VERSION=.*/CLINE_VERSION=${cline}/" \
  -e "s/^PI_VERSION=.*/PI_VERSION=${pi}/" \
  -e "s/^QWEN_CODE_VERSION=.*/QWEN_CODE_VERSION=${qwen}/" \
  -e "s/^OPENCODE_VERSION=.*/OPENCODE_VERSION=${opencode}/" \
  -e "s/^KILO_VERSION=.*/KILO_VERSION=${kilo}/" \
  internal/e2e/versions.env
rm -f internal/e2e/versions.env.bak
# README.md says which versions are checked end to end. The agents' own
# Checked (in internal/agents/<name>/agent.go) must follow by hand once
# the suite passes: TestEndToEndPinsAreTheTables holds versions.env to
# them, and TestReadmeListsEveryAgent README's rows.
esc() { printf '%s' "$1" | sed 's/[.]/\\./g'; }
sed -i.bak \
  -e "s/Code $(esc "$CLAUDE_CODE_VERSION"),/Code ${claude},/" \
  -e "s/Codex CLI $(esc "$CODEX_VERSION")/Codex CLI ${codex}/" \
  -e "s/Gemini CLI $(esc "$GEMINI_VERSION")/Gemini CLI ${gemini}/" \
  -e "s/Copilot CLI $(esc "$COPILOT_VERSION")/Copilot CLI ${copilot}/g" \
  -e "s/Cline CLI $(esc "$CLINE_VERSION")/Cline CLI ${cline}/g" \
  -e "s/pi $(esc "$PI_VERSION")/pi ${pi}/g" \
  -e "s/Qwen Code $(esc "$QWEN_CODE_VERSION")/Qwen Code ${qwen}/g" \
  -e "s/OpenCode $(esc "$OPENCODE_VERSION")/OpenCode ${opencode}/g" \
  -e "s/Kilo Code $(esc "$KILO_VERSION")/Kilo Code ${kilo}/g" \
  README.md
rm -f README.md.bak
exec scripts/e2e.sh "$@"
