package remote

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/git"
)

// markerCommit writes the commit of a layout-2 inbox branch: one file,
// the marker, and no parent.
func (c *clone) markerCommit(ctx context.Context) (string, error) {
	g := c.git
	g.Stdin = strings.NewReader(markerV2)
	out, err := g.Run(ctx, "hash-object", "-w", "--no-filters", "--stdin")
	if err != nil {
		return "", err
	}
	return c.commitTree(ctx, map[string]string{markerFile: "100644 blob " + strings.TrimSpace(string(out)) + "\t" + markerFile}, 0, "")
}

// migrate moves a layout-1 inbox to layout 2 in one atomic push: the
// bundles of each recipient directory to/<hex>/ become the tree of that
// recipient's ref (added to what the ref may hold already), and the inbox
// branch becomes one commit holding only the layout-2 marker, leased on
// the layout-1 commit read, so that a layout-1 send racing with it makes
// the push fail and the migration start again. Senders' logs are
// dropped. Nothing new is uploaded: the bundles are the objects the
// remote has. Someone else's migration, seen on a retry, ends it.
func (c *clone) migrate(ctx context.Context) error {
	marker := c.remote.markerRef()
	_, err := c.pushRetrying(ctx, []string{marker, c.remote.refPrefix() + "*"}, nil, func(st refState) ([]update, error) {
		if v, err := c.version(ctx, st[marker]); v != 1 {
			return nil, err
		}
		es, err := c.list(ctx, st[marker], false, toDir+"/")
		if err != nil {
			return nil, err
		}
		var ups []update
		for _, e := range es {
			h, ok := strings.CutPrefix(e.path, toDir+"/")
			if !ok || e.typ != "tree" || !isHex(h, 64) {
				continue
			}
			ref := c.remote.recipientRef(h)
			recs, err := c.treeRecords(ctx, st[ref])
			if err != nil {
				return nil, err
			}
			old, err := c.treeRecords(ctx, e.object)
			if err != nil {
				return nil, err
			}
			for name, r := range old {
				if _, ok := recs[name]; !ok {
					recs[name] = r
				}
			}
			commit, err := c.commitTree(ctx, recs, len(recs), "")
			if err != nil {
				return nil, err
			}
			ups = append(ups, update{ref: ref, old: st[ref], new: commit})
		}
		commit, err := c.markerCommit(ctx)
		if err != nil {
			return nil, err
		}
		return append(ups, update{ref: marker, old: st[marker], new: commit}), nil
	})
	return err
}

// Migrate moves the layout-1 inbox of r to layout 2, as the first send to
// it would, and reports the layout it found (0 when there is no inbox yet;
// 2 when there was nothing to do).
func Migrate(ctx context.Context, dataDir string, r Remote) (int, error) {
	c, err := openClone(ctx, dataDir, r)
	if err != nil {
		return 0, err
	}
	defer c.close()
	st, err := c.sync(ctx, false, r.markerRef())
	if err != nil {
		return 0, err
	}
	v, err := c.version(ctx, st[r.markerRef()])
	if err != nil || v != 1 {
		return v, err
	}
	return v, c.migrate(ctx)
}

// Maintain compacts the local clone of r: it expires the reflogs and runs
// git gc, pruning at once, so that only what its refs (the last fetch of
// the inbox branch and of the refs a command used, and no history: layout
// 2's commits have no parents) and its outbox need is kept. It returns the size of the clone's objects
// before and after, in bytes. Nothing else ever runs gc in the clone.
func Maintain(ctx context.Context, dataDir string, r Remote) (before, after int64, err error) {
	c, err := openClone(ctx, dataDir, r)
	if err != nil {
		return 0, 0, err
	}
	defer c.close()
	objects := filepath.Join(c.dir, ".git", "objects")
	if before, err = dirSize(objects); err != nil {
		return 0, 0, err
	}
	g := c.git
	g.Timeout = git.NetworkTimeout
	for _, args := range [][]string{{"reflog", "expire", "--expire=now", "--all"}, {"gc", "--quiet", "--prune=now"}} {
		if _, err := g.Run(ctx, args...); err != nil {
			return 0, 0, err
		}
	}
	after, err = dirSize(objects)
	return before, after, err
}

// dirSize adds up the sizes of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}
