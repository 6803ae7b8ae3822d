package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// TestShowNeverSaysAnUnreadPatchIsNone: show of an imported handoff whose
// changes.patch cannot be read (damaged here; one over changes.MaxPatch,
// as a bundle may bring, alike) says it carries a patch that was not
// read, never that its uncommitted files stayed on the other machine
// (issue 49).
func TestShowNeverSaysAnUnreadPatchIsNone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := store.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	patch := []byte("not a session-handoff patch\n")
	sha, size, err := s.PutBlob(bytes.NewReader(patch), 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := handoff.New(time.Now(), "codex", "Imported, with changes")
	if err != nil {
		t.Fatal(err)
	}
	rec.Source = handoff.Source{Kind: handoff.SourceImport, Import: &handoff.Provenance{BundleID: strings.Repeat("ab", 16), ImportedAt: time.Now().UTC(), Verification: "unsigned"}}
	rec.Git = &handoff.GitState{Root: "/elsewhere/app", Branch: "main", Untracked: []string{"big.txt"}}
	rec.Attachments = []handoff.Attachment{{Name: "changes.patch", MediaType: handoff.ChangesMediaType, SHA256: sha, Size: size}}
	if err := rec.Normalize(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(rec, false); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := newTestApp(context.Background(), strings.NewReader(""), &out, &errb, map[string]string{"SESSION_HANDOFF_HOME": t.TempDir()})
	if code := a.execute([]string{"show", string(rec.ID), "--store", dir}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if strings.Contains(out.String(), "stayed on the machine") || !strings.Contains(out.String(), "changes.patch could not be read") {
		t.Errorf("show of an unread patch:\n%s\n%s", out.String(), errb.String())
	}
}
