package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImport(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", true)
	bob := newTestHome(t, "bob@desk", true)
	carol := newTestHome(t, "carol@lab", true)
	rec := alice.save(t, "Refactor auth middleware")
	signed := exportTo(t, alice, exportOptions{to: []string{bob.age}})
	unsigned := exportTo(t, alice, exportOptions{to: []string{bob.age}, unsigned: true})
	data, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(t.TempDir(), "junk.handoff")
	if err := os.WriteFile(junk, []byte("not a bundle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	legacyFile := filepath.Join(t.TempDir(), "handoffs.json")
	if err := os.WriteFile(legacyFile, []byte(`{"version":1,"items":[{"id":"h-42","created_at":"2025-06-01T10:20:30Z","tool":"Codex","project":"/home/u/src/app","title":"Refactor auth","summary":"Parser extracted"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The cases run in order on bob's store (carol's for the last): each
	// says how many handoffs the store holds afterwards.
	for _, c := range []struct {
		name   string
		home   *testHome
		opts   importOptions
		stdin  []byte
		code   int
		stdout string
		stderr string
		stored int
	}{
		{name: "untrusted is refused", opts: importOptions{input: signed},
			code: 1, stderr: "session-handoff: import: " + signed + ": refused: signed by a key that is not in the trust store", stored: 0},
		{name: "unsigned is refused", opts: importOptions{input: unsigned, allowUntrusted: true},
			code: 1, stderr: "hint: pass --allow-unsigned", stored: 0},
		{name: "bad on-conflict", opts: importOptions{input: signed, onConflict: "overwrite", allowUntrusted: true},
			code: 2, stderr: `--on-conflict "overwrite": want fail, skip or replace`, stored: 0},
		{name: "not a bundle", opts: importOptions{input: junk, allowUntrusted: true, allowUnsigned: true},
			code: 1, stderr: "session-handoff: import: " + junk + ": ", stored: 0},
		{name: "missing file", opts: importOptions{input: junk + ".nope"}, code: 1, stderr: "no such file", stored: 0},
		{name: "allow untrusted from stdin", opts: importOptions{input: "-", allowUntrusted: true}, stdin: data,
			stdout: "imported " + string(rec.ID) + "  Refactor auth middleware\nvalid signature by an untrusted key SHA256:", stored: 1},
		{name: "the same bundle again", opts: importOptions{input: signed, allowUntrusted: true},
			stdout: "already imported " + string(rec.ID), stored: 1},
		{name: "json", opts: importOptions{input: signed, allowUntrusted: true, json: true},
			stdout: `"outcome": "already imported"`, stored: 1},
		{name: "legacy store", opts: importOptions{input: legacyFile, legacy: true},
			stdout: "store " + legacyFile + ": 1 record(s): 1 imported, 0 already imported, 0 skipped\nlegacy signatures prove nothing", stored: 2},
		{name: "legacy garbage", opts: importOptions{input: junk, legacy: true}, code: 1, stderr: junk, stored: 2},
		{name: "not for me", home: carol, opts: importOptions{input: signed, allowUntrusted: true},
			code: 1, stderr: "hint: it is encrypted to someone else", stored: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := c.home
			if h == nil {
				h = bob
			}
			opts := c.opts
			if opts.onConflict == "" {
				opts.onConflict = "fail"
			}
			stdout, stderr, code := h.run(t, "import", c.stdin, func(a *app) error { return runImport(a, &opts) })
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, stderr)
			}
			if (c.stdout == "") != (stdout == "") || !strings.Contains(stdout, c.stdout) {
				t.Errorf("stdout %q, want %q", stdout, c.stdout)
			}
			if (c.stderr == "") != (stderr == "") || !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q, want %q", stderr, c.stderr)
			}
			if n := h.count(t); n != c.stored {
				t.Errorf("%d handoffs stored, want %d", n, c.stored)
			}
		})
	}
}

// TestImportTrusted: once bob trusts alice's key, her bundle imports
// without any flag and says who signed it.
func TestImportTrusted(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", true)
	bob := newTestHome(t, "bob@desk", true)
	alice.save(t, "Refactor auth middleware")
	signed := exportTo(t, alice, exportOptions{to: []string{bob.age}})
	if _, stderr, code := bob.run(t, "trust add", nil, func(a *app) error {
		return runTrustAdd(a, &trustAddOptions{key: alice.pub})
	}); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := bob.run(t, "import", nil, func(a *app) error {
		return runImport(a, &importOptions{input: signed, onConflict: "fail"})
	})
	if code != 0 || !strings.Contains(stdout, "\nverified: signed by alice@laptop (SHA256:") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// import - and verify - on a terminal say how to paste, and only there: a
// pipe or a file gets nothing on stderr.
func TestPastePromptOnlyOnATerminal(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var stderr strings.Builder
		a := newTestApp(context.Background(), strings.NewReader("bundle"), io.Discard, &stderr, nil)
		a.stdinTTY = tty
		rc, err := a.openInput("-")
		if err != nil {
			t.Fatal(err)
		}
		rc.Close()
		want := ""
		if tty {
			want = pastePrompt + "\n"
		}
		if stderr.String() != want {
			t.Errorf("stdin a terminal: %v: stderr %q, want %q", tty, stderr.String(), want)
		}
	}
	if !strings.HasPrefix(pastePrompt, "paste the bundle, then Ctrl-D") {
		t.Errorf("prompt %q", pastePrompt)
	}
}
