package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentSaveImportReceive runs save, import and receive from
// several processes at once against one store: every handoff arrives
// exactly once, nothing is lost, and the store checks clean.
func TestConcurrentSaveImportReceive(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns dozens of processes")
	}
	bin := linkSelf(t, t.TempDir(), "session-handoff-crash")
	// Two machines: alice sends, bob receives. crashEnv gives each a home,
	// a project in git and the CLI as a separate process.
	alice, bob := newCrashEnv(t, bin), newCrashEnv(t, bin)
	inbox := filepath.Join(alice.dir, "inbox.git")
	must := func(e *crashEnv, args ...string) string {
		t.Helper()
		code, out := e.run("", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		return out
	}
	must(alice, "keygen", "--name", "alice@laptop", "--no-passphrase")
	must(bob, "keygen", "--name", "bob@desk", "--no-passphrase")
	bobAge := strings.TrimSpace(must(bob, "key", "show", "--age-recipient"))
	alicePub := filepath.Join(alice.dir, "alice.pub")
	if err := os.WriteFile(alicePub, []byte(must(alice, "key", "show", "--signing-key")), 0o644); err != nil {
		t.Fatal(err)
	}
	must(bob, "trust", "add", alicePub)
	if err := os.WriteFile(filepath.Join(alice.dir, "bob.age"), []byte(bobAge+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Alice makes 6 bundle files and sends 6 more through a git inbox.
	const files, sent = 6, 6
	mustGit(t, alice, "init", "--quiet", "--bare", inbox)
	must(alice, "remote", "add", "team", "file://"+inbox)
	must(alice, "people", "add", "bob@desk", filepath.Join(alice.dir, "bob.age"))
	var bundles []string
	for i := range files {
		must(alice, "save", "--title", fmt.Sprintf("Bundle file %d", i), "--next", "import it once")
		path := filepath.Join(alice.dir, fmt.Sprintf("b%d.handoff", i))
		must(alice, "export", "--to", bobAge, "-o", path)
		bundles = append(bundles, path)
	}
	for i := range sent {
		must(alice, "save", "--title", fmt.Sprintf("Inbox bundle %d", i), "--next", "receive it once")
		must(alice, "send", "--to", "bob@desk")
	}
	must(bob, "remote", "add", "team", "file://"+inbox)

	// On bob's machine, all at once: 4 savers of 8 handoffs each, 3
	// importers of every bundle file (each bundle imported by three
	// processes), and 2 receivers of the same inbox.
	const savers, perSaver, importers, receivers = 4, 8, 3, 2
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	run := func(args ...string) {
		if code, out := bob.run("", args...); code != 0 {
			errs <- fmt.Sprintf("%v: exit %d: %s", args, code, out)
		}
	}
	for s := range savers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perSaver {
				run("save", "--title", fmt.Sprintf("Saved %d-%d", s, i), "--next", "keep it")
			}
		}()
	}
	for range importers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, b := range bundles {
				run("import", b, "--on-conflict", "skip")
			}
		}()
	}
	for range receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run("receive")
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	var entries []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(must(bob, "list", "--json", "--limit", "0")), &entries); err != nil {
		t.Fatal(err)
	}
	titles := map[string]int{}
	ids := map[string]bool{}
	for _, e := range entries {
		titles[e.Title]++
		if ids[e.ID] {
			t.Errorf("id %s listed twice", e.ID)
		}
		ids[e.ID] = true
	}
	want := savers*perSaver + files + sent
	if len(entries) != want {
		t.Errorf("%d handoffs stored, want %d", len(entries), want)
	}
	for title, n := range titles {
		if n != 1 {
			t.Errorf("%q stored %d times", title, n)
		}
	}
	for i := range files {
		if titles[fmt.Sprintf("Bundle file %d", i)] != 1 {
			t.Errorf("bundle file %d lost", i)
		}
	}
	for i := range sent {
		if titles[fmt.Sprintf("Inbox bundle %d", i)] != 1 {
			t.Errorf("inbox bundle %d lost", i)
		}
	}
	if out := must(bob, "store", "check"); !strings.Contains(out, fmt.Sprintf(": %d records", want)) {
		t.Errorf("store check: %s", out)
	}
}

// mustGit runs git in a machine's environment.
func mustGit(t *testing.T, e *crashEnv, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = e.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
