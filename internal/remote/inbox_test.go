package remote

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
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

// gitDaemon serves the bare repositories under base on a free loopback
// port, and returns the git:// URL of base. The test is skipped when git
// daemon is not installed.
func gitDaemon(t *testing.T, base string) string {
	t.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git --exec-path:", err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon")); err != nil {
		t.Skip("git daemon is not installed")
	}
	// git daemon cannot pick a port itself: take a free one from the
	// kernel and hand it over.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--verbose", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--base-path="+base, "--export-all", "--enable=receive-pack", base)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// Ready when it says so ("Ready to rumble"), within a bounded time.
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "Ready to rumble") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Skip("git daemon exited before it was ready")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("git daemon did not get ready in 10s")
	}
	// And it accepts connections: a bounded number of attempts.
	var conn net.Conn
	for i := 0; i < 50; i++ {
		if conn, err = net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			conn.Close()
			return fmt.Sprintf("git://127.0.0.1:%d", port)
		}
	}
	t.Fatalf("git daemon on port %d: %v", port, err)
	return ""
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
