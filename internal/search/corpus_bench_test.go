package search

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestEngineCorpus indexes a corpus of one document a line, as
// docs/SEARCH.md's engine table measured it: SEARCH_CORPUS=FILE
// SEARCH_INDEX=DIR go test ./internal/search -run TestEngineCorpus -v.
// It measures; it never fails on a time.
func TestEngineCorpus(t *testing.T) {
	corpus, dir := os.Getenv("SEARCH_CORPUS"), os.Getenv("SEARCH_INDEX")
	if corpus == "" || dir == "" {
		t.Skip("SEARCH_CORPUS and SEARCH_INDEX name a corpus and where to index it")
	}
	f, err := os.Open(corpus)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sources []Source
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var offs []int64
	var off int64
	for sc.Scan() {
		offs = append(offs, off)
		off += int64(len(sc.Bytes())) + 1
	}
	for i, o := range offs {
		sources = append(sources, Source{Key: fmt.Sprint("doc:", i), Stamp: Stamp{Size: 1}, Load: func() (*Doc, error) {
			r := bufio.NewReader(ioSection(f, o))
			line, _ := r.ReadString('\n')
			return &Doc{Type: "session", ID: fmt.Sprint(i), Time: time.Unix(int64(i), 0), Units: []Unit{{Kind: KindMessage, Text: line}}}, nil
		}})
	}
	os.RemoveAll(dir)
	ix := Open(dir)
	start := time.Now()
	if _, err := ix.Update(sources, true, nil); err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	var size int64
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		fi, _ := os.Stat(filepath.Join(dir, de.Name()))
		size += fi.Size()
	}
	t.Logf("indexed %d docs in %v, index %d bytes, heap sys %d MiB", len(sources), time.Since(start), size, ms.HeapSys>>20)
	for _, q := range []string{"rebguagd", `"pocox rebguagd"`, "zjgird", "rebg*"} {
		pq, _ := ParseQuery(q)
		var best time.Duration
		for i := range 5 {
			s := time.Now()
			res, err := ix.Search(pq, Filter{}, 20)
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(s); i == 0 || d < best {
				best = d
			}
			_ = res
		}
		t.Logf("query %s: %v", q, best)
	}
}

func ioSection(f *os.File, off int64) *sectionReader { return &sectionReader{f: f, off: off} }

type sectionReader struct {
	f   *os.File
	off int64
}

func (s *sectionReader) Read(p []byte) (int, error) {
	n, err := s.f.ReadAt(p, s.off)
	s.off += int64(n)
	return n, err
}
