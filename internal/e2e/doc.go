// Package e2e runs session-handoff against the real agents (Claude Code,
// Codex CLI, Gemini CLI; GitHub Copilot CLI and Qwen Code in the hook,
// MCP, compaction and doctor scenarios; pi in the hook, compaction and
// doctor scenarios and its own, pi_test.go; Kilo Code's CLI in its own,
// kilo_test.go; Crush in its own,
// crush_test.go, behind the tag e2e_crush), headless and offline: each
// agent, installed from the npm registry at the versions pinned in
// versions.env (Crush: the binary E2E_CRUSH_BIN names), talks to a
// scripted fake model (internal/e2e/fakemodel) on 127.0.0.1, inside a
// network namespace that has nothing but loopback.
//
// The tests are behind the build tag e2e, so `go test ./...` does not run
// them; scripts/e2e.sh installs the agents, builds session-handoff and the
// test binary, and runs them in the namespace. A scenario is a function
// of one agent's world (a fresh HOME and git project, the agent's
// offline settings, the fake model): see scenarios_test.go.
package e2e
