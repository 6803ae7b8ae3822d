package remote

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/store"
)

func TestMain(m *testing.M) {
	// Nothing of the developer's git configuration may change a test.
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1"} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_DIR", "GIT_INDEX_FILE"} {
		if err := os.Unsetenv(v); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}

// machine is one simulated computer: its own store, keys and clones.
type machine struct {
	t    testing.TB
	name string
	data string
	keys exchange.Keyring
	s    *store.Store
	info *exchange.KeyInfo
	sk   *crypto.SigningKey
}

func newMachine(t testing.TB, name string) *machine {
	t.Helper()
	dir := t.TempDir()
	m := &machine{t: t, name: name, data: filepath.Join(dir, "data"), keys: exchange.Keyring{Dir: filepath.Join(dir, "config")}}
	var err error
	if m.info, err = m.keys.Generate(name, nil, false); err != nil {
		t.Fatal(err)
	}
	if m.s, err = store.Open(m.data); err != nil {
		t.Fatal(err)
	}
	if m.sk, err = m.keys.SigningKey(nil); err != nil {
		t.Fatal(err)
	}
	return m
}

// recipient is m's age recipient, as others encrypt to it.
func (m *machine) recipient() crypto.RecipientInfo {
	r, canon, err := crypto.ParseRecipient(m.info.AgeRecipient)
	if err != nil {
		m.t.Fatal(err)
	}
	return crypto.RecipientInfo{Recipient: r, Canonical: canon}
}

func (m *machine) hash() string { return crypto.RecipientHash(m.info.AgeRecipient) }

// trusts adds other's signing key to m's trust store.
func (m *machine) trusts(other *machine) {
	err := crypto.UpdateTrustStore(m.keys.TrustPath(), func(ts *crypto.TrustStore) error {
		return ts.Add(other.name, other.sk.Public())
	})
	if err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) save(title string) *handoff.Record {
	m.t.Helper()
	rec, err := handoff.New(time.Now(), "generic", title)
	if err != nil {
		m.t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/p", Name: "p"}
	if err := m.s.Save(rec); err != nil {
		m.t.Fatal(err)
	}
	return rec
}

func (m *machine) sendOpts(r Remote, rec *handoff.Record, to ...*machine) SendOptions {
	o := SendOptions{Remote: r, DataDir: m.data, Store: m.s, Record: rec, SigningKey: m.sk,
		Producer: bundle.Producer{Name: "session-handoff", Version: "test"}}
	for _, x := range to {
		o.Recipients = append(o.Recipients, x.recipient())
	}
	return o
}

func (m *machine) send(r Remote, rec *handoff.Record, to ...*machine) *SendResult {
	m.t.Helper()
	res, err := Send(context.Background(), m.sendOpts(r, rec, to...))
	if err != nil {
		m.t.Fatalf("%s: send: %v", m.name, err)
	}
	return res
}

func (m *machine) readOptions() bundle.ReadOptions {
	ids, recips, err := m.keys.Identities(nil, nil)
	if err != nil {
		m.t.Fatal(err)
	}
	return bundle.ReadOptions{Identities: ids, Recipients: recips}
}

func (m *machine) receiveOpts(r Remote) ReceiveOptions {
	return ReceiveOptions{Remote: r, DataDir: m.data, Store: m.s, Keys: m.keys, Read: m.readOptions()}
}

func (m *machine) receive(r Remote) *ReceiveResult {
	m.t.Helper()
	res, err := Receive(context.Background(), m.receiveOpts(r))
	if err != nil {
		m.t.Fatalf("%s: receive: %v", m.name, err)
	}
	return res
}

func (m *machine) inbox(r Remote) *InboxListing {
	m.t.Helper()
	l, err := Inbox(context.Background(), InboxOptions{Remote: r, DataDir: m.data, Keys: m.keys, Read: m.readOptions()})
	if err != nil {
		m.t.Fatalf("%s: inbox: %v", m.name, err)
	}
	return l
}

// count returns how many handoffs m's store holds.
func (m *machine) count() int {
	m.t.Helper()
	list, err := m.s.List(store.Filter{})
	if err != nil {
		m.t.Fatal(err)
	}
	return len(list)
}

// bareRemote makes an empty bare repository and a remote for it.
func bareRemote(t testing.TB) Remote {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inbox.git")
	gitT(t, "", "init", "--quiet", "--bare", dir)
	return Remote{Name: "team", URL: "file://" + dir, Branch: DefaultBranch}
}

// gitT runs git for a test, failing it on error.
func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitIn(dir, "", args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func gitIn(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// inboxDir is where remoteFiles, plant and remoteBlob put the bundles of
// recipient hash h in a layout-2 inbox: "inbox/<hex>".
func inboxDir(r Remote, h string) string { return strings.TrimPrefix(r.recipientRef(h), "refs/heads/") }

// split maps a test path to the ref and the path in it: "inbox/<hex>/x"
// is x of that recipient's ref, anything else a path of the inbox branch.
func split(r Remote, path string) (ref, inner string) {
	ns := strings.TrimPrefix(r.refPrefix(), "refs/heads/")
	if rest, ok := strings.CutPrefix(path, ns); ok {
		if h, inner, ok := strings.Cut(rest, "/"); ok {
			return r.refPrefix() + h, inner
		}
	}
	return r.markerRef(), path
}

// remoteFiles lists the paths on the remote: those of the inbox branch,
// then those of each recipient ref as inbox/<hex>/<path>.
func remoteFiles(t *testing.T, r Remote) []string {
	t.Helper()
	dir := strings.TrimPrefix(r.URL, "file://")
	var files []string
	refs := gitT(t, dir, "for-each-ref", "--format=%(refname)", r.markerRef(), r.refPrefix())
	for _, ref := range strings.Fields(refs) {
		out := gitT(t, dir, "ls-tree", "-r", "--name-only", ref)
		for _, f := range strings.Fields(out) {
			if ref != r.markerRef() {
				f = strings.TrimPrefix(ref, "refs/heads/") + "/" + f
			}
			files = append(files, f)
		}
	}
	return files
}

// countOutcome counts items of a receive with the given outcome.
func countOutcome(res *ReceiveResult, o Outcome) int {
	n := 0
	for _, it := range res.Items {
		if it.Outcome == o {
			n++
		}
	}
	return n
}

func storeFilter() store.Filter { return store.Filter{} }

// planted is a file a hostile writer puts straight into the remote.
type planted struct {
	path    string
	mode    string // 100644 by default; 120000 makes a symbolic link
	content []byte
}

// plant commits files into the remote's inbox branch as anyone with write
// access could, bypassing Send. Names git's index refuses (like "..") go
// in with oddName: a file of that name inside dir.
func plant(t *testing.T, r Remote, files []planted, oddDir, oddName string) {
	t.Helper()
	byRef := map[string][]planted{}
	for _, f := range files {
		ref, inner := split(r, f.path)
		f.path = inner
		byRef[ref] = append(byRef[ref], f)
	}
	oddRef, oddInner := "", ""
	if oddName != "" {
		oddRef, oddInner = split(r, oddDir+"/x")
		oddInner = strings.TrimSuffix(strings.TrimSuffix(oddInner, "x"), "/")
		if _, ok := byRef[oddRef]; !ok {
			byRef[oddRef] = nil
		}
	}
	for ref, fs := range byRef {
		if ref == oddRef {
			plantRef(t, r, ref, fs, oddInner, oddName)
		} else {
			plantRef(t, r, ref, fs, "", "")
		}
	}
}

// plantRef commits files into one ref, on top of what it holds.
func plantRef(t *testing.T, r Remote, ref string, files []planted, oddDir, oddName string) {
	t.Helper()
	bare := strings.TrimPrefix(r.URL, "file://")
	idx := filepath.Join(t.TempDir(), "index")
	run := func(stdin []byte, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = bare
		cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+idx, "GIT_AUTHOR_NAME=mallory", "GIT_AUTHOR_EMAIL=m@example.com",
			"GIT_COMMITTER_NAME=mallory", "GIT_COMMITTER_EMAIL=m@example.com")
		if stdin != nil {
			cmd.Stdin = bytes.NewReader(stdin)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	head := ""
	if out, err := exec.Command("git", "-C", bare, "rev-parse", "--verify", "--quiet", ref).Output(); err == nil {
		head = strings.TrimSpace(string(out))
		run(nil, "read-tree", head)
	}
	for _, f := range files {
		mode := f.mode
		if mode == "" {
			mode = "100644"
		}
		blob := run(f.content, "hash-object", "-w", "--stdin")
		run(nil, "update-index", "--add", "--replace", "--cacheinfo", mode+","+blob+","+f.path)
	}
	tree := run(nil, "write-tree")
	if oddName != "" && oddDir == "" {
		blob := run([]byte("odd"), "hash-object", "-w", "--stdin")
		tree = run([]byte(run(nil, "ls-tree", tree)+"\n100644 blob "+blob+"\t"+oddName+"\n"), "mktree")
	} else if oddName != "" {
		// Rebuild the trees from dir up to the root by hand.
		blob := run([]byte("odd"), "hash-object", "-w", "--stdin")
		parts := strings.Split(oddDir, "/")
		sub := run(nil, "rev-parse", tree+":"+oddDir)
		listing := run(nil, "ls-tree", sub)
		sub = run([]byte(listing+"\n100644 blob "+blob+"\t"+oddName+"\n"), "mktree")
		for i := len(parts) - 1; i >= 0; i-- {
			parent := tree
			if i > 0 {
				parent = run(nil, "rev-parse", tree+":"+strings.Join(parts[:i], "/"))
			}
			var lines []string
			for _, l := range strings.Split(run(nil, "ls-tree", parent), "\n") {
				if !strings.HasSuffix(l, "\t"+parts[i]) {
					lines = append(lines, l)
				}
			}
			lines = append(lines, "040000 tree "+sub+"\t"+parts[i])
			sub = run([]byte(strings.Join(lines, "\n")+"\n"), "mktree")
		}
		tree = sub
	}
	args := []string{"commit-tree", "-m", "planted", tree}
	if head != "" {
		args = append(args, "-p", head)
	}
	commit := run(nil, args...)
	run(nil, "update-ref", ref, commit)
}

// remoteBlob reads one file of the remote's inbox branch.
func remoteBlob(t *testing.T, r Remote, path string) []byte {
	t.Helper()
	bare := strings.TrimPrefix(r.URL, "file://")
	ref, inner := split(r, path)
	out, err := exec.Command("git", "-C", bare, "cat-file", "blob", ref+":"+inner).Output()
	if err != nil {
		t.Fatalf("read %s from the remote: %v", path, err)
	}
	return out
}
