package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// testHome is a temporary SESSION_HANDOFF_HOME for running commands in
// process: its keys made with keygen's run function unless asked not to.
type testHome struct {
	dir string
	env map[string]string
	pub string // my signing key line (empty without keys)
	age string // my age recipient
}

func newTestHome(t *testing.T, name string, keys bool) *testHome {
	t.Helper()
	dir := t.TempDir()
	h := &testHome{dir: dir, env: map[string]string{"SESSION_HANDOFF_HOME": dir, "HOME": filepath.Join(dir, "home")}}
	if !keys {
		return h
	}
	if out, errOut, code := h.run(t, "keygen", nil, func(a *app) error {
		return runKeygen(a, &keygenOptions{name: name, noPass: true})
	}); code != 0 {
		t.Fatalf("keygen: %d %s %s", code, out, errOut)
	}
	out, _, code := h.run(t, "key show", nil, func(a *app) error { return runKeyShow(a, &keyShowOptions{onlyKey: true}) })
	if code != 0 {
		t.Fatal("key show --signing-key failed")
	}
	h.pub = strings.TrimSpace(out)
	out, _, _ = h.run(t, "key show", nil, func(a *app) error { return runKeyShow(a, &keyShowOptions{onlyRecipient: true}) })
	h.age = strings.TrimSpace(out)
	return h
}

// app is an app on h's home with fake streams.
func (h *testHome) app(stdin []byte, stdout, stderr *bytes.Buffer) *app {
	return newTestApp(context.Background(), bytes.NewReader(stdin), stdout, stderr, h.env)
}

// run calls fn with an app on h's home and returns what it printed and
// the exit code app.report gives its error.
func (h *testHome) run(t *testing.T, name string, stdin []byte, fn func(a *app) error) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := h.app(stdin, &out, &errOut)
	code = a.report(name, fn(a))
	return out.String(), errOut.String(), code
}

func (h *testHome) store(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(filepath.Join(h.dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// save stores a handoff titled title and returns it.
func (h *testHome) save(t *testing.T, title string) *handoff.Record {
	t.Helper()
	rec, err := handoff.New(time.Now(), "codex", title)
	if err != nil {
		t.Fatal(err)
	}
	rec.Project = handoff.Project{Path: "/src/app", Name: "app"}
	if err := h.store(t).Save(rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func (h *testHome) count(t *testing.T) int {
	t.Helper()
	list, err := h.store(t).List(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// exportTo writes alice's latest handoff as a bundle file for bob.
func exportTo(t *testing.T, alice *testHome, opts exportOptions) string {
	t.Helper()
	if opts.ref == "" {
		opts.ref = "latest"
	}
	if opts.output == "" {
		opts.output = filepath.Join(t.TempDir(), "b.handoff")
	}
	if opts.format == "" {
		opts.format = "bundle"
	}
	if _, errOut, code := alice.run(t, "export", nil, func(a *app) error { return runExport(a, &opts) }); code != 0 {
		t.Fatalf("export: %d %s", code, errOut)
	}
	return opts.output
}

func TestExport(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", true)
	bob := newTestHome(t, "bob@desk", true)
	keyless := newTestHome(t, "", false)
	rec := alice.save(t, "Refactor auth middleware")
	keyless.save(t, "no keys here")
	out := func(name string) string { return filepath.Join(t.TempDir(), name) }
	for _, c := range []struct {
		name   string
		home   *testHome
		opts   exportOptions
		tty    bool
		env    map[string]string
		code   int
		stdout string // a substring; "" wants nothing
		stderr string // a substring; "" wants nothing
		file   bool   // the output file exists afterwards
	}{
		{name: "to a recipient", home: alice, opts: exportOptions{to: []string{bob.age}, output: out("ok.handoff")},
			stderr: "exported " + string(rec.ID) + " as bundle ", file: true},
		{name: "no output", home: alice, opts: exportOptions{to: []string{bob.age}},
			code: 2, stderr: "session-handoff: export: -o FILE or -o - is required\nhint: run 'session-handoff export --help'"},
		{name: "no encryption said", home: alice, opts: exportOptions{output: out("none.handoff")},
			code: 1, stderr: "session-handoff: export: no recipients\nhint: pass --to"},
		{name: "two encryptions", home: alice, opts: exportOptions{to: []string{bob.age}, noEncrypt: true, output: out("two.handoff")},
			code: 2, stderr: "choose one of --to/--to-file, --passphrase and --no-encrypt"},
		{name: "bad inline recipient", home: alice, opts: exportOptions{to: []string{"age1notakey"}, output: out("bad.handoff")},
			code: 2, stderr: "session-handoff: export: --to: "},
		{name: "missing recipients file", home: alice, opts: exportOptions{to: []string{out("nobody.txt")}, output: out("nf.handoff")},
			code: 1, stderr: "read recipients"},
		{name: "binary to a terminal", home: alice, opts: exportOptions{noEncrypt: true, output: "-"}, tty: true,
			code: 1, stderr: "will not write a binary bundle to a terminal\nhint: pass --armor"},
		{name: "armored to a terminal", home: alice, opts: exportOptions{noEncrypt: true, armor: true, output: "-"}, tty: true,
			stdout: "-----BEGIN"},
		{name: "passphrase from the environment", home: alice, opts: exportOptions{passphrase: true, armor: true, output: "-"},
			env: map[string]string{passphraseEnv: "correct horse"}, stdout: "-----BEGIN"},
		{name: "unknown id", home: alice, opts: exportOptions{ref: "01ZZZZZZZZ", noEncrypt: true, output: out("unk.handoff")},
			code: 1, stderr: "hint: run 'session-handoff list'"},
		{name: "target without markdown", home: alice, opts: exportOptions{noEncrypt: true, target: "codex", output: out("t.handoff")},
			code: 2, stderr: "--target goes with --format markdown"},
		{name: "unknown format", home: alice, opts: exportOptions{format: "yaml", noEncrypt: true, output: out("f.yaml")},
			code: 2, stderr: `--format "yaml": want bundle, markdown or json`},
		{name: "json", home: alice, opts: exportOptions{format: "json", output: "-"}, stdout: `"title": "Refactor auth middleware"`},
		{name: "markdown file", home: alice, opts: exportOptions{format: "md", output: out("h.md")}, file: true},
		{name: "signed without keys", home: keyless, opts: exportOptions{noEncrypt: true, output: out("nokeys.handoff")},
			code: 1, stderr: "hint: run 'session-handoff keygen', or pass --unsigned"},
		{name: "unsigned without keys", home: keyless, opts: exportOptions{noEncrypt: true, unsigned: true, output: out("unsigned.handoff")},
			stderr: "(none) to ", file: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			if opts.ref == "" {
				opts.ref = "latest"
			}
			if opts.format == "" {
				opts.format = "bundle"
			}
			var stdout, stderr bytes.Buffer
			env := map[string]string{}
			for k, v := range c.home.env {
				env[k] = v
			}
			for k, v := range c.env {
				env[k] = v
			}
			opts.allProjects = true // the store's newest, with no note: the test runs outside its project
			a := newTestApp(context.Background(), nil, &stdout, &stderr, env)
			a.stdoutTTY = c.tty
			code := a.report("export", runExport(a, &opts))
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, stderr.String())
			}
			if (c.stdout == "") != (stdout.Len() == 0) || !strings.Contains(stdout.String(), c.stdout) {
				t.Errorf("stdout %.200q, want %q", stdout.String(), c.stdout)
			}
			if (c.stderr == "") != (stderr.Len() == 0) || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
			}
			if opts.output != "-" && opts.output != "" {
				_, err := os.Stat(opts.output)
				if c.file != (err == nil) {
					t.Errorf("output file exists: %v, want %v", err == nil, c.file)
				}
			}
		})
	}
}

func TestExportJSONIsTheRecord(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", false)
	rec := alice.save(t, "a title")
	out, _, code := alice.run(t, "export", nil, func(a *app) error {
		return runExport(a, &exportOptions{ref: string(rec.ID), format: "json", output: "-"})
	})
	var got handoff.Record
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.ID != rec.ID || got.Title != rec.Title {
		t.Fatalf("exit %d, %q", code, out)
	}
}
