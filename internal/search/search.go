package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Filter narrows a search by what a document is; the zero Filter keeps
// everything.
type Filter struct {
	Agent   string // the agent's name, exactly
	Machine string // the machine's name, case ignored
	Type    string // "session" or "handoff"
	// Since and Until bound the document's time (zero: no bound).
	Since, Until time.Time
	// Kinds keeps hits in units of these kinds; none keeps every kind.
	Kinds []Kind
	// Project, when set, says whether a document is of the project.
	Project func(d *Doc) bool
}

// Hit is one document found, with the unit that shows why.
type Hit struct {
	// Doc is the document without its units.
	Doc  Doc
	Kind Kind
	// Snippet is the text around the hit, on one line, the hit between
	// Mark and EndMark.
	Snippet string
}

// The marks around the hit in a snippet.
const (
	Mark    = "«"
	EndMark = "»"
)

// snippet bounds, in bytes of the unit's text.
const (
	snippetBefore = 60
	snippetAfter  = 140
)

// Results is what Search found.
type Results struct {
	Hits []Hit
	// More says more documents matched than the limit let through.
	More bool
}

// ErrNoIndex says the index has not been built.
var ErrNoIndex = errors.New("no search index yet")

// candidate is a matching document before it is loaded.
type candidate struct {
	seg       *segment
	doc       int
	time      time.Time
	unit, pos int
	nterms    int
	kind      Kind
}

// Search finds the documents that match q and f, newest first, at most
// limit of them (limit ≤ 0: 20).
func (ix *Index) Search(q Query, f Filter, limit int) (Results, error) {
	if limit <= 0 {
		limit = 20
	}
	var res Results
	var err error
	// A writer may replace a segment between the manifest read and its
	// opening: read the manifest again then.
	for range 3 {
		res, err = ix.search(q, f, limit)
		if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrNoIndex) {
			break
		}
	}
	return res, err
}

func (ix *Index) search(q Query, f Filter, limit int) (Results, error) {
	if _, err := os.Stat(filepath.Join(ix.dir, manifestName)); errors.Is(err, fs.ErrNotExist) {
		return Results{}, ErrNoIndex
	}
	h, _, mf, err := ix.readHeader()
	if err != nil {
		return Results{}, err
	}
	mf.Close()
	var kinds uint8
	for _, k := range f.Kinds {
		kinds |= 1 << k
	}
	var cands []candidate
	var segs []*segment
	defer func() {
		for _, s := range segs {
			s.close()
		}
	}()
	for _, sg := range h.Segments {
		name := sg.Name
		if len(sg.Dead) >= sg.Docs {
			continue
		}
		seg, err := openSegment(filepath.Join(ix.dir, name), name)
		if err != nil {
			return Results{}, err
		}
		segs = append(segs, seg)
		if seg.ndocs != sg.Docs {
			return Results{}, fmt.Errorf("search index segment %s: %w", name, errCorrupt)
		}
		dead := make([]bool, seg.ndocs)
		for _, d := range sg.Dead {
			if d >= 0 && d < len(dead) {
				dead[d] = true
			}
		}
		cs, err := matchSegment(seg, q, kinds, dead)
		if err != nil {
			return Results{}, fmt.Errorf("search index segment %s: %w", name, err)
		}
		cands = append(cands, cs...)
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.time.Compare(a.time) })
	var res Results
	for _, c := range cands {
		if !f.Since.IsZero() && c.time.Before(f.Since) || !f.Until.IsZero() && c.time.After(f.Until) {
			continue
		}
		d, err := c.seg.doc(c.doc)
		if err != nil {
			return Results{}, fmt.Errorf("search index segment %s: %w", c.seg.name, err)
		}
		if !f.keeps(d) {
			continue
		}
		if len(res.Hits) == limit {
			res.More = true
			break
		}
		h := Hit{Kind: c.kind}
		if c.unit < len(d.Units) {
			h.Snippet = snippet(d.Units[c.unit].Text, c.pos, c.nterms)
		}
		h.Doc = *d
		h.Doc.Units = nil
		res.Hits = append(res.Hits, h)
	}
	return res, nil
}

func (f Filter) keeps(d *Doc) bool {
	if f.Agent != "" && d.Agent != f.Agent {
		return false
	}
	if f.Machine != "" && !strings.EqualFold(d.Machine, f.Machine) {
		return false
	}
	if f.Type != "" && d.Type != f.Type {
		return false
	}
	return f.Project == nil || f.Project(d)
}

// better says a hit in unit u of kind k shows more than one in unit ou
// of kind ok.
func better(k Kind, u int, ok Kind, ou int) bool {
	if (k == KindTitle) != (ok == KindTitle) {
		return ok == KindTitle
	}
	return u < ou
}

// unitKey is one unit of one document.
type unitKey struct{ doc, unit int }

// atomHits is where an atom matched: per unit, the positions its first
// term lies at, and the unit's kind.
type atomHits map[unitKey]*unitHit

type unitHit struct {
	kind Kind
	pos  []uint32
}

// matchSegment lists the live documents of seg that match q, each with
// its first hit.
func matchSegment(seg *segment, q Query, kinds uint8, dead []bool) ([]candidate, error) {
	type first struct {
		unit, pos, n int
		kind         Kind
	}
	var docs map[int]first
	for gi, g := range q.Groups {
		found := map[int]first{}
		for _, a := range g {
			hits, err := matchAtom(seg, a, kinds)
			if err != nil {
				return nil, err
			}
			for k, h := range hits {
				if dead[k.doc] {
					continue
				}
				if gi > 0 {
					if _, ok := docs[k.doc]; !ok {
						continue
					}
				}
				old, ok := found[k.doc]
				// The first unit that matched shows why, a title last:
				// the title is shown anyway.
				if !ok || better(h.kind, k.unit, old.kind, old.unit) {
					found[k.doc] = first{unit: k.unit, pos: int(h.pos[0]), n: len(a.Terms), kind: h.kind}
				}
			}
		}
		if gi == 0 {
			docs = found
			continue
		}
		for d := range docs {
			if _, ok := found[d]; !ok {
				delete(docs, d)
			}
		}
	}
	for _, a := range q.Not {
		hits, err := matchAtom(seg, a, 0)
		if err != nil {
			return nil, err
		}
		for k := range hits {
			delete(docs, k.doc)
		}
	}
	out := make([]candidate, 0, len(docs))
	if len(docs) == 0 {
		return out, nil
	}
	times, err := seg.docTimes()
	if err != nil {
		return nil, err
	}
	for d, h := range docs {
		out = append(out, candidate{seg: seg, doc: d, time: time.Unix(times[d], 0), unit: h.unit, pos: h.pos, nterms: h.n, kind: h.kind})
	}
	// Documents in one segment with one time keep their order.
	slices.SortFunc(out, func(a, b candidate) int { return a.doc - b.doc })
	return out, nil
}

// matchAtom finds where a's terms lie next to each other, in units of
// kinds (0: any).
func matchAtom(seg *segment, a Atom, kinds uint8) (atomHits, error) {
	var acc atomHits
	for i, t := range a.Terms {
		prefix := a.Prefix && i == len(a.Terms)-1
		es, err := seg.terms(t, prefix, maxExpansion)
		if err != nil {
			return nil, err
		}
		// The postings first: the map and its hits are made at their
		// size at once (growing them was most of a frequent word's
		// search).
		lists := make([][]posting, 0, len(es))
		n := 0
		for _, e := range es {
			ps, err := seg.postingsOf(e)
			if err != nil {
				return nil, err
			}
			lists = append(lists, ps)
			n += len(ps)
		}
		cur := make(atomHits, n)
		slab := make([]unitHit, 0, n)
		for _, ps := range lists {
			for _, p := range ps {
				if kinds != 0 && kinds&(1<<p.kind) == 0 {
					continue
				}
				k := unitKey{p.doc, p.unit}
				if h := cur[k]; h != nil {
					h.pos = append(h.pos, p.pos...)
				} else {
					slab = append(slab, unitHit{kind: p.kind, pos: p.pos})
					cur[k] = &slab[len(slab)-1]
				}
			}
		}
		if i == 0 {
			acc = cur
			for _, h := range acc {
				if len(es) > 1 {
					slices.Sort(h.pos)
				}
			}
			continue
		}
		// Keep the start positions s of acc where term i lies at s+i.
		for k, h := range acc {
			c := cur[k]
			if c == nil {
				delete(acc, k)
				continue
			}
			if len(es) > 1 {
				slices.Sort(c.pos)
			}
			kept := h.pos[:0]
			for _, s := range h.pos {
				if _, ok := slices.BinarySearch(c.pos, s+uint32(i)); ok {
					kept = append(kept, s)
				}
			}
			if len(kept) == 0 {
				delete(acc, k)
				continue
			}
			h.pos = kept
		}
		if len(acc) == 0 {
			break
		}
	}
	return acc, nil
}

// snippet is the text around the n terms from position pos of text, on
// one line, the hit marked.
func snippet(text string, pos, n int) string {
	start, end, i := -1, -1, 0
	eachToken(text, func(t token) bool {
		if i == pos {
			start = t.start
		}
		if i == pos+n-1 {
			end = t.end
			return false
		}
		i++
		return true
	})
	if start < 0 || end < start {
		return untrusted.OneLine(text, snippetBefore+snippetAfter)
	}
	from := max(0, start-snippetBefore)
	for from > 0 && from < len(text) && !isRuneStart(text[from]) {
		from--
	}
	to := min(len(text), end+snippetAfter)
	for to < len(text) && !isRuneStart(text[to]) {
		to++
	}
	before := untrusted.OneLine(text[from:start], snippetBefore+8)
	hit := untrusted.OneLine(text[start:end], 4*maxTerm*n+8)
	after := untrusted.OneLine(text[end:to], snippetAfter+8)
	s := Mark + hit + EndMark
	if before != "" {
		if from > 0 {
			before = untrusted.Ellipsis + before
		}
		s = before + sep(text[start-1]) + s
	}
	if after != "" {
		if to < len(text) {
			after += untrusted.Ellipsis
		}
		s += sep(text[end]) + after
	}
	return s
}

// sep is a space when the byte next to a hit was white space.
func sep(c byte) string {
	if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
		return " "
	}
	return ""
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }
