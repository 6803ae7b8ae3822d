package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", true)
	bob := newTestHome(t, "bob@desk", true)
	carol := newTestHome(t, "carol@lab", true)
	// trusting is a second recipient, who trusts alice.
	trusting := newTestHome(t, "dave@desk", true)
	alice.save(t, "Refactor auth middleware")
	signed := exportTo(t, alice, exportOptions{to: []string{bob.age, trusting.age}})
	unsigned := exportTo(t, alice, exportOptions{noEncrypt: true, unsigned: true})
	data, err := os.ReadFile(signed)
	if err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(t.TempDir(), "damaged.handoff")
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 0xff
	if err := os.WriteFile(damaged, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := trusting.run(t, "trust add", nil, func(a *app) error {
		return runTrustAdd(a, &trustAddOptions{key: alice.pub})
	}); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		name   string
		home   *testHome
		opts   checkOptions
		stdin  []byte
		code   int
		stdout string
		stderr string
	}{
		{name: "verified", home: trusting, opts: checkOptions{input: signed}, stdout: "verified: signed by alice@laptop (SHA256:"},
		{name: "untrusted", home: bob, opts: checkOptions{input: signed}, code: 3, stdout: "valid signature by an untrusted key SHA256:"},
		{name: "untrusted from stdin", home: bob, opts: checkOptions{input: "-"}, stdin: data, code: 3, stdout: "untrusted key"},
		{name: "unsigned", home: bob, opts: checkOptions{input: unsigned}, code: 4, stdout: "unsigned\n"},
		{name: "damaged", home: bob, opts: checkOptions{input: damaged}, code: 5, stderr: "session-handoff: verify: " + damaged + ": "},
		{name: "not for me", home: carol, opts: checkOptions{input: signed}, code: 1, stderr: "session-handoff: verify: " + signed + ": "},
		{name: "missing file", home: bob, opts: checkOptions{input: damaged + ".nope"}, code: 1, stderr: "no such file"},
		{name: "json untrusted", home: bob, opts: checkOptions{input: signed, json: true}, code: 3, stdout: `"result": "untrusted"`},
		{name: "json damaged", home: bob, opts: checkOptions{input: damaged, json: true}, code: 5, stdout: `"result": "invalid"`},
		{name: "json not for me", home: carol, opts: checkOptions{input: signed, json: true}, code: 1, stdout: `"error_kind": "no_identity"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			stdout, stderr, code := c.home.run(t, "verify", c.stdin, func(a *app) error { return runVerify(a, &opts) })
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, stderr)
			}
			if (c.stdout == "") != (stdout == "") || !strings.Contains(stdout, c.stdout) {
				t.Errorf("stdout %q, want %q", stdout, c.stdout)
			}
			if (c.stderr == "") != (stderr == "") || !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q, want %q", stderr, c.stderr)
			}
			if opts.json {
				var rep map[string]any
				if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
					t.Errorf("--json is not JSON: %v", err)
				}
			}
		})
	}
	// A wrong count of arguments is a usage error, before anything is read.
	var stdout, stderr bytes.Buffer
	a := newTestApp(context.Background(), nil, &stdout, &stderr, bob.env)
	if code := a.execute([]string{"verify", signed, signed}); code != 2 || !strings.HasPrefix(stderr.String(), "session-handoff: verify: takes one bundle file") {
		t.Errorf("two files: exit %d, %q", code, stderr.String())
	}
}

func TestInspect(t *testing.T) {
	alice := newTestHome(t, "alice@laptop", true)
	bob := newTestHome(t, "bob@desk", true)
	carol := newTestHome(t, "carol@lab", true)
	alice.save(t, "Refactor auth middleware")
	signed := exportTo(t, alice, exportOptions{to: []string{bob.age}})
	stdout, stderr, code := bob.run(t, "inspect", nil, func(a *app) error { return runInspect(a, &checkOptions{input: signed}) })
	if code != 0 || stderr != "" || !strings.Contains(stdout, "handoff:     ") || !strings.Contains(stdout, "1 recipient(s), including me") {
		t.Errorf("inspect: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, stderr, code = carol.run(t, "inspect", nil, func(a *app) error { return runInspect(a, &checkOptions{input: signed}) })
	if code != 1 || !strings.Contains(stderr, "session-handoff: inspect: "+signed) {
		t.Errorf("inspect by someone who cannot decrypt: exit %d, %q", code, stderr)
	}
}
