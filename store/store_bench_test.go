package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"

	"github.com/session-handoff/session-handoff/handoff"
)

var benchSizes = []int{100, 10000, 100000}

var (
	benchMu     sync.Mutex
	benchStores = map[string]string{} // kind/size → directory
	benchRoot   string
)

// cleanupBenchStores removes the stores the benchmarks made.
func cleanupBenchStores() {
	benchMu.Lock()
	defer benchMu.Unlock()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
}

var (
	benchTools    = []string{"claude-code", "codex", "gemini", "cursor", "copilot"}
	benchWords    = strings.Fields("parser cache index store bundle render capture redact signature trust import export remote memory handover")
	benchBranches = []string{"main", "feat/store", "fix/parser", "release-1.2"}
)

// benchRecord makes a record of realistic size: a title, a summary longer
// than the index keeps, tags, git state.
func benchRecord(tb testing.TB, i int, at time.Time) *handoff.Record {
	w := func(k int) string { return benchWords[(i*7+k*3)%len(benchWords)] }
	r, err := handoff.New(at, benchTools[i%len(benchTools)], fmt.Sprintf("Work on the %s and the %s, step %d", w(0), w(1), i))
	if err != nil {
		tb.Fatal(err)
	}
	project := fmt.Sprintf("project-%02d", i%50)
	r.Project = handoff.Project{Path: "/home/dev/src/" + project, Name: project}
	r.Summary = strings.Repeat(fmt.Sprintf("Changed the %s so that the %s no longer breaks. ", w(2), w(3)), 6)
	r.NextSteps = []string{"run the tests", "update the docs"}
	r.Tags = []string{w(4), "sprint-" + fmt.Sprint(i%10)}
	r.Git = &handoff.GitState{Root: r.Project.Path, Branch: benchBranches[i%len(benchBranches)], Head: strings.Repeat("c", 40)}
	return r
}

// benchStore returns a store of n records made for one benchmark kind. It
// is made once per process by writing record files and index lines
// directly, without fsync.
func benchStore(b *testing.B, kind string, n int) *Store {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprintf("%s-%d", kind, n)
	if dir, ok := benchStores[key]; ok {
		s, _ := Open(dir)
		return s
	}
	if benchRoot == "" {
		var err error
		if benchRoot, err = os.MkdirTemp("", "store-bench-"); err != nil {
			b.Fatal(err)
		}
	}
	dir := filepath.Join(benchRoot, key)
	if err := fillStore(b, dir, n); err != nil {
		b.Fatal(err)
	}
	// Flush the bulk writes now, or the first fsyncs of the benchmark
	// would pay for them (ext4 commits them with its journal).
	testsys.SyncAll()
	benchStores[key] = dir
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func fillStore(tb testing.TB, dir string, n int) error {
	if err := os.MkdirAll(filepath.Join(dir, recordsDir), dirPerm); err != nil {
		return err
	}
	index := []byte(indexHeader + "\n")
	search := []byte(searchHeader + "\n")
	start := time.Now().Add(-time.Duration(n+1) * time.Minute)
	for i := 0; i < n; i++ {
		r := benchRecord(tb, i, start.Add(time.Duration(i)*time.Minute))
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, recordsDir, string(r.ID)+recordExt), append(data, '\n'), filePerm); err != nil {
			return err
		}
		ie := entryFromRecord(r)
		index = appendLine(index, &ie, "") // made in id order
		search = appendSearchLine(search, r)
	}
	if err := os.WriteFile(filepath.Join(dir, searchFile), search, filePerm); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, indexFile), index, filePerm)
}

// BenchmarkSave saves one new record into stores of different sizes; the
// cost must not grow with the size.
func BenchmarkSave(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s := benchStore(b, "save", n)
			i := 0
			for b.Loop() {
				// Making the record costs microseconds; saving, milliseconds.
				r := benchRecord(b, n+i, time.Now())
				i++
				if err := s.Save(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkList lists stores of different sizes: the newest record
// (latest), the 20 newest of one tool (filtered), and a query that matches
// nothing, which must look at every entry (query-miss).
func BenchmarkList(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s := benchStore(b, "list", n)
			for _, c := range []struct {
				name string
				f    Filter
				want int
			}{
				{"latest", Filter{Latest: true}, 1},
				{"filtered", Filter{Tool: "gemini", Limit: 20}, min(20, n/len(benchTools))},
				{"query-miss", Filter{Query: "no such words"}, 0},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						es, err := s.List(c.f)
						if err != nil {
							b.Fatal(err)
						}
						if len(es) != c.want {
							b.Fatalf("%d entries, want %d", len(es), c.want)
						}
					}
				})
			}
		})
	}
}

// BenchmarkLatestForProject finds a project's newest handoff, as render,
// resume and the session-start hook do, in stores of different sizes: it
// reads the index from its end, so the cost must not grow with the store.
// "missing" is a project with no handoff, which reads the whole index.
func BenchmarkLatestForProject(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			s := benchStore(b, "list", n)
			for _, c := range []struct {
				name, root string
				found      bool
			}{
				{"present", "/home/dev/src/project-07", true},
				{"missing", "/home/dev/src/no-such-project", false},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						rec, _, err := s.LatestForProject(c.root, nil)
						if err != nil || (rec != nil) != c.found {
							b.Fatalf("%v %v", rec, err)
						}
					}
				})
			}
		})
	}
}
