package redact

// The prefilter: one pass of a deterministic Aho-Corasick automaton over the
// text finds every occurrence of the trigger literals (provider prefixes such
// as "ghp_" or "akia", keywords such as "token" or "pass", "://" and
// "-----begin"), ASCII case folded. Only at those positions do the rules look
// at the text around them. The automaton runs over a reduced alphabet (the
// bytes that occur in some trigger, letters folded; every other byte is class
// 0) so that its transition table stays in the L1 cache, and its states are
// numbered so that one comparison tells whether a state ends a trigger.

const classBits = 6 // up to 64 byte classes

type dfa struct {
	cls  [256]uint8
	next *[1 << 16]uint16 // (state<<classBits | class) -> next state<<classBits
	// acc is the premultiplied number of the first accepting state: states
	// at or above it end at least one trigger.
	acc uint32
	// out lists, for each state, the triggers that end there.
	out [][]int16
	// lens[t] is the length of trigger t; maxLen the longest.
	lens   []int
	maxLen int
}

func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newDFA builds the automaton for lits, which must be lower case, non-empty
// and use at most 63 distinct bytes.
func newDFA(lits []string) *dfa {
	d := &dfa{lens: make([]int, len(lits))}
	nclass := 1
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			c := l[i]
			if d.cls[c] == 0 {
				if nclass == 1<<classBits {
					panic("redact: too many byte classes in triggers")
				}
				d.cls[c] = uint8(nclass)
				if 'a' <= c && c <= 'z' {
					d.cls[c-'a'+'A'] = uint8(nclass)
				}
				nclass++
			}
		}
	}
	// Trie.
	type node struct {
		child [1 << classBits]int32
		fail  int32
		out   []int16
	}
	nodes := []node{{}}
	for t, l := range lits {
		d.lens[t] = len(l)
		d.maxLen = max(d.maxLen, len(l))
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := d.cls[l[i]]
			if nodes[s].child[c] == 0 {
				nodes = append(nodes, node{})
				nodes[s].child[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].child[c]
		}
		nodes[s].out = append(nodes[s].out, int16(t))
	}
	// Breadth-first: failure links, outputs, and the full transition
	// function (child[c] becomes goto(s, c) for every class).
	queue := []int32{}
	for c := 1; c < 1<<classBits; c++ {
		if ch := nodes[0].child[c]; ch != 0 {
			nodes[ch].fail = 0
			queue = append(queue, ch)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := 0; c < 1<<classBits; c++ {
			ch := nodes[s].child[c]
			if ch != 0 && c != 0 {
				nodes[ch].fail = nodes[f].child[c]
				queue = append(queue, ch)
			} else {
				nodes[s].child[c] = nodes[f].child[c]
			}
		}
	}
	// Renumber: non-accepting states first (root stays 0), accepting last.
	if len(nodes) > 1<<(16-classBits) {
		panic("redact: trigger automaton too large")
	}
	perm := make([]int32, len(nodes))
	k := int32(0)
	for pass := 0; pass < 2; pass++ {
		for s := range nodes {
			if (len(nodes[s].out) > 0) == (pass == 1) {
				perm[s] = k
				k++
			}
		}
		if pass == 0 {
			d.acc = uint32(k) << classBits
		}
	}
	d.next = new([1 << 16]uint16)
	d.out = make([][]int16, len(nodes))
	for s := range nodes {
		ns := perm[s]
		d.out[ns] = nodes[s].out
		for c := 0; c < 1<<classBits; c++ {
			d.next[int(ns)<<classBits|c] = uint16(perm[nodes[s].child[c]] << classBits)
		}
	}
	return d
}

// hit is a position where some trigger ends: end is one past its last byte.
type hit struct {
	end   int32
	state uint16
}

// scan appends to hits every position of buf where a trigger ends, in
// increasing order. A single automaton is bound by the latency of one table
// load per byte; scan runs four of them over four quarters of buf in one
// loop so that the loads overlap, each quarter's automaton first warmed up on
// the maxLen-1 bytes before it.
func (d *dfa) scan(buf []byte, hits []hit, scratch *[4][]hit) []hit {
	const ways = 4
	w := d.maxLen - 1
	q := len(buf) / ways
	if q < 256 {
		return d.scan1(buf, 0, 0, hits)
	}
	next := d.next
	cls := &d.cls
	acc := d.acc
	var st [ways]uint32
	for j := 1; j < ways; j++ {
		// Warm up: hits ending at or before j*q belong to the quarter before.
		s := uint32(0)
		for _, b := range buf[j*q-w : j*q] {
			s = uint32(next[uint16(s)|uint16(cls[b])])
		}
		st[j] = s
	}
	var part [ways][]hit
	for j := range part {
		part[j] = scratch[j][:0]
	}
	b0, b1, b2, b3 := buf[0:q], buf[q:2*q], buf[2*q:3*q], buf[3*q:4*q]
	s0, s1, s2, s3 := st[0], st[1], st[2], st[3]
	for i := range b0 {
		s0 = uint32(next[uint16(s0)|uint16(cls[b0[i]])])
		s1 = uint32(next[uint16(s1)|uint16(cls[b1[i]])])
		s2 = uint32(next[uint16(s2)|uint16(cls[b2[i]])])
		s3 = uint32(next[uint16(s3)|uint16(cls[b3[i]])])
		if s0 >= acc || s1 >= acc || s2 >= acc || s3 >= acc {
			if s0 >= acc {
				part[0] = append(part[0], hit{end: int32(i + 1), state: uint16(s0 >> classBits)})
			}
			if s1 >= acc {
				part[1] = append(part[1], hit{end: int32(q + i + 1), state: uint16(s1 >> classBits)})
			}
			if s2 >= acc {
				part[2] = append(part[2], hit{end: int32(2*q + i + 1), state: uint16(s2 >> classBits)})
			}
			if s3 >= acc {
				part[3] = append(part[3], hit{end: int32(3*q + i + 1), state: uint16(s3 >> classBits)})
			}
		}
	}
	for j := range part {
		hits = append(hits, part[j]...)
		scratch[j] = part[j]
	}
	return d.scan1(buf, 4*q, s3, hits)
}

// scan1 continues one automaton in state st from buf[from].
func (d *dfa) scan1(buf []byte, from int, st uint32, hits []hit) []hit {
	next := d.next
	cls := &d.cls
	acc := d.acc
	for i, b := range buf[from:] {
		st = uint32(next[uint16(st)|uint16(cls[b])])
		if st >= acc {
			hits = append(hits, hit{end: int32(from + i + 1), state: uint16(st >> classBits)})
		}
	}
	return hits
}
