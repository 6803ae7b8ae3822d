package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// TestInterruptedExportAndImport: a command whose context is cancelled (as
// the first Ctrl-C does) stops reading, says "interrupted" on one line,
// exits 1, and leaves nothing behind: no bundle, no temporary file, no
// record in the store.
func TestInterruptedExportAndImport(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"SESSION_HANDOFF_HOME": home}
	for _, args := range [][]string{{"keygen", "--no-passphrase"}, {"save", "--no-git", "--title", "t", "--summary", "s"}} {
		if r := runCLI(env, "", args...); r.code != exitOK {
			t.Fatalf("%v: %d %s", args, r.code, r.stderr)
		}
	}
	dir := t.TempDir()
	attachment := filepath.Join(dir, "big.bin")
	data := make([]byte, 4<<20)
	rand.Read(data)
	if err := os.WriteFile(attachment, data, 0o600); err != nil {
		t.Fatal(err)
	}
	bundlePath := filepath.Join(dir, "b.handoff")
	if r := runCLI(env, "", "export", "--no-encrypt", "--attach", attachment, "-o", bundlePath); r.code != exitOK {
		t.Fatalf("export: %d %s", r.code, r.stderr)
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	runCancelled := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		a := newTestApp(cancelled, nil, &stdout, &stderr, env)
		return a.execute(args), stderr.String()
	}

	out := filepath.Join(dir, "interrupted.handoff")
	code, stderr := runCancelled("export", "--no-encrypt", "--attach", attachment, "-o", out)
	if code != exitFailure || stderr != "session-handoff: export: interrupted\n" {
		t.Fatalf("interrupted export: exit %d, stderr %q", code, stderr)
	}
	entries, err := os.ReadDir(dir)
	testsys.Check(t, err)
	if len(entries) != 2 {
		t.Fatalf("the interrupted export left files behind: %v", entries)
	}

	other := t.TempDir()
	env["SESSION_HANDOFF_HOME"] = other
	code, stderr = runCancelled("import", "--allow-unsigned", "--allow-untrusted", bundlePath)
	if code != exitFailure || stderr != "session-handoff: import: interrupted\n" {
		t.Fatalf("interrupted import: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "data")); !os.IsNotExist(err) {
		t.Fatalf("the interrupted import wrote to the store: %v", err)
	}
}
