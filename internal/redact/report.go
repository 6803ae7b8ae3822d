package redact

import (
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// Finding counts the secrets of one kind that were replaced.
type Finding struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// Place counts the secrets of one kind replaced in one location, a label
// the caller gives: "summary", "request 3", "command 12 output",
// "attachment transcript.jsonl".
type Place struct {
	Location string `json:"location"`
	Kind     string `json:"kind"`
	Count    int    `json:"count"`
}

// Report says what was redacted. The zero value is an empty report ready to
// use. A Report is not safe for concurrent use; give each goroutine its own
// and Merge them.
type Report struct {
	// Findings are the totals per kind, sorted by kind.
	Findings []Finding `json:"findings,omitempty"`
	// Where are the counts per location and kind, in the order the
	// locations were first reported, and within a location in the order
	// the kinds were first found there.
	Where []Place `json:"where,omitempty"`
}

// Add records n more secrets of kind found at location. It ignores n < 1.
func (r *Report) Add(location, kind string, n int) {
	if n < 1 {
		return
	}
	r.addFinding(kind, n)
	// Where is short (locations × kinds actually found); search from the
	// end, where the location being redacted now usually is.
	last := -1
	for j := len(r.Where) - 1; j >= 0; j-- {
		p := &r.Where[j]
		if p.Location != location {
			if last >= 0 {
				break
			}
			continue
		}
		if last < 0 {
			last = j
		}
		if p.Kind == kind {
			p.Count += n
			return
		}
	}
	if last < 0 {
		r.Where = append(r.Where, Place{Location: location, Kind: kind, Count: n})
		return
	}
	r.Where = slices.Insert(r.Where, last+1, Place{Location: location, Kind: kind, Count: n})
}

// Merge adds the counts of others to r. Places of a location r already has
// are added to it; new locations keep their order after r's. Nil reports
// are skipped; merging r into itself doubles it.
func (r *Report) Merge(others ...*Report) {
	for _, o := range others {
		if o == nil {
			continue
		}
		if o == r {
			c := Report{Findings: slices.Clone(o.Findings), Where: slices.Clone(o.Where)}
			o = &c
		}
		placed := map[string]int{}
		for _, p := range o.Where {
			r.Add(p.Location, p.Kind, p.Count)
			placed[p.Kind] += p.Count
		}
		// Findings not backed by places (a hand-built report) still count.
		for _, f := range o.Findings {
			if n := f.Count - placed[f.Kind]; n > 0 {
				r.addFinding(f.Kind, n)
			}
		}
	}
}

func (r *Report) addFinding(kind string, n int) {
	i, ok := slices.BinarySearchFunc(r.Findings, kind, func(f Finding, k string) int { return strings.Compare(f.Kind, k) })
	if ok {
		r.Findings[i].Count += n
	} else {
		r.Findings = slices.Insert(r.Findings, i, Finding{Kind: kind, Count: n})
	}
}

// Total is the number of secrets replaced.
func (r *Report) Total() int {
	if r == nil {
		return 0
	}
	n := 0
	for _, f := range r.Findings {
		n += f.Count
	}
	return n
}

// maxRedactions is the schema's limit on a record's redactions array.
const maxRedactions = 100

// Redactions gives the record's redactions field: one entry per kind,
// sorted by kind, nil when nothing was redacted. The schema allows 100
// entries; beyond 99 kinds the rest are summed under "other".
func (r *Report) Redactions() []handoff.Redaction {
	if r == nil || len(r.Findings) == 0 {
		return nil
	}
	out := make([]handoff.Redaction, 0, min(len(r.Findings), maxRedactions))
	other := 0
	for i, f := range r.Findings {
		if f.Count < 1 {
			continue
		}
		if len(r.Findings) > maxRedactions && i >= maxRedactions-1 {
			other += f.Count
			continue
		}
		out = append(out, handoff.Redaction{Kind: f.Kind, Count: f.Count})
	}
	if other > 0 {
		i, ok := slices.BinarySearchFunc(out, "other", func(x handoff.Redaction, k string) int { return strings.Compare(x.Kind, k) })
		if ok {
			out[i].Count += other
		} else {
			out = slices.Insert(out, i, handoff.Redaction{Kind: "other", Count: other})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
