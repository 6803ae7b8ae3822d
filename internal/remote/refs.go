package remote

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// quietEnv keeps git's housekeeping off the user's path: no automatic gc
// or maintenance in the clone, and no reflogs that would keep removed
// bundles alive. (git clears these variables for the receive-pack or
// upload-pack it starts on a local remote: what that one runs is set on
// its command line, see transport.go.)
// Compacting is explicit: Maintain. What a fetch brings is kept as the
// pack it came in (two files), not unpacked into a file per object.
var quietEnv = []string{
	"GIT_CONFIG_COUNT=5",
	"GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
	"GIT_CONFIG_KEY_1=maintenance.auto", "GIT_CONFIG_VALUE_1=false",
	"GIT_CONFIG_KEY_2=receive.autogc", "GIT_CONFIG_VALUE_2=false",
	"GIT_CONFIG_KEY_3=core.logAllRefUpdates", "GIT_CONFIG_VALUE_3=false",
	"GIT_CONFIG_KEY_4=fetch.unpackLimit", "GIT_CONFIG_VALUE_4=1",
}

// Bounds of the retries of one push (a send, a removal, a migration).
const (
	// maxRounds bounds the fetch, rebuild, push rounds.
	maxRounds = 60
	// pushBudget bounds the time they may take together.
	pushBudget = 2 * time.Minute
)

// treeLimit bounds the output of ls-tree and mktree on one recipient's
// tree: about 600,000 bundles.
const treeLimit = 64 << 20

// tracking is the remote-tracking ref of a ref of the remote.
func tracking(ref string) string {
	return "refs/remotes/origin/" + strings.TrimPrefix(ref, "refs/heads/")
}

// refState is what the remote holds of some refs: each ref's commit,
// fetched; refs the remote lacks are absent.
type refState map[string]string

// lsRemote asks the remote for the commits of the given refs; a pattern
// ending in "/*" names every ref under it. Only refs matching a pattern
// exactly (or under a "/*" one) are kept.
func (c *clone) lsRemote(ctx context.Context, patterns ...string) (refState, error) {
	out, err := c.talk(ctx, append([]string{"ls-remote", "--refs", "origin"}, patterns...)...)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", c.remote.Name, err)
	}
	st := refState{}
	for _, line := range strings.Split(string(out), "\n") {
		oid, ref, ok := strings.Cut(line, "\t")
		if !ok || !(isHex(oid, 40) || isHex(oid, 64)) {
			continue
		}
		for _, p := range patterns {
			if ref == p || strings.HasSuffix(p, "/*") && strings.HasPrefix(ref, strings.TrimSuffix(p, "*")) && !strings.Contains(ref[len(p)-1:], "/") {
				st[ref] = oid
			}
		}
	}
	return st, nil
}

// local reads the remote-tracking refs of the given refs (or, for a
// pattern ending in "/*", every one under it): what was fetched last.
func (c *clone) local(ctx context.Context, patterns ...string) (refState, error) {
	var args []string
	for _, p := range patterns {
		args = append(args, tracking(p))
	}
	out, err := c.git.Run(ctx, append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, args...)...)
	if err != nil {
		return nil, err
	}
	st := refState{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		oid, ref, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		ref = "refs/heads/" + strings.TrimPrefix(ref, "refs/remotes/origin/")
		for _, p := range patterns {
			if ref == p || strings.HasSuffix(p, "/*") && strings.HasPrefix(ref, strings.TrimSuffix(p, "*")) {
				st[ref] = oid
			}
		}
	}
	return st, nil
}

// sync brings the remote-tracking refs of the given refs up to date and
// returns them. A clone just made fetches them at once, in one git fetch
// (asking first only when the remote lacks one of them). Otherwise one
// ls-remote, beside a read of the remote-tracking refs, says what changed,
// and at most one fetch gets that and nothing else. With noFetch it only
// reads them. An ls-remote of the same refs this command already made
// (clone.seen) stands for its own.
func (c *clone) sync(ctx context.Context, noFetch bool, patterns ...string) (refState, error) {
	if noFetch {
		return c.local(ctx, patterns...)
	}
	if c.fresh {
		c.fresh = false
		var specs []string
		for _, p := range patterns {
			specs = append(specs, "+"+p+":"+tracking(p))
		}
		err := c.fetch(ctx, specs)
		if err == nil {
			return c.local(ctx, patterns...)
		}
		if !strings.Contains(err.Error(), "couldn't find remote ref") {
			return nil, err
		}
		// A ref the remote lacks (no inbox yet, nothing ever sent to
		// me): ask which it has.
	}
	var have refState
	var haveErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		have, haveErr = c.local(ctx, patterns...)
	}()
	want, err := c.seen, error(nil)
	if c.seen == nil {
		want, err = c.lsRemote(ctx, patterns...)
	}
	c.seen = nil
	<-done
	if err != nil {
		return nil, err
	}
	if haveErr != nil {
		return nil, haveErr
	}
	var specs []string
	for ref, oid := range want {
		if have[ref] != oid {
			specs = append(specs, "+"+ref+":"+tracking(ref))
		}
	}
	if len(specs) > 0 {
		if err := c.fetch(ctx, specs); err != nil {
			return nil, err
		}
	}
	for ref := range have {
		if _, ok := want[ref]; !ok {
			// Gone from the remote: forget what we saw of it.
			if _, err := c.git.Run(ctx, "update-ref", "-d", tracking(ref)); err != nil {
				return nil, err
			}
		}
	}
	if len(specs) == 0 {
		return want, nil
	}
	return c.local(ctx, patterns...)
}

// fetch runs one git fetch of the given refspecs. Only the v2 refs' tips
// are ever needed, and they have no parents; the v1 branch is fetched
// whole, as v1 needs.
func (c *clone) fetch(ctx context.Context, specs []string) error {
	args := append([]string{"fetch", "--quiet", "--no-tags", "--no-recurse-submodules", "--no-write-fetch-head", "origin"}, specs...)
	if _, err := c.talk(ctx, args...); err != nil {
		return fmt.Errorf("fetch %s: %w", c.remote.Name, err)
	}
	return nil
}

// version reads the layout the inbox branch's commit declares: 0 when
// there is no inbox yet, 1 or 2, or an error for anything else.
func (c *clone) version(ctx context.Context, marker string) (int, error) {
	if marker == "" {
		return 0, nil
	}
	es, err := c.list(ctx, marker, false, markerFile)
	if err != nil {
		return 0, err
	}
	if len(es) == 0 {
		// A layout-1 branch before its first send wrote the marker.
		return 1, nil
	}
	if v := markerVersion(es[0]); v != 0 {
		return v, nil
	}
	return 0, c.errNotInbox()
}

// update is one ref a push changes: from old ("" when the ref is new) to
// new.
type update struct{ ref, old, new string }

// push makes all the updates or none (--atomic), each only if the remote
// still holds what it was built on (--force-with-lease), and records them
// as fetched.
func (c *clone) push(ctx context.Context, ups []update) error {
	args := []string{"push", "--quiet", "--atomic", "--no-verify"}
	for _, u := range ups {
		args = append(args, "--force-with-lease="+u.ref+":"+u.old)
	}
	args = append(args, "origin")
	for _, u := range ups {
		args = append(args, u.new+":"+u.ref)
	}
	if _, err := c.talk(ctx, args...); err != nil {
		return err
	}
	for _, u := range ups {
		if _, err := c.git.Run(ctx, "update-ref", tracking(u.ref), u.new); err != nil {
			return err
		}
	}
	return nil
}

// pushRetrying builds updates from fresh state and pushes them until they
// land: a push that loses a race (the remote changed under the lease) is
// rebuilt on what the remote now holds and pushed again, after a random
// wait that grows with each round, within maxRounds and pushBudget. A push
// that fails while the remote did not change is not a race: its error is
// returned at once. build returns no updates when nothing is left to do.
// The first round starts from first when it is not nil (refs just synced).
func (c *clone) pushRetrying(ctx context.Context, patterns []string, first refState, build func(refState) ([]update, error)) (rounds int, err error) {
	deadline := time.Now().Add(pushBudget)
	var pushErr error
	var leased refState
	unchanged := 0
	for rounds = 1; ; rounds++ {
		st := first
		if rounds > 1 || st == nil {
			if st, err = c.sync(ctx, false, patterns...); err != nil {
				return rounds, err
			}
		}
		if pushErr != nil && maps.Equal(st, leased) {
			// Nobody else pushed: not a race, unless two pushes took
			// the remote's ref lock at once and both lost; a second
			// failure on the same state is the push's own.
			if unchanged++; unchanged > 1 {
				return rounds, fmt.Errorf("push to %s: %w", c.remote.Name, pushErr)
			}
		}
		ups, err := build(st)
		if err != nil || len(ups) == 0 {
			return rounds, err
		}
		if pushErr = c.push(ctx, ups); pushErr == nil {
			return rounds, nil
		}
		leased = st
		if rounds >= maxRounds || time.Now().After(deadline) {
			return rounds, fmt.Errorf("push to %s: gave up after %d rounds, the remote kept changing: %w", c.remote.Name, rounds, pushErr)
		}
		backoff(ctx, rounds)
	}
}

// backoff waits a random time, up to 25 ms doubled each round and at most
// 1.6 s, so that pushers in step fall out of it.
func backoff(ctx context.Context, round int) {
	ceiling := 25 * time.Millisecond << min(round-1, 6)
	d := time.Duration(rand.Int64N(int64(ceiling)))
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// treeRecords lists a commit's top-level tree as mktree input records
// ("MODE TYPE OID\tNAME"), keyed by name: from what this command already
// listed of it (clone.trees), or with one ls-tree.
func (c *clone) treeRecords(ctx context.Context, commit string) (map[string]string, error) {
	if recs, ok := c.trees[commit]; ok {
		return maps.Clone(recs), nil
	}
	recs := map[string]string{}
	if commit == "" {
		return recs, nil
	}
	g := c.git
	g.Limit = treeLimit
	out, err := g.Run(ctx, "ls-tree", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if _, name, ok := bytes.Cut(rec, []byte{'\t'}); ok {
			recs[string(name)] = string(rec)
		}
	}
	return recs, nil
}

// remember keeps the top-level entries of commit, as list returned them,
// for treeRecords.
func (c *clone) remember(commit string, es []entry) {
	recs := map[string]string{}
	for _, e := range es {
		recs[e.path] = e.mode + " " + e.typ + " " + e.object + "\t" + e.path
	}
	if c.trees == nil {
		c.trees = map[string]map[string]string{}
	}
	c.trees[commit] = recs
}

// commitTree writes a tree of the given records and a commit of it with
// no parent (each ref of a layout-2 inbox is one commit, so nothing
// removed from it stays reachable), and returns the commit. An empty tree
// is git's own, written by no process; like is an object id of the
// repository, which tells its length.
func (c *clone) commitTree(ctx context.Context, recs map[string]string, bundles int, like string) (string, error) {
	tree := emptyTree(len(like))
	if len(recs) > 0 || tree == "" {
		var in bytes.Buffer
		for _, r := range recs {
			in.WriteString(r)
			in.WriteByte(0)
		}
		g := c.git
		g.Stdin = &in
		out, err := g.Run(ctx, "mktree", "-z")
		if err != nil {
			return "", err
		}
		tree = strings.TrimSpace(string(out))
	}
	g := c.git
	g.Env = append(slices.Clone(g.Env), "GIT_AUTHOR_DATE="+c.date, "GIT_COMMITTER_DATE="+c.date)
	out, err := g.Run(ctx, "commit-tree", "--no-gpg-sign", "-m", fmt.Sprintf("%s%d bundle%s", commitPrefix, bundles, plural(bundles)), tree)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// emptyTree is the id of the empty tree in the object format whose ids
// have n hex digits ("" for another length).
func emptyTree(n int) string {
	switch n {
	case 40:
		return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	case 64:
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return ""
}
