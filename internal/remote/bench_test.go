package remote

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/store"
)

// A large inbox: 50 recipients with 100 bundles each (5,000), logs of 50
// senders. My 100 are real bundles from alice; the others' are dummy
// files, since nobody reads them.
const (
	benchRecipients = 50
	benchPerDir     = 100
)

// bigInbox writes the inbox straight into the bare repository with git
// fast-import (one pack, no work tree), then gives me a clone with it
// fetched.
func bigInbox(b *testing.B) (r Remote, me *machine) {
	b.Helper()
	r = bareRemote(b)
	alice := newMachine(b, "alice@laptop")
	me = newMachine(b, "bob@desk")
	me.trusts(alice)
	var stream bytes.Buffer
	fmt.Fprintf(&stream, "commit refs/heads/%s\ncommitter b <b@b> 1795424400 +0000\ndata 0\n", r.Branch)
	file := func(path string, data []byte) {
		fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n", path, len(data))
		stream.Write(data)
		stream.WriteByte('\n')
	}
	file(markerFile, []byte(markerContent))
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	logs := make([]strings.Builder, benchRecipients)
	for d := 0; d < benchRecipients; d++ {
		rh := crypto.RecipientHash(fmt.Sprintf("recipient %d", d))
		if d == 0 {
			rh = me.hash()
		}
		for i := 0; i < benchPerDir; i++ {
			var data []byte
			var id string
			if d == 0 {
				data, id = alice.exportTo(fmt.Sprintf("handoff %d", i), exchange.ExportOptions{Recipients: []crypto.RecipientInfo{me.recipient()}})
			} else {
				data = make([]byte, 600)
				rand.Read(data)
				id = fmt.Sprintf("%032x", d*benchPerDir+i)
			}
			file(BundlePath(rh, id), data)
			logs[(d+i)%benchRecipients].WriteString(LogEntry{Time: now.Add(time.Duration(i) * time.Second), BundleID: id, Recipients: []string{rh}}.String() + "\n")
		}
	}
	for s := range logs {
		file(LogPath(crypto.RecipientHash(fmt.Sprintf("sender %d", s))), []byte(logs[s].String()))
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = strings.TrimPrefix(r.URL, "file://")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	// Fetch once, outside the measured part.
	if _, err := Inbox(context.Background(), InboxOptions{Remote: r, DataDir: me.data, Keys: me.keys, Read: me.readOptions(), NoVerify: true}); err != nil {
		b.Fatal(err)
	}
	return r, me
}

// BenchmarkReceive is a receive of my 100 new bundles out of 5,000, after
// the fetch: list my directory, check out and read only it, import each.
func BenchmarkReceive(b *testing.B) {
	r, me := bigInbox(b)
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
			b.Fatalf("imported %d, checked out %d files, want %d", n, paths, benchPerDir)
		}
	}
}

// BenchmarkInbox lists 5,000 bundles and 50 logs, and verifies my 100
// new ones, after the fetch.
func BenchmarkInbox(b *testing.B) {
	r, me := bigInbox(b)
	o := InboxOptions{Remote: r, DataDir: me.data, Keys: me.keys, Read: me.readOptions(), NoFetch: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := Inbox(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Bundles) != benchRecipients*benchPerDir || l.Bundles[0].Verification == nil || l.Bundles[0].From == "" {
			b.Fatalf("inbox: %d bundles, first %+v", len(l.Bundles), l.Bundles[0])
		}
	}
}
