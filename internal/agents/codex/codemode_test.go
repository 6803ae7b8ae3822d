package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// readCodexEach reads a rollout as Read does, in its two passes, and
// gives the digest by the way it was read. (The reader in
// internal/transcript also read a rollout it could not read twice in one
// pass; Read always can.)
func readCodexEach(t *testing.T, data string) map[string]*transcript.Digest {
	t.Helper()
	d, err := codex(data)
	if err != nil {
		t.Fatalf("in passes: %v", err)
	}
	return map[string]*transcript.Digest{"in passes": d}
}

// codexCodeMode is a rollout built for this project from openai/codex's
// sources (testdata/transcripts/SOURCES.md): two code-mode exec calls
// whose scripts run exec_command and apply_patch through the global tools
// object, in a rollout that keeps no event of those nested calls.
const codexCodeMode = "rollout-2026-11-20T10-00-00-44444444-4444-4444-8444-444444444444.jsonl"

// codeModeExpectation is what the code-mode sample holds: its request,
// the files its patch changed and the three commands its scripts ran, of
// which the rollout tells no outcome.
var codeModeExpectation = expect.Want{
	Title:    "fix the checkout total rounding and run the tests",
	Requests: []string{"fix the checkout total rounding and run the tests"},
	Files: map[string]expect.File{
		"checkout/total.go":      {Action: "edited", Edits: 1},
		"checkout/round_test.go": {Action: "created", Edits: 1},
	},
	NumCommands: 3, Commands: []expect.Command{
		{Prefix: "git status --short", Count: 1, Status: "unknown"},
		{Prefix: "go test ./checkout/...", Count: 1, Status: "unknown"},
		{Prefix: "go test ./checkout/... && go vet ./checkout/", Count: 1, Status: "unknown"},
	}}

func readCodeModeSample(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(samplesDir, "codex", codexCodeMode))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The commands and patches a code-mode script runs are read from the
// script when the rollout keeps nothing else of them: string literals
// only (a command built with ${…} or held in a variable is not guessed),
// calls in comments are no calls, and how each ended is unknown.
func TestCodexCodeModeExec(t *testing.T) {
	for name, d := range readCodexEach(t, readCodeModeSample(t)) {
		t.Run(name, func(t *testing.T) {
			checkReal(t, d, codeModeExpectation)
			for _, c := range d.Session.Commands {
				if strings.Contains(c.Command, "rm -rf") || strings.HasPrefix(c.Command, "ls") {
					t.Errorf("command %q read from a comment or a template with ${…}", c.Command)
				}
			}
		})
	}
}

// When the rollout also keeps the nested calls' own records (0.169's
// item_completed CommandExecution items, patch_apply_end), those are
// read, with their exit codes, and the script is not read again: nothing
// counts twice.
func TestCodexCodeModeExecNestedRecords(t *testing.T) {
	data := readCodeModeSample(t)
	patch := `{"timestamp":"2026-11-20T10:00:09.000Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"exec-7f9c0b1e-0000-4000-8000-000000000003","success":true,"stdout":"Success.","stderr":"","changes":{"/home/dev/shop/checkout/total.go":{"type":"update","unified_diff":""},"/home/dev/shop/checkout/round_test.go":{"type":"add","content":"package checkout\n"}}}}`
	// The nested commands' records, as 0.169.0 writes them (completed
	// items) and as an extended-persistence rollout does (exec_command_end).
	item := func(n int, cmd string, exit int, status string) string {
		return fmt.Sprintf(`{"timestamp":"2026-11-20T10:00:0%d.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"exec-7f9c0b1e-0000-4000-8000-00000000000%d","command":["/bin/bash","-lc",%q],"cwd":"/home/dev/shop","status":%q,"exit_code":%d,"aggregated_output":"out\n"}}}`, n, n, cmd, status, exit)
	}
	end := func(n int, cmd string, exit int, status string) string {
		return fmt.Sprintf(`{"timestamp":"2026-11-20T10:00:0%d.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"exec-7f9c0b1e-0000-4000-8000-00000000000%d","command":["/bin/bash","-lc",%q],"cwd":"/home/dev/shop","exit_code":%d,"aggregated_output":"out\n","status":%q}}`, n, n, cmd, exit, status)
	}
	for form, rec := range map[string]func(int, string, int, string) string{"completed items": item, "exec_command_end": end} {
		nested := map[string]string{
			"call_exec_1": rec(4, "git status --short", 0, "completed") + "\n" + rec(5, "go test ./checkout/...", 1, "failed"),
			"call_exec_2": patch + "\n" + rec(6, "go test ./checkout/... && go vet ./checkout/", 0, "completed"),
		}
		var lines []string
		for _, line := range strings.SplitAfter(data, "\n") {
			if line == "" {
				continue
			}
			lines = append(lines, line)
			for call, add := range nested {
				if strings.Contains(line, `"type":"custom_tool_call","status":"completed","call_id":"`+call+`"`) {
					lines = append(lines, add+"\n")
				}
			}
		}
		if len(lines) != strings.Count(data, "\n")+2 {
			t.Fatalf("the nested records were not put in (%d lines)", len(lines))
		}
		for name, d := range readCodexEach(t, strings.Join(lines, "")) {
			t.Run(form+"/"+name, func(t *testing.T) {
				want := codeModeExpectation
				want.Commands = []expect.Command{
					{Prefix: "git status --short", Exit: expect.Exit(0), Count: 1, Status: "ok"},
					{Prefix: "go test ./checkout/...", Exit: expect.Exit(1), Count: 1, Status: "failed"},
					{Prefix: "go test ./checkout/... && go vet ./checkout/", Exit: expect.Exit(0), Count: 1, Status: "ok"},
				}
				checkReal(t, d, want)
			})
		}
	}
}

func TestCodeModeCalls(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string // name=argument (the command, the patch, or "?" for none)
	}{
		{`await tools.exec_command({cmd: "a \"b\" \u0063\n"});`, []string{"exec_command=a \"b\" c\n"}},
		{`tools.exec_command({'cmd': 'x', workdir: "/w", yield_time_ms: 1000})`, []string{"exec_command=x"}},
		{`tools.exec_command({yield_time_ms: f(1, {a: 2}), cmd: "late"})`, []string{"exec_command=late"}},
		{`tools.exec_command({cmd})`, []string{"exec_command=?"}},
		{`tools.exec_command({cmd: "a" + b})`, []string{"exec_command=?"}},
		{`tools.exec_command(args)`, nil},
		{`tools.apply_patch("*** Begin Patch\n*** End Patch\n")`, []string{"apply_patch=*** Begin Patch\n*** End Patch\n"}},
		{"tools.apply_patch(`p ${x}`)", nil},
		{`tools.shell({command: ["bash", "-lc", "make"]})`, []string{"shell=make"}},
		{`/* tools.exec_command({cmd: "no"}) */ "tools.exec_command({cmd: 'no'})"; x.tools.exec_command({cmd: "no"})`, nil},
		{`tools . exec_command ( { cmd : "spaced" } )`, []string{"exec_command=spaced"}},
		{`tools.exec_command({cmd: "unterminated`, nil},
		{`tools.exec_command({cmd: "a"}); tools.mcp__srv__tool({q: "x"})`, []string{"exec_command=a", "mcp__srv__tool=?"}},
	} {
		var got []string
		for _, c := range codeModeCalls(tc.src) {
			arg := c.str
			if !c.isStr {
				arg = transcript.FirstNonEmpty(commandString(firstValue(c.obj, "cmd", "command")), "?")
			}
			got = append(got, c.name+"="+arg)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: %q, want %q", tc.src, got, tc.want)
		}
	}
}

// FuzzCodeModeCalls: any script is read to its end, in bounds.
func FuzzCodeModeCalls(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join(samplesDir, "codex", codexCodeMode)); err == nil {
		f.Add(string(data))
	}
	for _, s := range []string{"tools.exec_command({cmd: `a${", `tools.x({"a":[`, `tools.x('\`, "/*", `tools.y({a: {b: [1, "2"]}, c: '3'})`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		calls := codeModeCalls(src)
		if len(calls) > maxCodeModeCalls {
			t.Fatalf("%d calls", len(calls))
		}
		for _, c := range calls {
			if c.name == "" || len(c.str) > len(src) {
				t.Fatalf("call %+v", c)
			}
		}
	})
}

// Codex 0.169.0's own line types, world_state (the environment given to
// the model: AGENTS.md, skills, cwd, date) and token_usage_record (each
// response's tokens; the totals come from token_count), are known and
// skipped; a line of a type nobody knows is still counted and named.
func TestCodexKnownLineTypes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realE2EDir, "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Codex rollouts under %s: %v", realE2EDir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `"type":"world_state"`) || !strings.Contains(string(data), `"type":"token_usage_record"`) {
			t.Fatalf("%s holds no world_state or token_usage_record line", f)
		}
		in := string(data) + `{"timestamp":"2026-11-27T09:30:00.000Z","type":"future_rollout_line","payload":{}}` + "\n"
		for name, d := range readCodexEach(t, in) {
			if d.Stats.Unknown != 1 || d.Stats.UnknownTypes["future_rollout_line"] != 1 {
				t.Errorf("%s %s: unknown %d %v, want future_rollout_line alone", f, name, d.Stats.Unknown, d.Stats.UnknownTypes)
			}
		}
	}
}

// A forked subagent's rollout opens with its parent's events: an
// exec_command_end of a call it does not hold is its parent's command,
// not one more of its own.
func TestCodexSubagentKeepsNoParentCommand(t *testing.T) {
	in := expect.Lines(
		`{"timestamp":"2026-11-20T10:00:00.000Z","type":"session_meta","payload":{"id":"child","cwd":"/w","cli_version":"0.154.0","source":{"subagent":{"thread_spawn":{"parent_thread_id":"parent"}}}}}`,
		`{"timestamp":"2026-11-20T10:00:01.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"call_parent","command":["/bin/bash","-lc","make"],"exit_code":0,"aggregated_output":"","status":"completed"}}`,
		`{"timestamp":"2026-11-20T10:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go vet ./...\"}","call_id":"call_child"}}`,
		`{"timestamp":"2026-11-20T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_child","output":"Process exited with code 0"}}`,
	)
	for name, d := range readCodexEach(t, in) {
		if got := d.Session.Commands; len(got) != 1 || got[0].Command != "go vet ./..." {
			t.Errorf("%s: commands %+v, want the subagent's own alone", name, got)
		}
	}
}
