package search

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
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
	time      int64 // Unix seconds
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
	// The segments whose documents are newest first: once the hits found
	// are newer than anything a segment not yet read holds, they are
	// shown, and the search stops at the limit. A frequent word costs the
	// newest segments, not the whole index.
	order := make([]segHeader, 0, len(h.Segments))
	for _, sg := range h.Segments {
		if len(sg.Dead) < sg.Docs {
			order = append(order, sg)
		}
	}
	slices.SortStableFunc(order, func(a, b segHeader) int { return cmp.Compare(b.newest(), a.newest()) })
	var segs []*segment
	defer func() {
		for _, s := range segs {
			s.close()
		}
	}()
	var res Results
	var pending []candidate // found and not yet shown, newest first
	for i, sg := range order {
		if sg.span != (span{}) && (!f.Since.IsZero() && sg.Newest < f.Since.Unix() || !f.Until.IsZero() && sg.Oldest > f.Until.Unix()) {
			continue
		}
		seg, err := openSegment(filepath.Join(ix.dir, sg.Name), sg.Name)
		if err != nil {
			return Results{}, err
		}
		segs = append(segs, seg)
		if seg.ndocs != sg.Docs {
			return Results{}, fmt.Errorf("search index segment %s: %w", sg.Name, errCorrupt)
		}
		dead := make([]bool, seg.ndocs)
		for _, d := range sg.Dead {
			if d >= 0 && d < len(dead) {
				dead[d] = true
			}
		}
		cs, err := matchSegment(seg, q, kinds, dead)
		if err != nil {
			return Results{}, fmt.Errorf("search index segment %s: %w", sg.Name, err)
		}
		pending = append(pending, cs...)
		slices.SortStableFunc(pending, func(a, b candidate) int { return cmp.Compare(b.time, a.time) })
		// What is newer than every document of the segments left shows.
		bound := int64(math.MinInt64)
		if i+1 < len(order) {
			bound = order[i+1].newest()
		}
		done, err := res.show(&pending, bound, f, limit)
		if err != nil || done {
			return res, err
		}
	}
	_, err = res.show(&pending, math.MinInt64, f, limit)
	return res, err
}

// newest is the time of the segment's newest document, in Unix seconds;
// the latest time there is when not known, so that it is read first.
func (sg segHeader) newest() int64 {
	if sg.span == (span{}) {
		return math.MaxInt64
	}
	return sg.Newest
}

// show moves the candidates of pending newer than bound (Unix seconds)
// to res as hits, the newest first, loading each document to filter it
// and cut its snippet; done says the limit was passed (res.More).
func (res *Results) show(pending *[]candidate, bound int64, f Filter, limit int) (done bool, err error) {
	for len(*pending) > 0 && (*pending)[0].time > bound {
		c := (*pending)[0]
		*pending = (*pending)[1:]
		if t := time.Unix(c.time, 0); !f.Since.IsZero() && t.Before(f.Since) || !f.Until.IsZero() && t.After(f.Until) {
			continue
		}
		rec, err := c.seg.record(c.doc)
		var d *Doc
		var units []byte
		if err == nil {
			d, units, err = decodeDoc(rec)
		}
		if err != nil {
			return false, fmt.Errorf("search index segment %s: %w", c.seg.name, err)
		}
		if !f.keeps(d) {
			continue
		}
		if len(res.Hits) == limit {
			res.More = true
			return true, nil
		}
		// The unit the snippet is cut from, only of what is shown.
		text, err := unitText(units, c.unit)
		if err != nil {
			return false, fmt.Errorf("search index segment %s: %w", c.seg.name, err)
		}
		h := Hit{Kind: c.kind, Doc: *d}
		if text != "" {
			h.Snippet = snippet(text, c.pos, c.nterms)
		}
		res.Hits = append(res.Hits, h)
	}
	return false, nil
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

// snippet is the text around the n terms from position pos of text, on
// one line, the hit marked.
func snippet(text string, pos, n int) string {
	start, end, i := -1, -1, 0
	scanTerms(text, nil, func(_ []byte, from, to int) bool {
		if i == pos {
			start = from
		}
		if i == pos+n-1 {
			end = to
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
