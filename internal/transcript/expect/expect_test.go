package expect

import (
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// An expectation that leaves out what the transcript holds of a file's
// kind, of who changed it, or of a failed edit fails: every real
// transcript's table must state them.
func TestCompareHoldsKindsAttributionAndFailedEdits(t *testing.T) {
	got := Got{Title: "t", Session: handoff.Session{Requests: []string{"r"},
		FailedEdits: []handoff.FailedEdit{{Path: "keep.txt", Count: 1, Error: "not found"}}},
		Files: []handoff.FileTouched{{Path: "gone.txt", Action: "deleted"}, {Path: "sub.txt", Action: "created", Edits: 1, By: "subagent s1"}}}
	full := Want{Title: "t", Requests: []string{"r"},
		Files:       map[string]File{"gone.txt": {Action: "deleted"}, "sub.txt": {Action: "created", Edits: 1, By: "subagent s1"}},
		FailedEdits: map[string]FailedEdit{"keep.txt": {Count: 1}}}
	if ms := Compare(got, full, Marks{}); len(ms) != 0 {
		t.Fatalf("the full expectation: %+v", ms)
	}
	for name, w := range map[string]Want{
		"no failed edits": {Title: "t", Requests: []string{"r"}, Files: full.Files},
		"no attribution": {Title: "t", Requests: []string{"r"}, FailedEdits: full.FailedEdits,
			Files: map[string]File{"gone.txt": {Action: "deleted"}, "sub.txt": {Action: "created", Edits: 1}}},
		"another kind": {Title: "t", Requests: []string{"r"}, FailedEdits: full.FailedEdits,
			Files: map[string]File{"gone.txt": {Action: "edited"}, "sub.txt": full.Files["sub.txt"]}},
		"another author": {Title: "t", Requests: []string{"r"}, Files: full.Files,
			FailedEdits: map[string]FailedEdit{"keep.txt": {Count: 1, By: "subagent s1"}}},
	} {
		if ms := Compare(got, w, Marks{}); len(ms) == 0 {
			t.Errorf("%s: no mismatch", name)
		}
	}
}
