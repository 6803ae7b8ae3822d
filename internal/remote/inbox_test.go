package remote

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// Inbox shows my bundles, whether they verify and, from their manifests,
// who signed them when; of the others' only for whom they are, never
// reading them.
func TestInboxListsForWhomFromWhom(t *testing.T) {
	r := bareRemote(t)
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	bob.trusts(alice)
	sent := alice.send(r, alice.save("for bob"), bob).Bundles[0]
	alice.send(r, alice.save("for carol"), carol)
	plant(t, r, []planted{{path: inboxDir(r, bob.hash()) + "/stray.txt", content: []byte("x")}}, "", "")

	var seen []string
	checkoutHook = func(p []string) { seen = append(seen, p...) }
	defer func() { checkoutHook = nil }()
	l := bob.inbox(r)
	if len(seen) != 1 || seen[0] != inboxDir(r, bob.hash())+"/"+sent.BundleID+bundleExt {
		t.Errorf("inbox read %q", seen)
	}
	if len(l.Bundles) != 1 || len(l.Ignored) != 1 || l.Layout != 2 || !slices.Equal(l.Others, []string{carol.hash()}) {
		t.Fatalf("inbox: %+v", l)
	}
	mine := l.Bundles[0]
	if !mine.Mine || mine.BundleID != sent.BundleID || mine.For != bob.hash() || mine.From != SenderHash(alice.sk.Public()) ||
		mine.SentAt.Sub(sent.Time).Abs() >= time.Second || mine.Status != "new" || mine.Verification == nil ||
		mine.Verification.Status != bundle.StatusVerified || mine.Title != "for bob" {
		t.Fatalf("bob's bundle: %+v", mine)
	}
	bob.receive(r)
	if l := bob.inbox(r); len(l.Bundles) != 0 {
		t.Fatalf("after receive: %+v", l.Bundles)
	}
	// Outgoing sends that did not reach the remote are listed.
	allow := rejectPushes(t, r)
	if _, err := Send(context.Background(), alice.sendOpts(r, alice.save("stuck"), bob)); err == nil {
		t.Fatal("push went through")
	}
	allow()
	if l := alice.inbox(r); len(l.Outgoing) != 1 {
		t.Fatalf("alice's outgoing: %+v", l.Outgoing)
	}
}

// gitDaemon serves the bare repositories under base over git's own
// protocol on loopback, and returns the git:// URL of base. The test holds
// the listening socket itself, on a port the kernel picked, and starts
// one git daemon --inetd per connection on it (as inetd would), so no
// port is ever released and taken again, and nothing waits for a daemon
// to get ready. Without git daemon the test skips, or fails under CI.
func gitDaemon(t *testing.T, base string) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		testsys.Missing(t, "git --exec-path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon")); err != nil {
		testsys.Missing(t, "git daemon is not installed: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return // closed at cleanup
			}
			// The daemon gets the socket itself as its stdin and stdout.
			f, err := conn.(*net.TCPConn).File()
			conn.Close()
			if err != nil {
				t.Errorf("socket of a git connection: %v", err)
				continue
			}
			cmd := exec.Command("git", "daemon", "--inetd", "--base-path="+base, "--export-all", "--enable=receive-pack", base)
			cmd.Stdin, cmd.Stdout = f, f
			if err := cmd.Start(); err != nil {
				t.Errorf("git daemon --inetd: %v", err)
				f.Close()
				continue
			}
			f.Close()
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd.Wait() // ends when the client hangs up; the client reports failures
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	return "git://" + ln.Addr().String()
}

// The same exchange over git's own protocol, on loopback.
func TestExchangeOverGitDaemon(t *testing.T) {
	base := t.TempDir()
	gitT(t, "", "init", "--quiet", "--bare", filepath.Join(base, "inbox.git"))
	url := gitDaemon(t, base)
	r := Remote{Name: "team", URL: url + "/inbox.git", Branch: DefaultBranch}
	alice, bob, carol := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk"), newMachine(t, "carol@lab")
	alice.trusts(bob)
	bob.trusts(alice)
	alice.send(r, alice.save("to bob over git://"), bob)
	bob.send(r, bob.save("to alice over git://"), alice)
	if res := bob.receive(r); countOutcome(res, OutcomeImported) != 1 {
		t.Fatalf("bob: %+v", res.Items)
	}
	if res := alice.receive(r); countOutcome(res, OutcomeImported) != 1 {
		t.Fatalf("alice: %+v", res.Items)
	}
	if res := carol.receive(r); len(res.Items) != 0 || carol.count() != 0 {
		t.Fatalf("carol: %+v", res.Items)
	}
}
