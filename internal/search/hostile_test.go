package search

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Text crafted to blow up an index costs no more than its size and the
// bound on positions: millions of tiny tokens, one endless word, binary
// junk.
func TestHostileTextIsBounded(t *testing.T) {
	junk := make([]byte, 4<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range junk {
		junk[i] = byte(r.Uint32())
	}
	for name, text := range map[string]string{
		"tiny tokens": strings.Repeat("a ", 4<<20),
		"many terms":  manyTerms(1 << 20),
		"one word":    strings.Repeat("x", 8<<20),
		"binary":      string(junk),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			ix := Open(dir)
			d := withUnits(doc("h", 1), Unit{KindCommand, text}, Unit{KindRequest, "needle after the flood"})
			if _, err := ix.Update([]Source{src("h", 1, d)}, false, nil); err != nil {
				t.Fatal(err)
			}
			var size int64
			des, _ := os.ReadDir(dir)
			for _, de := range des {
				fi, _ := os.Stat(filepath.Join(dir, de.Name()))
				size += fi.Size()
			}
			// The stored text, plus at most a few bytes a position, plus
			// the dictionary.
			if limit := int64(len(text)) + 24*maxPositions + 1<<20; size > limit {
				t.Errorf("index of %d bytes of text is %d bytes, over %d", len(text), size, limit)
			}
			q, _ := ParseQuery("needle")
			res, err := ix.Search(q, Filter{}, 5)
			if err != nil || len(res.Hits) != 1 {
				t.Fatalf("the unit after the flood is not found: %v %v", res, err)
			}
		})
	}
}

// manyTerms is n distinct terms.
func manyTerms(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("t")
		for v := i; ; v /= 26 {
			b.WriteByte(byte('a' + v%26))
			if v < 26 {
				break
			}
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// FuzzReadSegment: a segment file damaged anywhere (a flipped byte, a cut,
// a crafted record or compressed chunk) is read without a panic and
// within its bounds: opening it, matching words, a phrase and a prefix,
// and reading every document either work or return an error.
func FuzzReadSegment(f *testing.F) {
	dir := f.TempDir()
	ix := Open(dir)
	var sources []Source
	for i := range 5 {
		id := string(rune('a' + i))
		sources = append(sources, src(id, 1, withUnits(doc(id, 100+i),
			Unit{KindTitle, "title " + id}, Unit{KindRequest, "refactor the token rotation " + strings.Repeat("word ", 40)},
			Unit{KindCommand, "go test ./..."})))
	}
	if _, err := ix.Update(sources, false, nil); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(filepath.Join(dir, manifestHeader(f, ix).Segments[0].Name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	queries := []Query{}
	for _, q := range []string{"token", `"token rotation"`, "refact*", "title -word"} {
		pq, _ := ParseQuery(q)
		queries = append(queries, pq)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Read from memory: a file a run would cost most of the run.
		seg := &segment{name: "seg-000000.six", f: bytesFile{bytes.NewReader(data)}, size: int64(len(data))}
		if seg.load() != nil {
			return
		}
		dead := make([]bool, seg.ndocs)
		for _, q := range queries {
			cs, err := matchSegment(seg, q, 0, dead)
			if err != nil {
				continue
			}
			for _, c := range cs {
				if rec, err := seg.record(c.doc); err == nil {
					if _, units, err := decodeDoc(rec); err == nil {
						unitText(units, c.unit)
					}
				}
			}
		}
		for n := range min(seg.ndocs, 64) {
			seg.doc(n)
		}
	})
}

// bytesFile is a segment's bytes as its file.
type bytesFile struct{ *bytes.Reader }

func (bytesFile) Close() error { return nil }
