package agents_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// hostileWant says what one hostile file must give each reader. A nil
// check only asks for a valid digest or a clean error.
type hostileWant struct {
	limits   transcript.Limits
	noRecord bool // every reader must answer transcript.ErrNoRecords
	check    map[string]func(*testing.T, *transcript.Digest)
}

var hostileCases = map[string]hostileWant{
	"overlong.jsonl": {limits: transcript.Limits{MaxLine: 1024}, check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) {
			if d.Stats.TooLong != 1 || expect.LastRequest(d.Session) != "hello" || d.Session.LastAgentMessage != "after" {
				t.Errorf("stats %+v requests %q", d.Stats, d.Session.Requests)
			}
		},
		agents.Codex:  func(t *testing.T, d *transcript.Digest) { wantTooLong(t, d) },
		agents.Gemini: func(t *testing.T, d *transcript.Digest) { wantTooLong(t, d) },
	}},
	"invalid_utf8.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) {
			if c := d.Session.LastFailure; c == nil || !strings.HasPrefix(c.Command, "echo ") || c.ExitCode == nil || *c.ExitCode != 1 {
				t.Errorf("last failure %+v", c)
			}
		},
	}},
	"deep_nesting.jsonl": {},
	"wrong_types.jsonl":  {},
	"huge_numbers.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) {
			if tk := d.Session.Tokens; tk == nil || tk.Input != math.MaxInt64 || tk.Output != math.MaxInt64 || tk.CacheRead != 0 {
				t.Errorf("tokens %+v, want saturated sums and no negative counts", tk)
			}
			if c := expect.CommandNamed(d.Session.Commands, "x"); c == nil || c.ExitCode != nil {
				t.Errorf("an exit code out of range is unknown: %+v", c)
			}
			if s := d.Session; s.StartedAt != nil && (s.StartedAt.Year() < 1 || s.StartedAt.Year() > 9999) {
				t.Errorf("started %v", s.StartedAt)
			}
		},
		agents.Codex: func(t *testing.T, d *transcript.Digest) {
			if c := expect.CommandNamed(d.Session.Commands, "y"); c == nil || c.ExitCode != nil {
				t.Errorf("command %+v", c)
			}
		},
	}},
	"null.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) { wantMalformed(t, d, 7) },
		agents.Codex:      func(t *testing.T, d *transcript.Digest) { wantMalformed(t, d, 7) },
		agents.Gemini:     func(t *testing.T, d *transcript.Digest) { wantMalformed(t, d, 7) },
	}},
	"only_null.jsonl": {noRecord: true},
	"cycle.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) {
			if got := strings.Join(d.Session.Requests, "|"); got != "in the cycle a|in the cycle c|leaf" {
				t.Errorf("requests %q", got)
			}
		},
	}},
	"garbage.bin":       {noRecord: true},
	"garbage_lines.bin": {noRecord: true},
	"empty.jsonl":       {noRecord: true},
	"blank.jsonl":       {noRecord: true},
	"bom_crlf.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) {
			if expect.LastRequest(d.Session) != "hello" || d.CWD != "/w" || d.Stats.Malformed != 0 {
				t.Errorf("requests %q cwd %q stats %+v", d.Session.Requests, d.CWD, d.Stats)
			}
		},
		agents.Codex: func(t *testing.T, d *transcript.Digest) {
			if d.Session.ID != "c1" || d.Stats.Malformed != 0 {
				t.Errorf("id %q stats %+v", d.Session.ID, d.Stats)
			}
		},
		agents.Gemini: func(t *testing.T, d *transcript.Digest) {
			if expect.LastRequest(d.Session) != "crlf" || d.Session.ID != "g1" {
				t.Errorf("requests %q id %q", d.Session.Requests, d.Session.ID)
			}
		},
	}},
	"truncated.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) { wantMalformed(t, d, 1) },
		agents.Codex:      func(t *testing.T, d *transcript.Digest) { wantMalformed(t, d, 1) },
		agents.Gemini:     func(t *testing.T, d *transcript.Digest) { wantMalformed(t, d, 1) },
	}},
	"duplicate_ids.jsonl": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.ClaudeCode: func(t *testing.T, d *transcript.Digest) {
			// Twenty copies of one line (same uuid) are one message.
			if f := expect.FileAt(d.Files, "f"); f == nil || f.Action != "created" || f.Edits != 1 {
				t.Errorf("files %+v", d.Files)
			}
		},
		agents.Codex: func(t *testing.T, d *transcript.Digest) {
			if c := expect.CommandNamed(d.Session.Commands, "ls"); c == nil || c.Count != 20 {
				t.Errorf("commands %+v", d.Session.Commands)
			}
		},
		agents.Gemini: func(t *testing.T, d *transcript.Digest) {
			// A rewind to an unknown id clears the conversation, as
			// Gemini CLI does.
			if got := strings.Join(d.Session.Requests, "|"); got != "after rewind" || len(d.Files) != 0 {
				t.Errorf("requests %q files %+v", got, d.Files)
			}
		},
	}},
	"legacy_broken.json": {check: map[string]func(*testing.T, *transcript.Digest){
		agents.Gemini: func(t *testing.T, d *transcript.Digest) {
			if expect.LastRequest(d.Session) != "hi" || d.Session.ID != "x" || d.Stats.Malformed == 0 {
				t.Errorf("requests %q id %q stats %+v", d.Session.Requests, d.Session.ID, d.Stats)
			}
		},
	}},
}

func wantTooLong(t *testing.T, d *transcript.Digest) {
	t.Helper()
	if d.Stats.TooLong != 1 {
		t.Errorf("stats %+v, want one line too long", d.Stats)
	}
}

func wantMalformed(t *testing.T, d *transcript.Digest, n int) {
	t.Helper()
	if d.Stats.Malformed != n {
		t.Errorf("stats %+v, want %d malformed", d.Stats, n)
	}
}

func TestHostile(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "transcript", "testdata", "hostile", "*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		name := filepath.Base(file)
		want, ok := hostileCases[name]
		if !ok {
			t.Errorf("%s: no entry in hostileCases", name)
			continue
		}
		seen[name] = true
		lim := want.limits
		if lim.MaxLine == 0 {
			lim.MaxLine = 256 << 10
		}
		for _, agent := range olderAgents {
			t.Run(name+"/"+agent, func(t *testing.T) {
				d, err := readAs(agent, file, lim)
				if want.noRecord {
					if !errors.Is(err, transcript.ErrNoRecords) || !strings.Contains(err.Error(), name) {
						t.Fatalf("got %v, want transcript.ErrNoRecords naming the file", err)
					}
					return
				}
				if err != nil {
					if !errors.Is(err, transcript.ErrNoRecords) {
						t.Fatalf("error %v", err)
					}
					if want.check[agent] != nil {
						t.Fatalf("error %v, want a digest", err)
					}
					return
				}
				if err := transcript.CheckDigest(d); err != nil {
					t.Errorf("invalid digest: %v", err)
				}
				if c := want.check[agent]; c != nil {
					c(t, d)
				}
			})
		}
	}
	for name := range hostileCases {
		if !seen[name] {
			t.Errorf("hostileCases names %s, which is not in testdata/hostile", name)
		}
	}
}

func TestReadTranscriptRefuses(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(big, []byte(strings.Repeat(`{"type":"user"}`+"\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readAs(agents.ClaudeCode, big, transcript.Limits{MaxFile: 100}); !errors.Is(err, transcript.ErrTooLarge) {
		t.Errorf("over MaxFile: %v", err)
	}
	if _, err := readAs(agents.ClaudeCode, dir, transcript.Limits{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := readAs(agents.ClaudeCode, filepath.Join(dir, "missing"), transcript.Limits{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := capture.ReadTranscript("cursor", big, transcript.Limits{}); err == nil {
		t.Error("an unknown agent was accepted")
	}
}

func TestBounds(t *testing.T) {
	huge := strings.Repeat("é", 40<<10) // 80 KiB of two-byte characters
	var ls []string
	ls = append(ls, `{"type":"session_meta","payload":{"id":"s","cwd":"/r"}}`)
	for i := range 600 {
		ls = append(ls, fmt.Sprintf(`{"type":"event_msg","payload":{"type":"user_message","message":"request %d %s"}}`, i, huge[:2000]))
	}
	for i := range 1200 {
		ls = append(ls, fmt.Sprintf(`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cmd-%d\"}","call_id":"c%d"}}`, i, i))
	}
	ls = append(ls,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"`+huge+`\"}","call_id":"big"}}`,
		`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"big","exit_code":2,"aggregated_output":"`+huge+`"}}`,
		`{"type":"event_msg","payload":{"type":"agent_message","message":"`+huge+`"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"last `+huge+`"}}`,
	)
	file := filepath.Join(t.TempDir(), "bounds.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(ls, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := readAs(agents.Codex, file, transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := transcript.CheckDigest(d); err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if len(s.Requests) != schemaMaxRequests || !strings.HasPrefix(s.Requests[0], "request 0 ") || !strings.HasPrefix(expect.LastRequest(s), "last ") {
		t.Errorf("%d requests, first %.20q, last %.20q", len(s.Requests), s.Requests[0], expect.LastRequest(s))
	}
	if len(s.Commands) != schemaMaxCommands || s.Commands[len(s.Commands)-1].Output == "" {
		t.Errorf("%d commands; the most recent must be kept", len(s.Commands))
	}
	if lf := s.LastFailure; lf == nil || len(lf.Output) > transcript.MaxFailureOutput || len(lf.Output) < transcript.MaxFailureOutput-100 || !strings.Contains(lf.Output, "bytes cut") {
		t.Errorf("last failure output: %d bytes", len(lf.Output))
	}
}
