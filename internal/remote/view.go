package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"strings"
)

// view is an inbox as one command sees it: its layout, and where my
// directories are in it. In layout 1 my directory for recipient hash h is
// to/<hex>/ of the inbox branch; in layout 2 it is the tree of my ref
// refs/heads/inbox/<hex>, whose entries are named inbox/<hex>/<name> in
// what commands report.
type view struct {
	c       *clone
	version int // 0 (no inbox yet), 1 or 2
	st      refState
	dirs    []string // my recipient hashes
}

// open syncs the inbox branch and my refs (unless noFetch) and reads the
// layout, refusing one this program does not know.
func (c *clone) open(ctx context.Context, dirs []string, noFetch bool) (*view, error) {
	st, err := c.sync(ctx, noFetch, c.myRefs(dirs)...)
	if err != nil {
		return nil, err
	}
	v, err := c.version(ctx, st[c.remote.markerRef()])
	if err != nil {
		return nil, err
	}
	if v == 0 && len(st) > 0 {
		// My refs without the branch (someone deleted it): still mine.
		v = 2
	}
	return &view{c: c, version: v, st: st, dirs: dirs}, nil
}

// myRefs are the inbox branch and the refs of my recipient hashes.
func (c *clone) myRefs(dirs []string) []string {
	refs := []string{c.remote.markerRef()}
	for _, d := range dirs {
		refs = append(refs, c.remote.recipientRef(d))
	}
	return refs
}

// commit is the commit of the inbox branch ("" when there is none).
func (v *view) commit() string { return v.st[v.c.remote.markerRef()] }

// dir is the directory of recipient hash h, as entries' paths name it.
func (v *view) dir(h string) string {
	if v.version == 2 {
		return strings.TrimPrefix(v.c.remote.recipientRef(h), "refs/heads/")
	}
	return RecipientDir(h)
}

// entries lists my directories, without descending into subdirectories.
func (v *view) entries(ctx context.Context) ([]entry, error) {
	switch v.version {
	case 1:
		var specs []string
		for _, d := range v.dirs {
			specs = append(specs, RecipientDir(d)+"/")
		}
		return v.c.list(ctx, v.commit(), false, specs...)
	case 2:
		var out []entry
		for _, d := range v.dirs {
			commit := v.st[v.c.remote.recipientRef(d)]
			es, err := v.c.list(ctx, commit, false)
			if err != nil {
				return nil, err
			}
			v.c.remember(commit, es)
			for _, e := range es {
				e.path = v.dir(d) + "/" + e.path
				out = append(out, e)
			}
		}
		return out, nil
	}
	return nil, nil
}

// parse names the recipient hash and bundle id of a path in one of my
// directories, and refuses any other path.
func (v *view) parse(path string) (recipientHash, bundleID string, ok bool) {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return "", "", false
	}
	for _, d := range v.dirs {
		if path[:i] == v.dir(d) {
			id, ok := parseBundleName(path[i+1:])
			return d, id, ok
		}
	}
	return "", "", false
}

// reader prepares to read the given entries, bounded by limit each, and
// returns how to open one, and a function that clears what was prepared.
// Layout 1 checks them out (only those); layout 2 reads their blobs.
func (v *view) reader(ctx context.Context, items []Item, limit int64) (open func(Item) (io.ReadSeekCloser, error), clear func(), err error) {
	if v.version == 1 {
		// One file of the work tree per object: entries that point to
		// the same object read the same bytes.
		var paths []string
		first := map[string]string{}
		for _, it := range items {
			if _, ok := first[it.entry.object]; !ok {
				first[it.entry.object] = it.Path
				paths = append(paths, it.Path)
			}
		}
		clear, err := v.c.checkout(ctx, v.commit(), paths)
		return func(it Item) (io.ReadSeekCloser, error) {
			path, ok := first[it.entry.object]
			if !ok {
				return nil, fmt.Errorf("%s was not checked out", it.Path)
			}
			return v.c.openChecked(path, limit)
		}, clear, err
	}
	// Blobs are read in batches of at most batchBytes, each with one git
	// cat-file --batch: one process for a receive's bundles, not one each.
	cache := map[string][]byte{}
	// A file several entries point to is read once in a batch: only the
	// first of them is read (readOnce), and a later read of the same file
	// costs one more cat-file at most.
	return func(it Item) (io.ReadSeekCloser, error) {
		if checkoutHook != nil {
			checkoutHook([]string{it.Path})
		}
		if !it.entry.regular() || it.entry.size > limit {
			return nil, fmt.Errorf("%s is not a regular file of at most %d bytes", it.Path, limit)
		}
		data, ok := cache[it.entry.object]
		if !ok {
			var batch []entry
			var total int64
			inBatch := map[string]bool{}
			for _, next := range items {
				e := next.entry
				if _, done := cache[e.object]; done || inBatch[e.object] || !e.regular() || e.size > limit || total+e.size > batchBytes && len(batch) > 0 {
					continue
				}
				if e.object == it.entry.object || len(batch) > 0 {
					batch = append(batch, e)
					inBatch[e.object] = true
					total += e.size
				}
			}
			if err := v.c.catBlobs(ctx, batch, cache); err != nil {
				return nil, err
			}
			if data, ok = cache[it.entry.object]; !ok {
				return nil, fmt.Errorf("%s: git cat-file did not return it", it.Path)
			}
		}
		delete(cache, it.entry.object)
		if readHook != nil {
			return readHook(nopCloser{bytes.NewReader(data)}), nil
		}
		return nopCloser{bytes.NewReader(data)}, nil
	}, func() {}, nil
}

// batchBytes bounds the bundles one git cat-file --batch reads.
const batchBytes = 64 << 20

// catBlobs reads the blobs of es, whose sizes ls-tree gave, in one git
// cat-file --batch, into cache by object id. Any object that is not a
// blob of the size given is an error.
func (c *clone) catBlobs(ctx context.Context, es []entry, cache map[string][]byte) error {
	var in bytes.Buffer
	var total int64
	for _, e := range es {
		in.WriteString(e.object + "\n")
		total += e.size + 100
	}
	g := c.git
	g.Stdin, g.Limit = &in, int(total)
	out, err := g.Run(ctx, "cat-file", "--batch")
	if err != nil {
		return err
	}
	for _, e := range es {
		header, rest, ok := bytes.Cut(out, []byte{'\n'})
		want := fmt.Sprintf("%s blob %d", e.object, e.size)
		if !ok || string(header) != want || int64(len(rest)) < e.size+1 || rest[e.size] != '\n' {
			return fmt.Errorf("git cat-file --batch: unexpected answer for %s", e.object)
		}
		cache[e.object] = rest[:e.size:e.size]
		out = rest[e.size+1:]
	}
	return nil
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

// removeDelivered removes from my refs every bundle the ledger records
// (imported, or rejected for good), and nothing else: each ref is
// rewritten as one commit of what is left, leased on the commit read, so
// that a bundle a sender pushes meanwhile makes the push fail, and the
// removal is made again on what the remote then holds. It returns how
// many bundles it removed, and the commits of the inbox branch and my
// refs it left.
func (c *clone) removeDelivered(ctx context.Context, v *view, led *ledger) (removed int, left refState, err error) {
	refs := c.myRefs(v.dirs)[1:]
	first := refState{}
	for _, r := range refs {
		if v.st[r] != "" {
			first[r] = v.st[r]
		}
	}
	left = maps.Clone(v.st)
	_, err = c.pushRetrying(ctx, refs, first, func(st refState) ([]update, error) {
		removed = 0
		var ups []update
		for _, ref := range refs {
			left[ref] = st[ref]
			if st[ref] == "" {
				delete(left, ref)
				continue
			}
			recs, err := c.treeRecords(ctx, st[ref])
			if err != nil {
				return nil, err
			}
			n := 0
			for name := range recs {
				if id, ok := parseBundleName(name); ok {
					if _, done := led.entries[id]; done {
						delete(recs, name)
						n++
					}
				}
			}
			if n == 0 {
				continue
			}
			commit, err := c.commitTree(ctx, recs, len(recs), st[ref])
			if err != nil {
				return nil, err
			}
			ups = append(ups, update{ref: ref, old: st[ref], new: commit})
			left[ref] = commit
			removed += n
		}
		return ups, nil
	})
	if err != nil {
		return 0, nil, err
	}
	return removed, left, nil
}
