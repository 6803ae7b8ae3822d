package codex

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Codex edits files in three ways the reader must all see (issue 17, item
// 1): a patch run through the shell under either name, often as a
// heredoc; patch_apply_end's changes, exact paths and moves, for patches
// whose text was not read; and a freeform custom_tool_call named shell.
// The record shapes follow openai/codex's rollout items (response_item
// function_call / custom_tool_call, event_msg patch_apply_end with
// changes keyed by absolute path, FileChange add/update/delete).
func TestCodexPatchesAllCount(t *testing.T) {
	lines := []string{
		`{"timestamp":"2026-05-11T08:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/w/app","cli_version":"0.128.0"}}`,
		`{"timestamp":"2026-05-11T08:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the parser"}]}}`,
		// applypatch as a heredoc through the shell tool.
		`{"timestamp":"2026-05-11T08:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"c1","arguments":"{\"command\":[\"bash\",\"-lc\",\"applypatch <<'PATCH'\\n*** Begin Patch\\n*** Update File: parser.go\\n@@\\n-a\\n+b\\n*** Add File: parser_test.go\\n+package p\\n*** End Patch\\nPATCH\"],\"workdir\":\"/w/app\"}"}}`,
		`{"timestamp":"2026-05-11T08:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"Success\",\"metadata\":{\"exit_code\":0}}"}}`,
		// Its patch_apply_end repeats the same files: not counted twice.
		`{"timestamp":"2026-05-11T08:00:03Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c1","success":true,"changes":{"/w/app/parser.go":{"type":"update","unified_diff":"@@","move_path":null},"/w/app/parser_test.go":{"type":"add","content":"package p"}}}}`,
		// A patch whose text this reader never saw: its changes count,
		// a move included.
		`{"timestamp":"2026-05-11T08:00:04Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c2","success":true,"changes":{"/w/app/old.go":{"type":"update","unified_diff":"@@","move_path":"/w/app/new.go"},"/w/app/gone.go":{"type":"delete","content":"x"}}}}`,
		// A failed patch changes nothing.
		`{"timestamp":"2026-05-11T08:00:05Z","type":"event_msg","payload":{"type":"patch_apply_end","call_id":"c3","success":false,"stderr":"context mismatch","changes":{"/w/app/never.go":{"type":"update","unified_diff":"@@"}}}}`,
		// A freeform shell tool.
		`{"timestamp":"2026-05-11T08:00:06Z","type":"response_item","payload":{"type":"custom_tool_call","name":"shell","call_id":"c4","input":"go test ./..."}}`,
		`{"timestamp":"2026-05-11T08:00:07Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c4","output":"Exit code: 0\nok"}}`,
	}
	text := strings.Join(lines, "\n") + "\n"
	d, err := codex(text)
	if err != nil {
		t.Fatal(err)
	}
	checkCodexPatches(t, d)
}

func checkCodexPatches(t *testing.T, d *transcript.Digest) {
	t.Helper()
	want := map[string]string{"parser.go": "edited", "parser_test.go": "created", "old.go": "deleted", "new.go": "created", "gone.go": "deleted"}
	got := map[string]string{}
	for _, f := range d.Files {
		got[f.Path] = f.Action
		if f.Edits > 1 {
			t.Errorf("%s: %d edits, want 1 (no patch counted twice)", f.Path, f.Edits)
		}
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	for p, a := range want {
		if got[p] != a {
			t.Errorf("%s: %q, want %q (all: %v)", p, got[p], a, got)
		}
	}
	var cmds []string
	for _, c := range d.Session.Commands {
		cmds = append(cmds, c.Command)
		if strings.Contains(c.Command, "Begin Patch") {
			t.Errorf("a patch body shown as a command: %q", c.Command)
		}
	}
	if len(cmds) != 1 || cmds[0] != "go test ./..." {
		t.Errorf("commands %q, want only the freeform shell's", cmds)
	}
}

// Codex's remote compaction leaves an empty message and an encrypted
// history (issue 17, item 8): the handoff still says that, and when, the
// context was compacted.
func TestCodexRemoteCompaction(t *testing.T) {
	text := strings.Join([]string{
		`{"timestamp":"2026-05-11T08:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/w/app","cli_version":"0.128.0"}}`,
		`{"timestamp":"2026-05-11T08:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go on"}]}}`,
		`{"timestamp":"2026-05-11T09:30:00Z","type":"compacted","payload":{"message":"","replacement_history":[{"type":"compaction","encrypted_content":"gAAAA"}]}}`,
		`{"timestamp":"2026-05-11T09:30:00Z","type":"event_msg","payload":{"type":"context_compacted"}}`,
	}, "\n") + "\n"
	d, err := codex(text)
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Session.CompactionSummary; !strings.Contains(c, "compacted at 2026-05-11T09:30:00Z") || strings.Contains(c, "gAAAA") {
		t.Errorf("compaction %q, want when it happened and nothing encrypted", c)
	}
}

// A patch Codex refused to apply (its output is the refusal, sent to the
// model in place of a result) changed nothing: its file is no edit
// (issue 45: the briefing said "edited … (clean)").
func TestCodexRefusedPatchIsNoEdit(t *testing.T) {
	for _, out := range []string{
		`apply_patch verification failed: Failed to find expected lines in /w/app/x.go:\nfunc old() {}`,
		`patch rejected: empty patch`,
	} {
		lines := []string{
			`{"timestamp":"2026-05-11T08:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/w/app","cli_version":"0.171.0"}}`,
			`{"timestamp":"2026-05-11T08:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix x"}]}}`,
			`{"timestamp":"2026-05-11T08:00:02Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"p1","input":"*** Begin Patch\n*** Update File: x.go\n@@\n-func old() {}\n+func new() {}\n*** End Patch"}}`,
			`{"timestamp":"2026-05-11T08:00:03Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"p1","output":"` + out + `"}}`,
			`{"timestamp":"2026-05-11T08:00:04Z","type":"response_item","payload":{"type":"function_call","name":"apply_patch","call_id":"p2","arguments":"{\"input\":\"*** Begin Patch\\n*** Add File: y.go\\n+package y\\n*** End Patch\"}"}}`,
			`{"timestamp":"2026-05-11T08:00:05Z","type":"response_item","payload":{"type":"function_call_output","call_id":"p2","output":"Success. Updated the following files:\nA y.go"}}`,
		}
		d, err := codex(strings.Join(lines, "\n") + "\n")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range d.Files {
			got = append(got, f.Action+" "+f.Path)
		}
		if strings.Join(got, ",") != "created y.go" {
			t.Errorf("%.30s: files %q, want the applied patch's y.go alone", out, got)
		}
	}
}
