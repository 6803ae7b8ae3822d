package pi

import (
	"encoding/json"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
)

// pi runs no hook commands: an extension, a TypeScript module in
// .pi/extensions/ (or ~/.pi/agent/extensions/) that pi loads at start
// without asking, gets the session's events (docs/extensions.md of
// @mariozechner/pi-coding-agent 0.73.1). integrate writes this one, which
// runs session-handoff's hooks on them:
//
//   - session_start: the session-start hook; the briefing it prints
//     (hookSpecificOutput.additionalContext) goes to the model once per
//     session, as a message of its own beside the first request
//     (before_agent_start's message: a custom_message entry, display
//     false, which the reader does not take for a request);
//   - session_before_compact: the pre-compact hook;
//   - session_shutdown: the session-end hook, which pi awaits before it
//     exits (print mode too: dist/modes/print-mode.js, disposeRuntime).
//
// A hook gets on its standard input what Claude Code's get: session_id,
// transcript_path (the session file), cwd, hook_event_name, source.

// extensionEvents are the hooks' events, in pi's words.
const (
	eventStart   = "session_start"
	eventCompact = "session_before_compact"
	eventEnd     = "session_shutdown"
)

// extension is the extension's text around hooks, written into it as a
// JSON array of {"ours", "event", "command", "timeout"} (each command a
// JSON member "command", where integrate and doctor find it).
func extension(hooks []agent.WholeHook) []byte {
	list, err := json.MarshalIndent(hooks, "", "  ")
	if err != nil {
		list = []byte("[]") // strings and ints: never
	}
	return []byte(strings.Replace(extensionText, "HOOKS_JSON", string(list), 1))
}

const extensionText = `// session-handoff's extension for pi, written by 'session-handoff integrate
// pi' (take it out with 'session-handoff integrate pi --remove'). At the
// start of a session it runs session-handoff's session-start hook and gives
// the model the briefing the hook prints, once, beside the first request;
// before a compaction and when the session ends it runs the hooks that
// capture the session into session-handoff's store.
import { spawn } from "node:child_process";

const HOOKS = HOOKS_JSON;

// run runs the hook of event with input on its standard input, and gives
// what it printed, or "" when it failed.
function run(event, input) {
  const hook = HOOKS.find((h) => h.event === event);
  if (!hook) return Promise.resolve("");
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", hook.command], {
      stdio: ["pipe", "pipe", "ignore"],
      timeout: (hook.timeout || 60) * 1000,
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      if (out.length < 1 << 20) out += d;
    });
    child.on("error", () => resolve(""));
    child.on("close", (code) => resolve(code === 0 ? out : ""));
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

function input(ctx, event, extra) {
  return {
    session_id: ctx.sessionManager.getSessionId(),
    transcript_path: ctx.sessionManager.getSessionFile() ?? "",
    cwd: ctx.cwd,
    hook_event_name: event,
    ...extra,
  };
}

export default function (pi) {
  let briefing = "";
  pi.on("session_start", async (event, ctx) => {
    briefing = "";
    // Once per session: a continued one has had its briefing.
    const briefed = ctx.sessionManager
      .getEntries()
      .some((e) => e.type === "custom_message" && e.customType === "session-handoff");
    const out = await run("session_start", input(ctx, "session_start", { source: event.reason }));
    if (briefed || !out.trim()) return;
    try {
      briefing = JSON.parse(out)?.hookSpecificOutput?.additionalContext ?? "";
    } catch {
      briefing = "";
    }
  });
  pi.on("before_agent_start", async () => {
    if (!briefing) return;
    const content = briefing;
    briefing = "";
    return { message: { customType: "session-handoff", content, display: false } };
  });
  pi.on("session_before_compact", async (_event, ctx) => {
    await run("session_before_compact", input(ctx, "session_before_compact", {}));
  });
  pi.on("session_shutdown", async (event, ctx) => {
    await run("session_shutdown", input(ctx, "session_shutdown", { reason: event.reason }));
  });
}
`
