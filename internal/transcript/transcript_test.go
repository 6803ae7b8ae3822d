package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// A title made from a request is its first paragraph on one line, cut at
// a word within MaxTitleLine bytes: never the whole request.
func TestTitleFrom(t *testing.T) {
	long := strings.Repeat("refresh the token parser ", 10)
	for _, tc := range []struct{ in, want string }{
		{"  Fix\nthe build  ", "Fix the build"},
		{"Fix the parser\n\nHere is the stack trace:\npanic: nil map\n", "Fix the parser"},
		{"\n\n  \nSecond line first\n", "Second line first"},
		{long, strings.TrimSpace(long[:112]) + "…"},
	} {
		got := titleFrom(tc.in)
		if got != tc.want || len(got) > MaxTitleLine {
			t.Errorf("titleFrom(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
func TestMergeSubagentPaths(t *testing.T) {
	d := &Digest{CWD: "/src/proj", Files: []handoff.FileTouched{{Path: "a.go", Action: "edited", Edits: 1}},
		Session: handoff.Session{Commands: []handoff.Command{{Command: "make", Count: 1}}}}
	// A subagent whose working directory is unknown: its absolute paths
	// are made relative to the parent's too.
	mergeSubagent(d, &Digest{CWD: "", Files: []handoff.FileTouched{
		{Path: "/src/proj/a.go", Action: "edited", Edits: 2},
		{Path: "/elsewhere/b.go", Action: "created", Edits: 1},
	}, Session: handoff.Session{Commands: []handoff.Command{{Command: "go vet ./...", Count: 1}}}}, "subagent k1")
	mergeSubagent(d, &Digest{CWD: "/src/proj/sub", Files: []handoff.FileTouched{{Path: "c.go", Action: "deleted"}}}, "subagent k2")
	want := []handoff.FileTouched{
		{Path: "a.go", Action: "edited", Edits: 3},
		{Path: "/elsewhere/b.go", Action: "created", Edits: 1, By: "subagent k1"},
		{Path: "sub/c.go", Action: "deleted", By: "subagent k2"},
	}
	if len(d.Files) != len(want) {
		t.Fatalf("files %+v", d.Files)
	}
	for i := range want {
		if d.Files[i] != want[i] {
			t.Errorf("file %d: %+v, want %+v", i, d.Files[i], want[i])
		}
	}
	if got := expect.CommandNames(d.Session); got != "make|go vet ./..." || d.Session.Commands[1].By != "subagent k1" {
		t.Errorf("commands %+v", d.Session.Commands)
	}
}
func TestLineReaderAcrossBuffer(t *testing.T) {
	for _, max := range []int{10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10} {
		var in bytes.Buffer
		var want []string
		var wantLong []bool
		for _, n := range []int{0, 1, max - 1, max, max + 1, max + 2, max + 3, 64<<10 - 2, 64<<10 - 1, 64 << 10, 64<<10 + 1, 130 << 10} {
			for _, end := range []string{"\n", "\r\n"} {
				line := strings.Repeat("x", n)
				in.WriteString(line + end)
				want = append(want, line)
				wantLong = append(wantLong, n > max)
			}
		}
		in.WriteString("last")
		want = append(want, "last")
		wantLong = append(wantLong, 4 > max)
		lr := newLineReader(&in, max)
		for i := range want {
			line, long, err := lr.next()
			if err != nil {
				t.Fatalf("max %d line %d: %v", max, i, err)
			}
			if long != wantLong[i] || !long && string(line) != want[i] || lr.n != i+1 {
				t.Fatalf("max %d line %d: %d bytes long=%v n=%d, want %d bytes long=%v", max, i, len(line), long, lr.n, len(want[i]), wantLong[i])
			}
		}
		if _, _, err := lr.next(); err == nil {
			t.Fatalf("max %d: no EOF", max)
		}
	}
}

// The Builder keeps every message the agent said, parts with one id
// joined, beside the digest (Digest.Said), and the digest's JSON is what
// it was: Said is no part of it.
func TestBuilderKeepsEveryMessage(t *testing.T) {
	b := NewBuilder()
	b.Request("do it")
	b.AgentMessage("m1", "first part")
	b.AgentMessage("m1", "second part")
	b.AgentMessage("m2", "")
	b.AgentMessage("m3", "last")
	d := b.Fold()
	if want := []string{"first part\n\nsecond part", "last"}; !slices.Equal(d.Said, want) {
		t.Errorf("Said = %q, want %q", d.Said, want)
	}
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("first part")) {
		t.Errorf("the digest's JSON carries an earlier message: %s", raw)
	}
}
