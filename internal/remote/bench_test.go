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

// bigInbox writes a layout-2 inbox straight into the bare repository,
// then gives me a clone with my ref fetched.
func bigInbox(b *testing.B) (r Remote, me *machine) {
	b.Helper()
	r = bareRemote(b)
	alice := newMachine(b, "alice@laptop")
	me = newMachine(b, "bob@desk")
	me.trusts(alice)
	refs := map[string]map[string][]byte{r.markerRef(): {markerFile: []byte(markerV2)}}
	for d := 0; d < benchRecipients; d++ {
		rh := crypto.RecipientHash(fmt.Sprintf("recipient %d", d))
		if d == 0 {
			rh = me.hash()
		}
		files := map[string][]byte{}
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
			b.Fatalf("imported %d, read %d files, want %d", n, paths, benchPerDir)
		}
	}
}

// BenchmarkInbox lists my 100 new bundles of 5,000 and verifies them,
// after the fetch.
func BenchmarkInbox(b *testing.B) {
	r, me := bigInbox(b)
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
