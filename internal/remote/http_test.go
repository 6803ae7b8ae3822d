package remote

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// smartHTTP serves the bare repositories under base with git http-backend
// (smart HTTP) behind a loopback server on a port the kernel picks, and
// returns the base URL and a function that reports the Git-Protocol
// headers the server saw.
func smartHTTP(t *testing.T, base string) (string, func() []string) {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
			// Pushes need an authenticated user, or http.receivepack.
			"REMOTE_USER=tester"}}
	var mu sync.Mutex
	var protocols []string
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protocols = append(protocols, r.Header.Get("Git-Protocol"))
		mu.Unlock()
		backend.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://%s", ln.Addr()), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), protocols...)
	}
}

// The exchange through a real git server: smart HTTP, protocol version 2,
// on loopback. Senders at once to the same recipient all land; receive
// fetches only the recipient's ref and removes what it delivered with a
// leased force-push.
func TestExchangeOverSmartHTTP(t *testing.T) {
	base := t.TempDir()
	bare := filepath.Join(base, "inbox.git")
	gitT(t, "", "init", "--quiet", "--bare", bare)
	url, protocols := smartHTTP(t, base)
	r := Remote{Name: "team", URL: url + "/inbox.git", Branch: DefaultBranch}
	bob := newMachine(t, "bob@desk")
	var senders []*machine
	for i := range 4 {
		s := newMachine(t, fmt.Sprintf("sender%d@desk", i))
		bob.trusts(s)
		senders = append(senders, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(senders))
	for _, s := range senders {
		rec := s.save("over http from " + s.name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Send(context.Background(), s.sendOpts(r, rec, bob)); err != nil {
				errs <- fmt.Errorf("%s: %w", s.name, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if l := bob.inbox(r); len(l.Bundles) != len(senders) || l.Layout != 2 {
		t.Fatalf("bob's inbox: %+v", l)
	}
	res := bob.receive(r)
	if countOutcome(res, OutcomeImported) != len(senders) || res.Removed != len(senders) || res.RemoveError != "" {
		t.Fatalf("bob: %+v", res)
	}
	if left := gitT(t, bare, "ls-tree", "--name-only", r.recipientRef(bob.hash())); left != "" {
		t.Fatalf("left on the server: %q", left)
	}
	v2 := 0
	for _, p := range protocols() {
		if strings.Contains(p, "version=2") {
			v2++
		}
	}
	if v2 == 0 {
		t.Fatalf("no request used protocol version 2: %q", protocols())
	}
}
