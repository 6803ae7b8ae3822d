package remote

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
)

// A layout-1 inbox is read as it is (receive removes nothing from it),
// moved to layout 2 by the first send, and never written again: its
// branch then holds only layout 2's marker, which a layout-1 client
// refuses. What was delivered before comes along and is removed by its
// recipient's next receive without being imported again.
func TestLayoutOneIsReadThenMigrated(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	bob.trusts(alice)
	carol.trusts(alice)
	forBob, bobID := alice.exportTo("old for bob", exchange.ExportOptions{Recipients: []crypto.RecipientInfo{bob.recipient()}})
	forCarol, carolID := alice.exportTo("old for carol", exchange.ExportOptions{Recipients: []crypto.RecipientInfo{carol.recipient()}})
	fastImport(t, r, map[string]map[string][]byte{r.markerRef(): {
		markerFile: []byte(markerContent),
		RecipientDir(bob.hash()) + "/" + bobID + bundleExt:     forBob,
		RecipientDir(carol.hash()) + "/" + carolID + bundleExt: forCarol,
		"log/" + strings.Repeat("a", 64) + ".log":              []byte("a claim\n"),
	}})
	v1 := gitT(t, strings.TrimPrefix(r.URL, "file://"), "rev-parse", r.markerRef())

	l := bob.inbox(r)
	if l.Layout != 1 || len(l.Bundles) != 1 || l.Bundles[0].BundleID != bobID || l.Bundles[0].Title != "old for bob" || !slices.Equal(l.Others, []string{carol.hash()}) {
		t.Fatalf("bob's layout-1 inbox: %+v", l)
	}
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 1 || res.Removed != 0 {
		t.Fatalf("bob's layout-1 receive: %+v", res)
	}
	if got := gitT(t, strings.TrimPrefix(r.URL, "file://"), "rev-parse", r.markerRef()); got != v1 {
		t.Fatal("a receive wrote to a layout-1 inbox")
	}

	res := alice.send(r, alice.save("new for carol"), carol)
	if !res.Migrated {
		t.Fatalf("send: %+v", res)
	}
	if got := string(remoteBlob(t, r, markerFile)); got != markerV2 {
		t.Fatalf("marker after the migration: %q", got)
	}
	files := remoteFiles(t, r)
	slices.Sort(files)
	want := []string{inboxDir(r, bob.hash()) + "/" + bobID + bundleExt, inboxDir(r, carol.hash()) + "/" + carolID + bundleExt,
		inboxDir(r, carol.hash()) + "/" + res.Bundles[0].BundleID + bundleExt, markerFile}
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Fatalf("after the migration the remote holds\n%s\nwant\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	if res := bob.receive(r); len(res.Items) != 0 || res.Removed != 1 || bob.count() != 1 {
		t.Fatalf("bob after the migration: %+v", res)
	}
	if res := carol.receive(r); countOutcome(res, OutcomeImported) != 2 || res.Removed != 2 {
		t.Fatalf("carol after the migration: %+v", res)
	}
	if files := remoteFiles(t, r); !slices.Equal(files, []string{markerFile}) {
		t.Fatalf("after everyone received: %q", files)
	}
	if v, err := Migrate(context.Background(), alice.data, r); err != nil || v != 2 {
		t.Fatalf("migrate again: %d, %v", v, err)
	}
}

// Inbox lists a layout-1 inbox of 100,000 bundles (50 directories of
// 2,000) without reading the whole tree: only my directory, and the names
// of the others. Listing everything went over git's output bound.
func TestInboxAtHundredThousandBundles(t *testing.T) {
	r := bareRemote(t)
	bob := newMachine(t, "bob@desk")
	files := map[string][]byte{markerFile: []byte(markerContent)}
	for d := range 50 {
		h := crypto.RecipientHash(fmt.Sprintf("recipient %d", d))
		if d == 0 {
			h = bob.hash()
		}
		for i := range 2000 {
			files[fmt.Sprintf("%s/%032x%s", RecipientDir(h), d*2000+i, bundleExt)] = []byte("x")
		}
	}
	fastImport(t, r, map[string]map[string][]byte{r.markerRef(): files})
	l, err := Inbox(context.Background(), InboxOptions{Remote: r, DataDir: bob.data, Keys: bob.keys, Read: bob.readOptions(), NoVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Bundles) != 2000 || len(l.Others) != 49 {
		t.Fatalf("inbox: %d bundles, %d others", len(l.Bundles), len(l.Others))
	}
}
