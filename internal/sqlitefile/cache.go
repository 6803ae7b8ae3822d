package sqlitefile

import "sync"

// A reader that looks rows up one at a time (ScanEqual through an index:
// OpenCode's parts of one session) descends from a b-tree's root for
// each value and each row: it reads the same interior pages, and often
// the same leaf, again and again. An open DB keeps those pages, within a
// bound whatever the database, rather than reading and allocating each
// anew. The cache changes only where a page's bytes come from: every use
// of a page still checks it as a b-tree page (btreePage), and every scan
// still visits a page at most once and no deeper than Limits.MaxDepth.

const (
	// maxCachedInterior bounds the bytes of interior pages kept. The
	// first read stay: every descent starts at the root, so the levels
	// nearest it are kept.
	maxCachedInterior = 4 << 20
	// recentLeaves is how many of the leaf pages read last are kept:
	// rowids (and index keys) looked up in order lie on the same leaf,
	// one after another.
	recentLeaves = 4
)

// pageCache is a DB's cache of b-tree pages. Pages in it are never
// written to: a page handed out may be read by a scan still using it.
type pageCache struct {
	mu       sync.Mutex
	interior map[uint32][]byte
	bytes    int
	leaves   [recentLeaves]cachedLeaf
	next     int // the leaf slot to replace next
}

type cachedLeaf struct {
	n uint32
	p []byte
}

// get is page n when the cache holds it.
func (c *pageCache) get(n uint32) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.interior[n]; ok {
		return p, true
	}
	for _, l := range c.leaves {
		if l.n == n && l.p != nil {
			return l.p, true
		}
	}
	return nil, false
}

// keep adds page n, a b-tree page that was just checked, interior or
// leaf, within the bounds.
func (c *pageCache) keep(n uint32, p []byte, interior bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if interior {
		if _, ok := c.interior[n]; ok || c.bytes+len(p) > maxCachedInterior {
			return
		}
		if c.interior == nil {
			c.interior = map[uint32][]byte{}
		}
		c.interior[n] = p
		c.bytes += len(p)
		return
	}
	for _, l := range c.leaves {
		if l.n == n && l.p != nil {
			return
		}
	}
	c.leaves[c.next] = cachedLeaf{n, p}
	c.next = (c.next + 1) % recentLeaves
}

// drop lets go of every page kept.
func (c *pageCache) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.interior, c.bytes, c.leaves, c.next = nil, 0, [recentLeaves]cachedLeaf{}, 0
}
