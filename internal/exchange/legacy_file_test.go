package exchange

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

func TestImportLegacyFile(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(`{"version":1,"items":[{"id":"h-42","created_at":"2025-06-01T10:20:30Z","tool":"Codex","project":"/src/app","title":"Refactor auth","summary":"Parser extracted"}]}`)
	res, err := ImportLegacyFile(context.Background(), s, data, "handoffs.json", nil, ConflictFail)
	if err != nil || res.Records != 1 || res.Outcomes[Imported] != 1 || res.Kind == "" {
		t.Fatalf("first import: %+v, %v", res, err)
	}
	list, err := s.List(store.Filter{})
	if err != nil || len(list) != 1 {
		t.Fatalf("stored: %d, %v", len(list), err)
	}
	rec, err := s.Get(list[0].ID)
	if err != nil || rec.Source.Kind != handoff.SourceLegacy {
		t.Fatalf("stored record: %+v, %v", rec, err)
	}
	res, err = ImportLegacyFile(context.Background(), s, data, "handoffs.json", nil, ConflictFail)
	if err != nil || res.Outcomes[Already] != 1 || res.Outcomes[Imported] != 0 {
		t.Fatalf("second import: %+v, %v", res, err)
	}
	if _, err := ImportLegacyFile(context.Background(), s, []byte(`{"version":1,"items":[`), "bad.json", nil, ConflictFail); err == nil {
		t.Fatal("a truncated file was imported")
	}
	asked := false
	pass := func() ([]byte, error) { asked = true; return nil, errors.New("no") }
	if _, err := ImportLegacyFile(context.Background(), s, data, "handoffs.json", pass, ConflictFail); err != nil || asked {
		t.Fatalf("an unencrypted file asked for a passphrase (%v) or failed: %v", asked, err)
	}
}
