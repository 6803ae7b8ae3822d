package agents_test

import (
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// Detectors claim only what is theirs, so the table's order decides
// nothing: every fixture of every agent (and the shared samples) is
// detected alike, from its path (DetectFile, which reads a database's
// schema wherever it lies) and from its head alone (Detect), whatever
// the order the table is in.
func TestDetectionDoesNotDependOnTheTablesOrder(t *testing.T) {
	files := detectionFixtures(t)
	detect := func() map[string]string {
		out := map[string]string{}
		for _, f := range files {
			d, err := capture.DetectFile(f)
			out[f] = fmt.Sprintf("file %q %q %v %v", d.Agent, d.What, d.Foreign, err)
			head, err := readHead(f)
			if err != nil {
				t.Fatal(err)
			}
			h := capture.Detect(head)
			out[f] += fmt.Sprintf("; head %q %q %v", h.Agent, h.What, h.Foreign)
		}
		return out
	}
	want := detect()
	n := len(agents.All())
	for seed := range uint64(40) {
		perm := rand.New(rand.NewPCG(seed, 50)).Perm(n)
		restore := agents.Reorder(perm)
		got := detect()
		restore()
		for _, f := range files {
			if got[f] != want[f] {
				var names []string
				for _, a := range agents.All() {
					names = append(names, a.Name)
				}
				order := make([]string, n)
				for i, p := range perm {
					order[i] = names[p]
				}
				t.Errorf("table order %v: %s: %s; in the table's own order %s", order, f, got[f], want[f])
			}
		}
	}
}

// detectionFixtures are every file under the agents' testdata and the
// shared samples, the gzipped ones unpacked beside their siblings (a
// database with its WAL) in a temporary directory.
func detectionFixtures(t *testing.T) []string {
	t.Helper()
	var files []string
	tmp := t.TempDir()
	for _, root := range []string{".", samplesDir} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(path), "testdata/") && root == "." {
				return err
			}
			if strings.Contains(filepath.ToSlash(path), "testdata/fuzz/") {
				return nil
			}
			name, gz := strings.CutSuffix(filepath.Base(path), ".gz")
			if !gz {
				files = append(files, path)
				return nil
			}
			to := filepath.Join(tmp, filepath.Dir(path))
			if err := os.MkdirAll(to, 0o755); err != nil {
				return err
			}
			expect.Gunzip(t, filepath.Dir(path), to, name)
			files = append(files, filepath.Join(to, name))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(files)
	if len(files) < 100 {
		t.Fatalf("only %d fixtures found", len(files))
	}
	return files
}

// readHead is the first bytes of the file at path that detection reads.
func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, transcript.DetectBytes))
}
