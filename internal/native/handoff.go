package native

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// TranscriptAttachment is the name capture --attach-transcript gives the
// session's transcript in a handoff.
const TranscriptAttachment = "transcript.jsonl"

// ErrNotVouched is wrapped when a handoff is not vouched for and the
// caller did not force its conversion.
var ErrNotVouched = errors.New("not vouched for")

// Transcript is the attachment of rec that holds its session's
// transcript, if it carries one.
func Transcript(rec *handoff.Record) (handoff.Attachment, bool) {
	for _, a := range rec.Attachments {
		if a.Name == TranscriptAttachment {
			return a, true
		}
	}
	return handoff.Attachment{}, false
}

// ReadHandoff reads the conversation of the transcript rec carries,
// which copy writes out: only a handoff vouched for
// (handoff.Source.Vouched) unless force, and then marked in the imported
// turn as not vouched for. The transcript is read through the reader of
// the agent rec names, from a private temporary copy that is removed
// again.
func ReadHandoff(rec *handoff.Record, copyTo func(io.Writer) error, r *redact.Redactor, force bool) (*Conversation, error) {
	if _, ok := Transcript(rec); !ok || rec.Session == nil {
		return nil, fmt.Errorf("handoff %s carries no transcript (capture --attach-transcript adds one)", rec.ID)
	}
	vouched := rec.Source.Vouched()
	if !vouched && !force {
		return nil, fmt.Errorf("handoff %s is %w (%s): an agent would take its turns for its own; --force writes it anyway, its first turn saying so",
			rec.ID, ErrNotVouched, rec.Source.Origin())
	}
	agent, err := capture.ParseAgent(rec.Session.Agent)
	if err != nil {
		return nil, fmt.Errorf("handoff %s: %w", rec.ID, err)
	}
	dir, err := os.MkdirTemp("", "session-handoff-native-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, TranscriptAttachment)
	f, err := os.OpenFile(file, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	err = copyTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("handoff %s: copy its transcript: %w", rec.ID, err)
	}
	c, err := Read(capture.SessionInfo{Agent: agent, Path: file}, transcript.Limits{}, r)
	if err != nil {
		return nil, fmt.Errorf("handoff %s: read its transcript: %w", rec.ID, err)
	}
	c.Source.Session = untrusted.OneLine(firstNonEmpty(rec.Session.ID, c.Source.Session), 128)
	c.Source.Machine = firstNonEmpty(rec.Source.Machine, "another machine")
	c.Source.Vouched = vouched
	if p := rec.Source.Import; p != nil {
		c.Source.Signer = firstNonEmpty(p.Signer, p.Fingerprint, p.Verification)
	}
	return c, nil
}
