package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeOlder writes a file as agent-handover's MemoryStore.write does:
// HEADER.format(layer=layer, date=date) + content, byte for byte, where
// HEADER = "<!-- agent-handover | layer{layer} | {date} -->\n"
// (../shared/seeds/agent-handover-001.txt).
func writeOlder(t *testing.T, root, rel string, layer int, date, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	header := "<!-- agent-handover | layer" + string(rune('0'+layer)) + " | " + date + " -->\n"
	if err := os.WriteFile(p, []byte(header+content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A folder the earlier agent-handover tool wrote reads, lists, takes a
// same-day note and compacts (issue 20): nothing is "damaged", nothing
// is lost.
func TestOlderAgentHandoverFolder(t *testing.T) {
	d := newDir(t)
	writeOlder(t, d.Root, "layer1/2026-01/api-2026-01-05.md", 1, "2026-01-05", "Fixed the login redirect.\n")
	writeOlder(t, d.Root, "layer1/2026-03/api-2026-03-01.md", 1, "2026-03-01", "Rate limiter next.\n")
	writeOlder(t, d.Root, "layer2/current-state.md", 2, "2026-03-01", "Where we are: auth done.\n")
	writeOlder(t, d.Root, "layer3/2025-12-api-archive.md", 3, "2025-12-31", "December, summed up.\n")

	files, err := d.List(0, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("listed %d files, want 4: %+v", len(files), files)
	}
	for _, f := range files {
		if f.Problem != "" {
			t.Errorf("%s: %s", f.Path, f.Problem)
		}
	}
	_, state, err := d.Read(StateFile)
	if err != nil || !strings.Contains(state.Text, "auth done") || !state.Older || state.Header.Date != "2026-03-01" {
		t.Fatalf("state: %+v, %v", state, err)
	}
	// A note on the same day appends; the older text stays, as an entry.
	if _, _, err := d.WriteNote(Note{Tag: "api", Date: "2026-03-01", Body: "Limiter merged."}); err != nil {
		t.Fatal(err)
	}
	_, note, err := d.Read("layer1/2026-03/api-2026-03-01.md")
	if err != nil || note.Older || len(note.Entries) != 2 || !strings.Contains(note.Entries[0].Body, "Rate limiter next.") ||
		!strings.Contains(note.Entries[1].Body, "Limiter merged.") {
		t.Fatalf("note after a write: %+v, %v", note, err)
	}
	// Compaction folds the January note into its archive.
	res, err := d.Compact("", 30, time.Date(2026, 3, 20, 12, 0, 0, 0, time.Local))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Archived) != 1 || !strings.HasSuffix(res.Archived[0], "layer1/2026-01/api-2026-01-05.md") {
		t.Errorf("archived %v", res.Archived)
	}
	_, arch, err := d.Read("layer3/2026-01-api-archive.md")
	if err != nil || len(arch.Entries) != 1 || !strings.Contains(arch.Entries[0].Body, "Fixed the login redirect.") {
		t.Errorf("archive: %+v, %v", arch, err)
	}
	// A header that lies about its layer is still refused.
	writeOlder(t, d.Root, "layer1/2026-03/ops-2026-03-02.md", 2, "2026-03-02", "x\n")
	if _, _, err := d.Read("layer1/2026-03/ops-2026-03-02.md"); err == nil || !strings.Contains(err.Error(), "layer-1 file") {
		t.Errorf("a layer2 header on a layer-1 file: %v", err)
	}
}

func FuzzParseOlder(f *testing.F) {
	f.Add([]byte("<!-- agent-handover | layer1 | 2026-03-01 -->\nnote\n"), 1)
	f.Add([]byte("<!-- agent-handover | layer2 | 2026-03-01 -->\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, layer int) {
		want := Header{Layer: 1, Tag: "api", Date: "2026-03-01"}
		switch layer & 3 {
		case 2:
			want = Header{Layer: 2}
		case 3:
			want = Header{Layer: 3, Tag: "api", Date: "2026-03"}
		}
		d, err := parseOlder(data, want)
		if err != nil {
			return
		}
		// What it reads, the current form writes and reads back.
		back, err := Parse(d.Format())
		if err != nil {
			t.Fatalf("the current form of %q does not parse: %v", data, err)
		}
		if len(back.Entries) != len(d.Entries) || back.Header.Layer != want.Layer {
			t.Fatalf("round trip of %q: %+v, want %+v", data, back, d)
		}
	})
}
