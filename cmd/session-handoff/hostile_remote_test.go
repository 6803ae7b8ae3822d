package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
)

// The campaign's shared remotes: a local repository armed by whoever can
// write it (its hooks and configured programs must never run here), many
// entries of my ref pointing to one file (read once, the copies
// rejected), and a stranger's bundle that inflates to megabytes (refused
// by its envelope, then remembered: the next receive exits 0).

// remoteGit runs git in dir for a campaign input's placing.
func remoteGit(dir, stdin string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=M", "GIT_AUTHOR_EMAIL=m@example.com",
		"GIT_COMMITTER_NAME=M", "GIT_COMMITTER_EMAIL=m@example.com")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %v: %v: %s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// placeRemote makes a bare repository as {input}, the reader's remote
// "team", and sends the baseline handoff to the reader through it.
func placeRemote(e *hostileEnv) error {
	e.input = filepath.Join(e.root, "inbox.git")
	if _, err := remoteGit(e.root, "", "init", "--quiet", "--bare", e.input); err != nil {
		return err
	}
	for _, args := range [][]string{{"remote", "add", "team", e.input}, {"send", "latest", "--to", e.template.recipient}} {
		if r := runCLI(e.env, "", args...); r.code != 0 {
			return fmt.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	return nil
}

// myRef is the reader's ref of the inbox.
func myRef(e *hostileEnv) string {
	return "refs/heads/inbox/" + strings.TrimPrefix(crypto.RecipientHash(e.template.recipient), "sha256:")
}

// plantInRef replaces the tree of the reader's ref with entries (ls-tree
// lines), as anyone who can push could.
func plantInRef(e *hostileEnv, entries []string) error {
	tree, err := remoteGit(e.input, strings.Join(entries, "\n")+"\n", "mktree")
	if err != nil {
		return err
	}
	commit, err := remoteGit(e.input, "", "commit-tree", "-m", "planted", tree)
	if err != nil {
		return err
	}
	_, err = remoteGit(e.input, "", "update-ref", myRef(e), commit)
	return err
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// hookMarker is the file an armed remote's programs write when they run.
func hookMarker(e *hostileEnv) string { return filepath.Join(e.root, "remote-program-ran") }

func markerHook(marker string) []byte {
	return []byte("#!/bin/sh\necho ran >>'" + marker + "'\ncat >/dev/null 2>&1\nexit 0\n")
}

// armings are the ways a local remote could run a program of its writer's
// on a member's machine; each arms the repository at dir.
var armings = []struct {
	name string
	arm  func(e *hostileEnv, dir string) error
}{
	{"pre-receive", armHook("pre-receive")},
	{"update", armHook("update")},
	{"post-receive", armHook("post-receive")},
	{"post-update", armHook("post-update")},
	{"reference-transaction", armHook("reference-transaction")},
	{"core-hookspath", func(e *hostileEnv, dir string) error {
		hooks := filepath.Join(e.root, "their-hooks")
		if err := os.MkdirAll(hooks, 0o755); err != nil {
			return err
		}
		for _, h := range []string{"pre-receive", "update", "post-receive", "reference-transaction"} {
			if err := os.WriteFile(filepath.Join(hooks, h), markerHook(hookMarker(e)), 0o755); err != nil {
				return err
			}
		}
		_, err := remoteGit(dir, "", "config", "core.hooksPath", hooks)
		return err
	}},
	{"alternate-refs-command", func(e *hostileEnv, dir string) error {
		other := filepath.Join(e.root, "other.git")
		if _, err := remoteGit(e.root, "", "init", "--quiet", "--bare", other); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "objects", "info", "alternates"), []byte(filepath.Join(other, "objects")+"\n"), 0o644); err != nil {
			return err
		}
		_, err := remoteGit(dir, "", "config", "core.alternateRefsCommand", "echo ran >>'"+hookMarker(e)+"'; true")
		return err
	}},
	{"pre-auto-gc", func(e *hostileEnv, dir string) error {
		if err := armHook("pre-auto-gc")(e, dir); err != nil {
			return err
		}
		for _, kv := range [][2]string{{"receive.unpackLimit", "1"}, {"gc.autoPackLimit", "1"}, {"receive.autogc", "true"}} {
			if _, err := remoteGit(dir, "", "config", kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	}},
}

func armHook(name string) func(e *hostileEnv, dir string) error {
	return func(e *hostileEnv, dir string) error {
		hooks := filepath.Join(dir, "hooks")
		if err := os.MkdirAll(hooks, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(hooks, name), markerHook(hookMarker(e)), 0o755)
	}
}

var bundleIDLine = regexp.MustCompile(`as bundle ([0-9a-f]{32})`)

func remoteInputs() []hostileInput {
	var out []hostileInput
	noProgramRan := func(e *hostileEnv, _ map[string]treeState) error {
		if data, err := os.ReadFile(hookMarker(e)); !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("the remote's own programs ran on this machine: %q", data)
		}
		return nil
	}
	for _, a := range armings {
		out = append(out, hostileInput{kind: kindRemotes, name: "local-hooks/" + a.name,
			place: func(e *hostileEnv) error {
				if err := placeRemote(e); err != nil {
					return err
				}
				return a.arm(e, e.input)
			},
			runs: []hostileRun{
				{args: []string{"save", "--no-git", "--project", "{project}", "--title", "Second"}, mayChange: []string{"home:data/"}},
				{args: []string{"send", "latest", "--to", "{recipient}"}, outHas: []string{"via team"}, mayChange: []string{"home:data/"}},
				{args: []string{"inbox"}, outHas: []string{"team"}, mayChange: []string{"home:data/"}},
				// (the reader's own records: already stored, skipped)
				{args: []string{"receive", "--on-conflict", "skip"}, outHas: []string{"2 skipped, 2 removed from the remote"}, mayChange: []string{"home:data/"}},
				{args: []string{"receive"}, outHas: []string{"team: nothing new"}, mayChange: []string{"home:data/"}},
			},
			after: noProgramRan})
	}
	out = append(out, hostileInput{kind: kindRemotes, name: "many-to-one-blobs",
		place: func(e *hostileEnv) error {
			if err := placeRemote(e); err != nil {
				return err
			}
			ls, err := remoteGit(e.input, "", "ls-tree", myRef(e))
			if err != nil {
				return err
			}
			meta, _, ok := strings.Cut(ls, "\t")
			if !ok || strings.Contains(ls, "\n") {
				return fmt.Errorf("want one bundle in my ref, got %q", ls)
			}
			entries := []string{ls}
			for range 300 {
				entries = append(entries, meta+"\t"+randomID()+".handoff")
			}
			return plantInRef(e, entries)
		},
		runs: []hostileRun{
			{args: []string{"receive", "--on-conflict", "skip"}, code: exitFailure, errHas: []string{"300 rejected"},
				outHas: []string{"(the same file as inbox/"}, mayChange: []string{"home:data/"}},
			{args: []string{"receive"}, outHas: []string{"team: nothing new"}, mayChange: []string{"home:data/"}},
		}})
	out = append(out, hostileInput{kind: kindRemotes, name: "compressible-stranger",
		place: func(e *hostileEnv) error {
			if err := placeRemote(e); err != nil {
				return err
			}
			zeros := filepath.Join(e.root, "zeros.bin")
			if err := os.WriteFile(zeros, make([]byte, 8<<20), 0o600); err != nil {
				return err
			}
			b := filepath.Join(e.root, "stranger.handoff")
			r := runCLI(e.env, "", "export", "latest", "--keys", filepath.Join(e.template.dir, "mallory-keys"), "--to", e.template.recipient, "--attach", zeros, "-o", b)
			m := bundleIDLine.FindStringSubmatch(r.stderr)
			if r.code != 0 || m == nil {
				return fmt.Errorf("export: exit %d: %s", r.code, r.stderr)
			}
			data, err := os.ReadFile(b)
			if err != nil {
				return err
			}
			if len(data) > 1<<20 {
				return fmt.Errorf("the stranger's bundle is %d bytes: not compressed", len(data))
			}
			blob, err := remoteGit(e.input, string(data), "hash-object", "-w", "--stdin")
			if err != nil {
				return err
			}
			return plantInRef(e, []string{"100644 blob " + blob + "\t" + m[1] + ".handoff"})
		},
		runs: []hostileRun{
			{args: []string{"receive"}, code: exitFailure, errHas: []string{"1 refused"},
				outHas: []string{"refused", malloryFingerprint}, mayChange: []string{"home:data/"}},
			{args: []string{"receive"}, outHas: []string{"still refused", malloryFingerprint}, mayChange: []string{"home:data/"}},
			{args: []string{"inbox"}, outHas: []string{"refused", "not in the trust store"}, mayChange: []string{"home:data/"}},
			{args: []string{"receive", "--drop", "all-refused"}, outHas: []string{"1 dropped, 1 removed from the remote"}, mayChange: []string{"home:data/"}},
		}})
	return out
}
