package search

import (
	"encoding/binary"
	"slices"
)

// How a segment's documents are matched against a query: each atom's
// documents with their best hit, the groups intersected, the excluded
// removed.

// unitKey is one unit of one document.
type unitKey struct{ doc, unit int }

// atomHits is where an atom matched: per unit, the positions its first
// term lies at, and the unit's kind.
type atomHits map[unitKey]*unitHit

type unitHit struct {
	kind Kind
	pos  []uint32
}

// docHit is where a document's hit shows best: its unit, the position
// of the first term there, the number of terms, the unit's kind.
type docHit struct {
	unit, pos, n int
	kind         Kind
}

// betterThan says h shows more than o: the first unit that matched
// shows why, a title last (the title is shown anyway).
func (h docHit) betterThan(o docHit) bool {
	if (h.kind == KindTitle) != (o.kind == KindTitle) {
		return o.kind == KindTitle
	}
	return h.unit < o.unit
}

// matchSegment lists the live documents of seg that match q, each with
// its best hit, in the order of their numbers.
func matchSegment(seg *segment, q Query, kinds uint8, dead []bool) ([]candidate, error) {
	var docs map[int]docHit
	for gi, g := range q.Groups {
		found := map[int]docHit{}
		for _, a := range g {
			err := atomDocs(seg, a, kinds, func(doc int, h docHit) {
				if dead[doc] {
					return
				}
				if gi > 0 {
					if _, ok := docs[doc]; !ok {
						return
					}
				}
				if old, ok := found[doc]; !ok || h.betterThan(old) {
					found[doc] = h
				}
			})
			if err != nil {
				return nil, err
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
		if err := atomDocs(seg, a, 0, func(doc int, _ docHit) { delete(docs, doc) }); err != nil {
			return nil, err
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
		out = append(out, candidate{seg: seg, doc: d, time: times[d], unit: h.unit, pos: h.pos, nterms: h.n, kind: h.kind})
	}
	// Documents in one segment with one time keep their order.
	slices.SortFunc(out, func(a, b candidate) int { return a.doc - b.doc })
	return out, nil
}

// atomDocs calls fn once for each document of seg a matches in a unit of
// kinds (0: any), with its best hit. A word or a phrase is read straight
// from its posting lists (termsDocs): no map of units, no positions kept;
// a prefix, which stands for many terms, goes through matchAtom.
func atomDocs(seg *segment, a Atom, kinds uint8, fn func(doc int, h docHit)) error {
	if !a.Prefix {
		return termsDocs(seg, a.Terms, kinds, fn)
	}
	hits, err := matchAtom(seg, a, kinds)
	if err != nil {
		return err
	}
	for d, h := range hits.best(len(a.Terms)) {
		fn(d, h)
	}
	return nil
}

// best is each document's best hit of an atom of n terms.
func (hits atomHits) best(n int) map[int]docHit {
	best := make(map[int]docHit, len(hits))
	for k, uh := range hits {
		h := docHit{unit: k.unit, pos: int(uh.pos[0]), n: n, kind: uh.kind}
		if old, ok := best[k.doc]; !ok || h.betterThan(old) {
			best[k.doc] = h
		}
	}
	return best
}

// termsDocs is atomDocs of the phrase of terms (one word or more, no
// prefix): their posting lists are walked side by side in the order of
// documents and units, and only the units all of them are in have their
// positions read.
func termsDocs(seg *segment, terms []string, kinds uint8, fn func(doc int, h docHit)) error {
	its := make([]postingIter, len(terms))
	for i, t := range terms {
		es, err := seg.terms(t, false, 1)
		if err != nil || len(es) == 0 {
			return err
		}
		raw := make([]byte, es[0].ln)
		if _, err := seg.f.ReadAt(raw, seg.postings+es[0].off); err != nil {
			return err
		}
		its[i] = postingIter{raw: raw, ndocs: seg.ndocs}
	}
	// A document's first unit with a hit not a title's is its best: the
	// units come in order.
	cur := -1
	var best docHit
	pos := make([][]uint32, len(terms))
	err := walkTogether(its, func(it *postingIter) error {
		if kinds != 0 && kinds&(1<<it.kind) == 0 {
			return nil
		}
		at, ok, err := phraseAt(its, pos)
		if err != nil || !ok {
			return err
		}
		h := docHit{unit: it.unit, pos: at, n: len(terms), kind: it.kind}
		if it.doc != cur {
			if cur >= 0 {
				fn(cur, best)
			}
			cur, best = it.doc, h
		} else if h.betterThan(best) {
			best = h
		}
		return nil
	})
	if err == nil && cur >= 0 {
		fn(cur, best)
	}
	return err
}

// walkTogether calls fn for each entry (document and unit) all of its
// iterators hold, in order, with the first iterator standing at it and the
// others at the same, until one of them ends.
func walkTogether(its []postingIter, fn func(it *postingIter) error) error {
	for i := range its {
		if !its[i].next() {
			return its[i].err
		}
	}
	for {
		lead := 0
		for i := range its {
			if its[i].key().after(its[lead].key()) {
				lead = i
			}
		}
		aligned := true
		for i := range its {
			for its[lead].key().after(its[i].key()) {
				if !its[i].next() {
					return its[i].err
				}
			}
			aligned = aligned && its[i].key() == its[lead].key()
		}
		if !aligned {
			continue
		}
		if err := fn(&its[0]); err != nil {
			return err
		}
		if !its[0].next() {
			return its[0].err
		}
	}
}

// phraseAt is the first position of the unit the iterators stand at
// (all at the same) where term i of the phrase lies at that position
// plus i; ok is false when there is none. pos is scratch, a slice per
// iterator.
func phraseAt(its []postingIter, pos [][]uint32) (at int, ok bool, err error) {
	if len(its) == 1 {
		p, err := its[0].first()
		return p, err == nil, err
	}
	for i := range its {
		if pos[i], err = its[i].positions(pos[i][:0]); err != nil {
			return 0, false, err
		}
	}
	for _, s := range pos[0] {
		all := true
		for i := 1; i < len(its) && all; i++ {
			_, all = slices.BinarySearch(pos[i], s+uint32(i))
		}
		if all {
			return int(s), true, nil
		}
	}
	return 0, false, nil
}

// postingKey orders the entries of posting lists: by document, then unit.
type postingKey struct{ doc, unit int }

func (k postingKey) after(o postingKey) bool {
	return k.doc > o.doc || k.doc == o.doc && k.unit > o.unit
}

// postingIter walks one posting list an entry at a time, its positions
// skipped unless asked for.
type postingIter struct {
	raw          []byte
	ndocs        int
	p            int // the next entry
	doc, unit    int
	kind         Kind
	posAt, posTo int // the entry's positions
	err          error
}

// next moves to the next entry; false at the end or on damage (err).
func (it *postingIter) next() bool {
	if it.p >= len(it.raw) {
		return false
	}
	var vals [3]uint64
	p := it.p
	for i := range vals {
		v, n := binary.Uvarint(it.raw[p:])
		if n <= 0 {
			it.err = errCorrupt
			return false
		}
		vals[i], p = v, p+n
	}
	doc := it.doc + int(vals[0])
	if doc >= it.ndocs || vals[2] == 0 || vals[2] > uint64(len(it.raw)-p) {
		it.err = errCorrupt
		return false
	}
	it.doc, it.unit, it.kind, it.posAt = doc, int(vals[1]>>3), Kind(vals[1]&7), p
	// Skip the positions: each a uvarint, ending at a byte < 0x80.
	for left := vals[2]; left > 0; p++ {
		if p >= len(it.raw) {
			it.err = errCorrupt
			return false
		}
		if it.raw[p] < 0x80 {
			left--
		}
	}
	it.posTo, it.p = p, p
	return true
}

func (it *postingIter) key() postingKey { return postingKey{it.doc, it.unit} }

// first is the entry's first position.
func (it *postingIter) first() (int, error) {
	v, n := binary.Uvarint(it.raw[it.posAt:it.posTo])
	if n <= 0 {
		return 0, errCorrupt
	}
	return int(v), nil
}

// positions appends the entry's positions to dst.
func (it *postingIter) positions(dst []uint32) ([]uint32, error) {
	last := uint32(0)
	for p := it.posAt; p < it.posTo; {
		v, n := binary.Uvarint(it.raw[p:it.posTo])
		if n <= 0 {
			return nil, errCorrupt
		}
		p += n
		last += uint32(v)
		dst = append(dst, last)
	}
	return dst, nil
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
