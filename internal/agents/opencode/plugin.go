package opencode

import (
	"encoding/json"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
)

// OpenCode runs no hook commands; its plugins, JavaScript modules in a
// plugin/ (or plugins/) directory of .opencode or ~/.config/opencode,
// get its session events (https://opencode.ai/docs/plugins/; Plugin.Hooks
// of @opencode-ai/plugin, opencode-ai 1.18.33). session-handoff's plugin
// runs our hooks as the other agents' settings do, a shell command line
// each with the hook's JSON input on stdin:
//
//   - session-start at a session's first model call
//     (experimental.chat.system.transform, whose input names the session):
//     the briefing the hook prints joins the system prompt of that call
//     and of every later call of the session;
//   - pre-compact before a compaction (experimental.session.compacting);
//   - session-end when the session goes idle (the event session.idle:
//     after each prompt is answered, and at the end of 'opencode run'),
//     in a process of its own that outlives OpenCode, which may exit at
//     once.
//
// The input names the session by its id (sessionId): capture finds it in
// the database. A subagent's session (parentID, asked of OpenCode's own
// client) is part of its parent's and gets no hook of its own.

// pluginEvents are the events as OpenCode names them, for HookSpec.
var pluginEvents = []struct{ ours, theirs string }{
	{"session-start", "experimental.chat.system.transform"},
	{"pre-compact", "experimental.session.compacting"},
	{"session-end", "session.idle"},
}

// pluginTemplate is the plugin; HOOKS is replaced by the hooks' command
// lines, each a JSON string member "command" (integrate and doctor find
// the hooks, and the program they run, by it).
const pluginTemplate = `// session-handoff's plugin for DISPLAY, written by 'session-handoff
// integrate NAME' ('session-handoff integrate NAME --remove'
// takes it out). It runs session-handoff's hooks: at a session's first
// model call the briefing joins the system prompt; before a compaction,
// and when the session goes idle, the session is captured.
import { spawn } from "node:child_process"

const hooks = HOOKS

// run runs a hook with its JSON input and resolves to what it printed;
// detached, it is left running (DISPLAY may exit before it ends).
function run(event, input, detached) {
  return new Promise((resolve) => {
    let out = ""
    let child
    try {
      child = spawn("/bin/sh", ["-c", hooks[event].command], {
        stdio: ["pipe", detached ? "ignore" : "pipe", "ignore"],
        detached,
      })
    } catch {
      return resolve("")
    }
    child.on("error", () => resolve(""))
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(input))
    if (detached) {
      child.unref()
      return resolve("")
    }
    const timer = setTimeout(() => child.kill(), 30000)
    child.stdout.on("data", (d) => {
      if (out.length < 1 << 20) out += d
    })
    child.on("close", () => {
      clearTimeout(timer)
      resolve(out)
    })
  })
}

export const SessionHandoff = async ({ client, directory }) => {
  const briefings = new Map()
  const input = (sessionID, event) => ({ sessionId: sessionID, cwd: directory, hook_event_name: event })
  // A subagent's session (one with a parent) is part of its parent's:
  // neither briefed nor captured on its own.
  const subagent = async (id) => {
    try {
      const s = await client.session.get({ path: { id }, query: { directory } })
      return Boolean(s?.data?.parentID)
    } catch {
      return false
    }
  }
  return {
    "experimental.chat.system.transform": async (hook, output) => {
      const id = hook.sessionID
      if (!id) return
      if (!briefings.has(id)) {
        briefings.set(id, "")
        if (await subagent(id)) return
        const out = await run("session-start", { ...input(id, "SessionStart"), source: "startup" }, false)
        try {
          briefings.set(id, JSON.parse(out).hookSpecificOutput.additionalContext || "")
        } catch {}
      }
      const briefing = briefings.get(id)
      if (briefing) output.system.push(briefing)
    },
    "experimental.session.compacting": async (hook) => {
      if (hook.sessionID) await run("pre-compact", { ...input(hook.sessionID, "PreCompact"), trigger: "auto" }, false)
    },
    event: async ({ event }) => {
      const id = event.properties?.sessionID
      if (event.type === "session.idle" && id && !(await subagent(id))) {
        await run("session-end", input(id, "SessionEnd"), true)
      }
    },
  }
}
`

// Plugin is the plugin's text for the program of l, OpenCode or a fork
// that loads OpenCode's plugins (HookSpec.Whole).
func Plugin(l Layout) func(hooks []agent.WholeHook) []byte {
	return func(hooks []agent.WholeHook) []byte {
		r := strings.NewReplacer("DISPLAY", l.Display, "NAME", string(l.Name))
		return plugin(r.Replace(pluginTemplate), hooks)
	}
}

// plugin is the plugin's text, template running hooks.
func plugin(template string, hooks []agent.WholeHook) []byte {
	var b strings.Builder
	b.WriteString("{\n")
	for _, h := range hooks {
		key, _ := json.Marshal(h.Ours)
		entry, _ := json.Marshal(h)
		b.WriteString("  " + string(key) + ": " + string(entry) + ",\n")
	}
	b.WriteString("}")
	return []byte(strings.Replace(template, "HOOKS", b.String(), 1))
}
