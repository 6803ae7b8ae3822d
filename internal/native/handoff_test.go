package native

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

// TestReadHandoffTrust: the transcript of a handoff nobody vouched for is
// refused unless forced, and a forced one says so in its imported turn,
// naming the machine and the signer.
func TestReadHandoffTrust(t *testing.T) {
	src := realSession(t, "claude", "work")
	rec := &handoff.Record{ID: "01TEST", Session: &handoff.Session{Agent: "claude-code", ID: "sess-1"},
		Source:      handoff.Source{Kind: handoff.SourceImport, Machine: "laptop", Import: &handoff.Provenance{Verification: "pinned", Signer: "ana@example.com"}},
		Attachments: []handoff.Attachment{{Name: TranscriptAttachment}}}
	copyTo := func(w io.Writer) error {
		f, err := os.Open(src.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	}
	if _, err := ReadHandoff(rec, copyTo, nil, false); !errors.Is(err, ErrNotVouched) {
		t.Fatalf("not vouched, not forced: %v", err)
	}
	c, err := ReadHandoff(rec, copyTo, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	imp := c.Imported("codex")
	for _, want := range []string{"NOT vouched for", "machine: laptop", "signer: ana@example.com", "source session: sess-1", "source agent: claude-code"} {
		if !strings.Contains(imp, want) {
			t.Errorf("imported turn lacks %q:\n%s", want, imp)
		}
	}
	rec.Source = handoff.Source{Kind: handoff.SourceTranscript}
	if c, err := ReadHandoff(rec, copyTo, nil, false); err != nil || !c.Source.Vouched || strings.Contains(c.Imported("codex"), "NOT vouched") {
		t.Fatalf("a handoff made here: %v", err)
	}
	rec.Attachments = nil
	if _, err := ReadHandoff(rec, copyTo, nil, true); err == nil || !strings.Contains(err.Error(), "carries no transcript") {
		t.Fatalf("no transcript: %v", err)
	}
}
