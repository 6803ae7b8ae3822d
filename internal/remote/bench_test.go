package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/store"
)

// A large inbox: 50 recipients with 100 bundles each (5,000). My 100 are
// real bundles from alice; the others' are dummy files, since nobody
// reads them.
const (
	benchRecipients = 50
	benchPerDir     = 100
)

// fastImport writes files straight into refs of the bare repository of r
// with git fast-import (one pack, no work tree): refs[ref][path] = data,
// each ref one commit without parent.
func fastImport(t testing.TB, r Remote, refs map[string]map[string][]byte) {
	t.Helper()
	var stream bytes.Buffer
	for ref, files := range refs {
		fmt.Fprintf(&stream, "commit %s\ncommitter b <b@b> 1795424400 +0000\ndata 0\n", ref)
		for _, path := range slices.Sorted(maps.Keys(files)) {
			data := files[path]
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n", path, len(data))
			stream.Write(data)
			stream.WriteByte('\n')
		}
		stream.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = strings.TrimPrefix(r.URL, "file://")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
}

// bigInbox writes a layout-2 inbox straight into the bare repository:
// benchRecipients refs of benchPerDir bundles, mine real ones from alice
// (unread of them), the others' random bytes of the given size. Then it
// gives me a clone with my ref fetched.
func bigInbox(b *testing.B, unread, size int) (r Remote, me *machine) {
	b.Helper()
	r = bareRemote(b)
	alice := newMachine(b, "alice@laptop")
	me = newMachine(b, "bob@desk")
	me.trusts(alice)
	refs := map[string]map[string][]byte{r.markerRef(): {markerFile: []byte(markerV2)}}
	for d := 0; d < benchRecipients; d++ {
		rh, n := crypto.RecipientHash(fmt.Sprintf("recipient %d", d)), benchPerDir
		if d == 0 {
			rh, n = me.hash(), unread
		}
		files := map[string][]byte{}
		for i := 0; i < n; i++ {
			var data []byte
			var id string
			if d == 0 {
				data, id = alice.exportTo(fmt.Sprintf("handoff %d", i), exchange.ExportOptions{Recipients: []crypto.RecipientInfo{me.recipient()}})
			} else {
				data = make([]byte, size)
				rand.Read(data)
				id = fmt.Sprintf("%032x", d*benchPerDir+i)
			}
			files[id+bundleExt] = data
		}
		refs[r.recipientRef(rh)] = files
	}
	fastImport(b, r, refs)
	// Fetch once, outside the measured part.
	if _, err := Inbox(context.Background(), InboxOptions{Remote: r, DataDir: me.data, Keys: me.keys, Read: me.readOptions(), NoVerify: true}); err != nil {
		b.Fatal(err)
	}
	return r, me
}

// BenchmarkReceive is a receive of my 100 new bundles out of 5,000, after
// the fetch: list my ref, read only its bundles, import each; nothing is
// removed (NoFetch).
func BenchmarkReceive(b *testing.B) {
	r, me := bigInbox(b, benchPerDir, 600)
	var paths int
	checkoutHook = func(p []string) { paths += len(p) }
	defer func() { checkoutHook = nil }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.Remove(ledgerPath(me.data))
		s, err := store.Open(filepath.Join(b.TempDir(), "store"))
		if err != nil {
			b.Fatal(err)
		}
		o := me.receiveOpts(r)
		o.Store, o.NoFetch = s, true
		paths = 0
		b.StartTimer()
		res, err := Receive(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if n := countOutcome(res, OutcomeImported); n != benchPerDir || paths != benchPerDir {
			b.Fatalf("imported %d, read %d files, want %d", n, paths, benchPerDir)
		}
	}
}

// BenchmarkInbox lists my 100 new bundles of 5,000 and verifies them,
// after the fetch.
func BenchmarkInbox(b *testing.B) {
	r, me := bigInbox(b, benchPerDir, 600)
	o := InboxOptions{Remote: r, DataDir: me.data, Keys: me.keys, Read: me.readOptions(), NoFetch: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := Inbox(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Bundles) != benchPerDir || l.Bundles[0].Verification == nil || l.Bundles[0].From == "" {
			b.Fatalf("inbox: %d bundles, first %+v", len(l.Bundles), l.Bundles[0])
		}
	}
}

// benchUnread is how many bundles the first receive on a new machine
// finds for me (issue 33's goal: 20 unread at 62,500 team bundles; the
// large inbox is bench/inbox.sh's).
const benchUnread = 20

// BenchmarkReceiveFirst is the first receive on a new machine of my 20
// unread bundles in an inbox of 49 other recipients with 100 bundles of
// 2,300 bytes each: create the clone, fetch my ref, import the 20, remove
// them from the remote. Each round starts from a new data directory, with my ref put
// back as it was. It reports the git processes the receive starts, and
// its CPU time (user and system, git's included).
func BenchmarkReceiveFirst(b *testing.B) {
	r, me := bigInbox(b, benchUnread, 2300)
	bare := strings.TrimPrefix(r.URL, "file://")
	mine := r.recipientRef(me.hash())
	tip := gitT(b, bare, "rev-parse", mine)
	gits := countGit(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		gitT(b, bare, "update-ref", mine, tip)
		data := filepath.Join(b.TempDir(), "data")
		s, err := store.Open(data)
		if err != nil {
			b.Fatal(err)
		}
		o := me.receiveOpts(r)
		o.Store, o.DataDir = s, data
		before, cpu := gits(), cpuTime()
		b.StartTimer()
		res, err := Receive(context.Background(), o)
		b.StopTimer()
		b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond), "cpu-ms/op")
		if err != nil {
			b.Fatal(err)
		}
		if n := countOutcome(res, OutcomeImported); n != benchUnread || res.Removed != benchUnread {
			b.Fatalf("imported %d, removed %d, want %d", n, res.Removed, benchUnread)
		}
		b.ReportMetric(float64(gits()-before), "gits/op")
		b.StartTimer()
	}
}

// countGit puts a git first on PATH that counts its runs and returns how
// to read the count.
func countGit(b testing.TB) func() int {
	real, err := exec.LookPath("git")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	count := filepath.Join(dir, "count")
	script := "#!/bin/sh\necho >>'" + count + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	b.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() int {
		data, _ := os.ReadFile(count)
		return bytes.Count(data, []byte{'\n'})
	}
}
