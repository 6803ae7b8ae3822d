package remote

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filippo.io/age"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// forward does what a malicious recipient can: decrypt a bundle meant for
// them and encrypt the same signed content to someone else.
func forward(t *testing.T, data []byte, from, to *machine) []byte {
	t.Helper()
	ids, _, err := from.keys.Identities(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := age.Decrypt(bytes.NewReader(data), ids...)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := age.Encrypt(&out, to.recipient().Recipient)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, plain); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// exportTo makes a bundle of a new handoff of m, with the given options.
func (m *machine) exportTo(title string, o exchange.ExportOptions) ([]byte, string) {
	m.t.Helper()
	rec := m.save(title)
	o.SigningKey, o.Producer = m.sk, bundle.Producer{Name: "session-handoff", Version: "test"}
	var buf bytes.Buffer
	man, err := exchange.Export(context.Background(), &buf, m.s, rec, o)
	if err != nil {
		m.t.Fatal(err)
	}
	return buf.Bytes(), man.BundleID
}

// Everything a stranger with write access can drop into my directory is
// reported and skipped; nothing of it reaches the store, and the one good
// bundle among them still arrives.
func TestHostileRemoteContent(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	carol.trusts(alice)
	carol.trusts(bob)
	dir := inboxDir(r, carol.hash())

	// Alice's genuine bundle for Bob, forwarded by Bob to Carol.
	forBob := alice.send(r, alice.save("for Bob only"), bob).Bundles[0].BundleID
	fwd := forward(t, remoteBlob(t, r, inboxDir(r, bob.hash())+"/"+forBob+bundleExt), bob, carol)
	// A genuine bundle for Carol, copied under another id (a replay).
	good, goodID := alice.exportTo("for Carol", exchange.ExportOptions{Recipients: []crypto.RecipientInfo{carol.recipient()}})
	_, replayID := alice.exportTo("unused", exchange.ExportOptions{NoEncrypt: true})
	// Signed but not encrypted; encrypted to a passphrase.
	plain, plainID := alice.exportTo("plain", exchange.ExportOptions{NoEncrypt: true})
	defer crypto.SetScryptWorkFactorForTesting(10)()
	pass, passID := alice.exportTo("pass", exchange.ExportOptions{Passphrase: []byte("open sesame")})
	junkID, bigID, linkID := strings.Repeat("a", 32), strings.Repeat("b", 32), strings.Repeat("c", 32)

	plant(t, r, []planted{
		{path: dir + "/" + goodID + bundleExt, content: good},
		{path: dir + "/" + forBob + bundleExt, content: fwd},
		{path: dir + "/" + replayID + bundleExt, content: good},
		{path: dir + "/" + plainID + bundleExt, content: plain},
		{path: dir + "/" + passID + bundleExt, content: pass},
		{path: dir + "/" + junkID + bundleExt, content: []byte("not a bundle at all\n")},
		{path: dir + "/" + bigID + bundleExt, content: bytes.Repeat([]byte{'x'}, 2<<20)},
		{path: dir + "/" + linkID + bundleExt, mode: "120000", content: []byte("../" + strings.TrimPrefix(inboxDir(r, bob.hash()), "inbox/") + "/" + forBob + bundleExt)},
		{path: dir + "/notes.txt", content: []byte("hello")},
		{path: dir + "/sub/" + strings.Repeat("d", 32) + bundleExt, content: good},
	}, dir, "..")

	var seen [][]string
	checkoutHook = func(paths []string) { seen = append(seen, paths) }
	defer func() { checkoutHook = nil }()
	o := carol.receiveOpts(r)
	o.Read.Limits.MaxInput = 1 << 20
	res, err := Receive(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		outcome Outcome
		reason  string
	}{
		dir + "/" + goodID + bundleExt:   {OutcomeImported, ""},
		dir + "/" + forBob + bundleExt:   {OutcomeRejected, "signed for other recipients"},
		dir + "/" + replayID + bundleExt: {OutcomeRejected, "the file holds bundle " + goodID},
		dir + "/" + plainID + bundleExt:  {OutcomeRejected, "not encrypted to its recipients"},
		dir + "/" + passID + bundleExt:   {OutcomeRejected, "passphrase bundles are not received"},
		dir + "/" + junkID + bundleExt:   {OutcomeRejected, "bundle: "},
		dir + "/" + bigID + bundleExt:    {OutcomeRejected, "over the limit of 1048576 bytes (--max-input)"},
		dir + "/" + linkID + bundleExt:   {OutcomeRejected, "symbolic link"},
		dir + "/notes.txt":               {OutcomeIgnored, "not named like a bundle"},
		dir + "/sub":                     {OutcomeIgnored, "not named like a bundle"},
		dir + "/..":                      {OutcomeIgnored, "not named like a bundle"},
	}
	for _, it := range res.Items {
		w, ok := want[it.Path]
		if !ok {
			t.Errorf("unexpected item %+v", it)
			continue
		}
		delete(want, it.Path)
		if it.Outcome != w.outcome || !strings.Contains(it.Reason, w.reason) {
			t.Errorf("%s: %s %q, want %s %q", it.Path, it.Outcome, it.Reason, w.outcome, w.reason)
		}
	}
	for p := range want {
		t.Errorf("no item for %s", p)
	}
	if n := carol.count(); n != 1 {
		t.Fatalf("carol's store holds %d handoffs, want only the good one", n)
	}
	// Only candidates of my directory were ever read: never the
	// oversized file, the link, the odd names, or anyone else's bundles.
	for _, list := range seen {
		for _, p := range list {
			if !strings.HasPrefix(p, dir+"/") || strings.Contains(p, bigID) || strings.Contains(p, linkID) || strings.Contains(p, "sub") {
				t.Errorf("checked out %s", p)
			}
		}
	}
	// Rejections are recorded, and leave the remote with the imported
	// bundle; what has no bundle id to record stays, and the next
	// receive reports only that.
	if res.Removed != 8 {
		t.Errorf("removed %d bundles, want 8", res.Removed)
	}
	left := strings.Join(remoteFiles(t, r), " ")
	if want := dir + "/notes.txt " + dir + "/sub/" + strings.Repeat("d", 32) + bundleExt; !strings.Contains(left, want) || strings.Contains(left, goodID) || strings.Contains(left, bigID) {
		t.Errorf("left on the remote: %s", left)
	}
	res, err = Receive(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Outcome != OutcomeIgnored {
			t.Errorf("second receive: %+v", it)
		}
	}
	if res.Earlier != 0 || res.Removed != 0 || carol.count() != 1 {
		t.Errorf("second receive: %+v", res)
	}
}

// A bundle signed by someone I do not trust is refused and not recorded:
// once I trust the signer, the next receive imports it.
func TestUntrustedIsRefusedUntilTrusted(t *testing.T) {
	r := bareRemote(t)
	dave, carol := newMachine(t, "dave@home"), newMachine(t, "carol@lab")
	dave.send(r, dave.save("from dave"), carol)
	res := carol.receive(r)
	if len(res.Items) != 1 || res.Items[0].Outcome != OutcomeRefused || !strings.Contains(res.Items[0].Reason, "not in the trust store") {
		t.Fatalf("receive: %+v", res.Items)
	}
	if carol.count() != 0 {
		t.Fatal("refused bundle was stored")
	}
	// A dry run says what would happen and writes nothing.
	o := carol.receiveOpts(r)
	o.DryRun, o.Policy.TOFU = true, true
	dry, err := Receive(context.Background(), o)
	if err != nil || len(dry.Items) != 1 || dry.Items[0].Outcome != OutcomeWouldImport {
		t.Fatalf("dry run: %+v, %v", dry, err)
	}
	if ts, _ := carol.keys.TrustStore(); len(ts.Entries()) != 0 || carol.count() != 0 {
		t.Fatal("dry run wrote something")
	}
	carol.trusts(dave)
	if res := carol.receive(r); len(res.Items) != 1 || res.Items[0].Outcome != OutcomeImported {
		t.Fatalf("after trust: %+v", res.Items)
	}
}

// A symbolic link planted in the clone's work tree is never followed: the
// receive removes the link itself and leaves its target alone.
func TestSymlinkInCloneNotFollowed(t *testing.T) {
	r := bareRemote(t)
	alice, carol := newMachine(t, "alice@laptop"), newMachine(t, "carol@lab")
	carol.trusts(alice)
	alice.send(r, alice.save("one"), carol)
	carol.receive(r) // makes the clone
	victim := t.TempDir()
	keep := filepath.Join(victim, "keep")
	if err := os.WriteFile(keep, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	cl := clonePath(carol.data, r.Name)
	if err := os.Symlink(victim, filepath.Join(cl, toDir)); err != nil {
		t.Fatal(err)
	}
	alice.send(r, alice.save("two"), carol)
	if res := carol.receive(r); countOutcome(res, OutcomeImported) != 1 {
		t.Fatalf("receive: %+v", res.Items)
	}
	if data, err := os.ReadFile(keep); err != nil || string(data) != "precious" {
		t.Fatalf("the link's target changed: %q, %v", data, err)
	}
	// openChecked refuses a link where a bundle should be, and a link on
	// the way to it.
	c := &clone{dir: t.TempDir()}
	testsys.Check(t, os.MkdirAll(filepath.Join(c.dir, "to", "d"), 0o700))
	testsys.Check(t, os.Symlink(keep, filepath.Join(c.dir, "to", "d", "x.handoff")))
	testsys.Check(t, os.Symlink(filepath.Join(c.dir, "to", "d"), filepath.Join(c.dir, "to", "e")))
	testsys.Check(t, os.WriteFile(filepath.Join(c.dir, "to", "d", "y.handoff"), []byte("y"), 0o600))
	for _, p := range []string{"to/d/x.handoff", "to/e/y.handoff"} {
		if f, err := c.openChecked(p, 1<<20); err == nil {
			f.Close()
			t.Errorf("openChecked(%s) followed a link", p)
		}
	}
	if f, err := c.openChecked("to/d/y.handoff", 0); err == nil {
		f.Close()
		t.Error("openChecked ignored the size limit")
	}
}

// The same handoff sent twice (two bundles of one record from one signer)
// is "already imported" the second time, and the dry run says so first:
// the receive and its dry run decide alike.
func TestResentHandoffIsAlreadyImported(t *testing.T) {
	r := bareRemote(t)
	dave, carol := newMachine(t, "dave@home"), newMachine(t, "carol@lab")
	carol.trusts(dave)
	rec := dave.save("sent twice")
	dave.send(r, rec, carol)
	if res := carol.receive(r); countOutcome(res, OutcomeImported) != 1 {
		t.Fatalf("first receive: %+v", res.Items)
	}
	dave.send(r, rec, carol)
	o := carol.receiveOpts(r)
	o.DryRun = true
	dry, err := Receive(context.Background(), o)
	if err != nil || len(dry.Items) != 1 || dry.Items[0].Outcome != OutcomeAlready {
		t.Fatalf("dry run of the re-sent bundle: %+v, %v", dry, err)
	}
	if res := carol.receive(r); len(res.Items) != 1 || res.Items[0].Outcome != OutcomeAlready {
		t.Fatalf("receive of the re-sent bundle: %+v", res.Items)
	}
	if carol.count() != 1 {
		t.Fatalf("%d records", carol.count())
	}
}
