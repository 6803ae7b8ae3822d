package agents_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// A file of JSON Lines with no record of the agent's is no session: every
// reader refuses it with an error that names the file once, and makes no
// digest; the older three answer ErrNoRecords.
func TestNoValidRecord(t *testing.T) {
	dir := t.TempDir()
	for i, in := range []string{"", "\n\n", "not json\n", "null\n[1]\n\"x\"\n"} {
		file := filepath.Join(dir, "in"+string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(file, []byte(in), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, a := range agents.All() {
			if a.Transcripts == nil {
				continue
			}
			d, err := a.Transcripts.Read(file, "", transcript.Limits{})
			if err == nil || d != nil || strings.Count(err.Error(), file) != 1 {
				t.Errorf("%s reading %q: %v, %v; want an error naming the file once", a.Name, in, d, err)
			} else if slices.Contains(olderAgents, a.Name) && !errors.Is(err, transcript.ErrNoRecords) {
				t.Errorf("%s reading %q: %v, want ErrNoRecords", a.Name, in, err)
			}
		}
	}
}
