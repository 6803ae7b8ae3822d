package capture

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/redact"
)

// A failed edit's error is the tool's answer, which may quote the file's
// text: a secret in it is redacted like a command's output.
func TestRedactRecordFailedEdits(t *testing.T) {
	secret := "AKIA" + strings.Repeat("Q7", 8)
	rec := &handoff.Record{Session: &handoff.Session{FailedEdits: []handoff.FailedEdit{{Path: "env.sh", Count: 1,
		Error: "Could not find an exact match for 'export AWS_ACCESS_KEY_ID=" + secret + "'"}}}}
	rep := &redact.Report{}
	redactRecord(redact.Default(), rec, rep)
	if e := rec.Session.FailedEdits[0].Error; strings.Contains(e, secret) {
		t.Errorf("the secret survives: %q", e)
	}
}
