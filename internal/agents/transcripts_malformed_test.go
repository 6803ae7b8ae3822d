package agents_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// Lines that are no JSON object are counted as malformed, and the first
// MaxMalformedLines of them listed by number, by every reader of JSON
// Lines alike; a line of another agent's is no malformed line.
func TestMalformedLines(t *testing.T) {
	var ls []string
	ls = append(ls, `{"type":"user","uuid":"u","message":{"content":"hi"}}`, "", "not json", `{"type":"user"`, "   ", "[1]")
	for range 150 {
		ls = append(ls, "garbage")
	}
	file := filepath.Join(t.TempDir(), "malformed.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(ls, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, agent := range olderAgents {
		d, err := readAs(agent, file, transcript.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
		st := d.Stats
		if st.Malformed != 153 || len(st.MalformedLines) != transcript.MaxMalformedLines {
			t.Fatalf("%s: %d malformed, %d listed", agent, st.Malformed, len(st.MalformedLines))
		}
		want := []int{3, 4, 6, 7, 8}
		if !slices.Equal(st.MalformedLines[:5], want) || st.MalformedLines[99] != 103 {
			t.Errorf("%s: malformed lines %v…%d, want %v…103", agent, st.MalformedLines[:5], st.MalformedLines[99], want)
		}
	}
}
