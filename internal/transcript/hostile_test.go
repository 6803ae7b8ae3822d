package transcript

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileWant says what one hostile file must give each reader. A nil
// check only asks for a valid digest or a clean error.
type hostileWant struct {
	limits   Limits
	noRecord bool // every reader must answer ErrNoRecords
	check    map[Agent]func(*testing.T, *Digest)
}

var hostileCases = map[string]hostileWant{
	"overlong.jsonl": {limits: Limits{MaxLine: 1024}, check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) {
			if d.Stats.TooLong != 1 || lastRequest(d.Session) != "hello" || d.Session.LastAgentMessage != "after" {
				t.Errorf("stats %+v requests %q", d.Stats, d.Session.Requests)
			}
		},
		Codex:  func(t *testing.T, d *Digest) { wantTooLong(t, d) },
		Gemini: func(t *testing.T, d *Digest) { wantTooLong(t, d) },
	}},
	"invalid_utf8.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) {
			if c := d.Session.LastFailure; c == nil || !strings.HasPrefix(c.Command, "echo ") || c.ExitCode == nil || *c.ExitCode != 1 {
				t.Errorf("last failure %+v", c)
			}
		},
	}},
	"deep_nesting.jsonl": {},
	"wrong_types.jsonl":  {},
	"huge_numbers.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) {
			if tk := d.Session.Tokens; tk == nil || tk.Input != math.MaxInt64 || tk.Output != math.MaxInt64 || tk.CacheRead != 0 {
				t.Errorf("tokens %+v, want saturated sums and no negative counts", tk)
			}
			if c := findCommand(d.Session, "x"); c == nil || c.ExitCode != nil {
				t.Errorf("an exit code out of range is unknown: %+v", c)
			}
			if s := d.Session; s.StartedAt != nil && (s.StartedAt.Year() < 1 || s.StartedAt.Year() > 9999) {
				t.Errorf("started %v", s.StartedAt)
			}
		},
		Codex: func(t *testing.T, d *Digest) {
			if c := findCommand(d.Session, "y"); c == nil || c.ExitCode != nil {
				t.Errorf("command %+v", c)
			}
		},
	}},
	"null.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) { wantMalformed(t, d, 7) },
		Codex:      func(t *testing.T, d *Digest) { wantMalformed(t, d, 7) },
		Gemini:     func(t *testing.T, d *Digest) { wantMalformed(t, d, 7) },
	}},
	"only_null.jsonl": {noRecord: true},
	"cycle.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) {
			if got := strings.Join(d.Session.Requests, "|"); got != "in the cycle a|in the cycle c|leaf" {
				t.Errorf("requests %q", got)
			}
		},
	}},
	"garbage.bin":       {noRecord: true},
	"garbage_lines.bin": {noRecord: true},
	"empty.jsonl":       {noRecord: true},
	"blank.jsonl":       {noRecord: true},
	"bom_crlf.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) {
			if lastRequest(d.Session) != "hello" || d.CWD != "/w" || d.Stats.Malformed != 0 {
				t.Errorf("requests %q cwd %q stats %+v", d.Session.Requests, d.CWD, d.Stats)
			}
		},
		Codex: func(t *testing.T, d *Digest) {
			if d.Session.ID != "c1" || d.Stats.Malformed != 0 {
				t.Errorf("id %q stats %+v", d.Session.ID, d.Stats)
			}
		},
		Gemini: func(t *testing.T, d *Digest) {
			if lastRequest(d.Session) != "crlf" || d.Session.ID != "g1" {
				t.Errorf("requests %q id %q", d.Session.Requests, d.Session.ID)
			}
		},
	}},
	"truncated.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) { wantMalformed(t, d, 1) },
		Codex:      func(t *testing.T, d *Digest) { wantMalformed(t, d, 1) },
		Gemini:     func(t *testing.T, d *Digest) { wantMalformed(t, d, 1) },
	}},
	"duplicate_ids.jsonl": {check: map[Agent]func(*testing.T, *Digest){
		ClaudeCode: func(t *testing.T, d *Digest) {
			// Twenty copies of one line (same uuid) are one message.
			if f := findFile(d, "f"); f == nil || f.Action != "created" || f.Edits != 1 {
				t.Errorf("files %+v", d.Files)
			}
		},
		Codex: func(t *testing.T, d *Digest) {
			if c := findCommand(d.Session, "ls"); c == nil || c.Count != 20 {
				t.Errorf("commands %+v", d.Session.Commands)
			}
		},
		Gemini: func(t *testing.T, d *Digest) {
			// A rewind to an unknown id clears the conversation, as
			// Gemini CLI does.
			if got := strings.Join(d.Session.Requests, "|"); got != "after rewind" || len(d.Files) != 0 {
				t.Errorf("requests %q files %+v", got, d.Files)
			}
		},
	}},
	"legacy_broken.json": {check: map[Agent]func(*testing.T, *Digest){
		Gemini: func(t *testing.T, d *Digest) {
			if lastRequest(d.Session) != "hi" || d.Session.ID != "x" || d.Stats.Malformed == 0 {
				t.Errorf("requests %q id %q stats %+v", d.Session.Requests, d.Session.ID, d.Stats)
			}
		},
	}},
}

func wantTooLong(t *testing.T, d *Digest) {
	t.Helper()
	if d.Stats.TooLong != 1 {
		t.Errorf("stats %+v, want one line too long", d.Stats)
	}
}

func wantMalformed(t *testing.T, d *Digest, n int) {
	t.Helper()
	if d.Stats.Malformed != n {
		t.Errorf("stats %+v, want %d malformed", d.Stats, n)
	}
}

func TestHostile(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "*"))
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
		for _, agent := range Agents {
			t.Run(name+"/"+string(agent), func(t *testing.T) {
				d, err := ReadTranscript(agent, file, lim)
				if want.noRecord {
					if !errors.Is(err, ErrNoRecords) || !strings.Contains(err.Error(), name) {
						t.Fatalf("got %v, want ErrNoRecords naming the file", err)
					}
					return
				}
				if err != nil {
					if !errors.Is(err, ErrNoRecords) {
						t.Fatalf("error %v", err)
					}
					if want.check[agent] != nil {
						t.Fatalf("error %v, want a digest", err)
					}
					return
				}
				if err := CheckDigest(d); err != nil {
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
	if _, err := ReadTranscript(ClaudeCode, big, Limits{MaxFile: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over MaxFile: %v", err)
	}
	if _, err := ReadTranscript(ClaudeCode, dir, Limits{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadTranscript(ClaudeCode, filepath.Join(dir, "missing"), Limits{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadTranscript("cursor", big, Limits{}); err == nil {
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
	d, err := ReadCodex(strings.NewReader(strings.Join(ls, "\n")), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckDigest(d); err != nil {
		t.Fatal(err)
	}
	s := d.Session
	if len(s.Requests) != maxRequests || !strings.HasPrefix(s.Requests[0], "request 0 ") || !strings.HasPrefix(lastRequest(s), "last ") {
		t.Errorf("%d requests, first %.20q, last %.20q", len(s.Requests), s.Requests[0], lastRequest(s))
	}
	if len(s.Commands) != maxCommands || s.Commands[len(s.Commands)-1].Output == "" {
		t.Errorf("%d commands; the most recent must be kept", len(s.Commands))
	}
	if lf := s.LastFailure; lf == nil || len(lf.Output) > MaxFailureOutput || len(lf.Output) < MaxFailureOutput-100 || !strings.Contains(lf.Output, "bytes cut") {
		t.Errorf("last failure output: %d bytes", len(lf.Output))
	}
}
