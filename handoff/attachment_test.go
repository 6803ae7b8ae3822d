package handoff

import (
	"errors"
	"strings"
	"testing"
)

func TestFindAttachment(t *testing.T) {
	r := &Record{Attachments: []Attachment{
		{Name: "a.txt", SHA256: "1"}, {Name: "dup", SHA256: "2"}, {Name: "dup", SHA256: "3"}, {Name: "x\x1b[2J", SHA256: "4"},
	}}
	at, err := r.FindAttachment("a.txt")
	if err != nil || at.SHA256 != "1" {
		t.Fatalf("a.txt: %+v %v", at, err)
	}
	if _, err := r.FindAttachment("dup"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Fatalf("dup: %v", err)
	}
	_, err = r.FindAttachment("b.txt")
	if !errors.Is(err, ErrNoAttachment) || !strings.Contains(err.Error(), `"a.txt", "dup", "dup", "x\x1b[2J"`) || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("missing: %v", err)
	}
	if _, err := (&Record{}).FindAttachment("a.txt"); !errors.Is(err, ErrNoAttachment) || !strings.Contains(err.Error(), "no attachments") {
		t.Fatalf("none: %v", err)
	}
}
