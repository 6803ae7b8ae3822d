package cline

import (
	"encoding/json"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
)

// Cline CLI 3.0.65 runs hook files (~/.cline/hooks/TaskStart and the
// like), but a TaskStart or UserPromptSubmit hook runs without being
// waited for, and what it prints never reaches the model
// (createHookConfigFileHooks of @cline/core 0.0.86: run-start hooks block
// only when the host sets blockingRunStartHooks, which the CLI never
// does; checked offline: a TaskStart hook's contextModification was not
// in the model's request). A code plugin can: its beforeRun hook's
// appendContext reaches the model's first request as
// <hook_context source="RunStart">…</hook_context>. So session-handoff's
// hooks for Cline are one plugin, which Cline loads from the project's
// .cline/plugins/ or the user's ~/.cline/plugins/ (sdk/examples/plugins,
// README): beforeRun runs our session-start hook and hands its briefing
// over; afterRun starts our session-end hook in a process of its own and
// returns (a plugin's hook has 3 seconds).

// hookSpec is where integrate installs Cline's plugin, and which of our
// hooks it runs.
var hookSpec = agent.HookSpec{
	ProjectSettings: ".cline/plugins/session-handoff.ts",
	UserSettings:    ".cline/plugins/session-handoff.ts",
	Events: []agent.HookEvent{
		{Ours: "session-start", Theirs: "beforeRun"},
		{Ours: "session-end", Theirs: "afterRun"},
	},
	Whole: pluginSource,
	Docs:  "@cline/core 0.0.86 (hooks/hook-file-hooks.ts; AgentPlugin in @cline/shared extensions/contribution-registry.d.ts); cline/sdk/examples/plugins",
}

// pluginSource is the plugin, running hooks: each hook a JSON object
// with its "command", as in the settings files of the other agents, so
// that integrate and doctor find the program it runs. The hooks get
// {"sessionId", "cwd"} on stdin: the session's id and workspace from the
// plugin's setup context.
func pluginSource(hooks []agent.WholeHook) []byte {
	byOurs := map[string]agent.WholeHook{}
	for _, h := range hooks {
		byOurs[h.Ours] = h
	}
	cmds, err := json.MarshalIndent(byOurs, "", "  ")
	if err != nil {
		panic(err) // strings and ints marshal
	}
	return []byte(strings.Replace(pluginTemplate, "COMMANDS", string(cmds), 1))
}

const pluginTemplate = `// session-handoff's hooks for Cline: written by 'session-handoff integrate
// cline', removed by 'session-handoff integrate cline --remove'. At the start
// of a run it briefs the model on the project's last handoff; at its end it
// captures the session into the handoff store.
import { execFileSync, spawn } from "node:child_process";

const hooks: Record<string, { command: string }> = COMMANDS;

let input = "{}";

const plugin = {
	name: "session-handoff",
	manifest: { capabilities: ["hooks"] },
	setup(_api: unknown, ctx: { session?: { sessionId?: string }; workspaceInfo?: { rootPath?: string } }) {
		input = JSON.stringify({ sessionId: ctx?.session?.sessionId ?? "", cwd: ctx?.workspaceInfo?.rootPath ?? process.cwd() });
	},
	hooks: {
		beforeRun() {
			try {
				const out = execFileSync("/bin/sh", ["-c", hooks["session-start"].command], { input, encoding: "utf8", timeout: 2500, stdio: ["pipe", "pipe", "ignore"] });
				const text = JSON.parse(out)?.hookSpecificOutput?.additionalContext;
				return typeof text === "string" && text.trim() !== "" ? { appendContext: text } : undefined;
			} catch {
				return undefined;
			}
		},
		afterRun() {
			try {
				const child = spawn("/bin/sh", ["-c", hooks["session-end"].command], { detached: true, stdio: ["pipe", "ignore", "ignore"] });
				child.stdin?.end(input);
				child.unref();
			} catch {
				// the capture is best effort: the run is over
			}
		},
	},
};

export { plugin };
export default plugin;
`
