package search

import (
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
