package remote

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalURL(t *testing.T) {
	for url, want := range map[string]bool{
		"/srv/inbox.git":               true,
		"../inbox.git":                 true,
		"inbox.git":                    true,
		"./a:b":                        true,
		"file:///srv/inbox.git":        true,
		"FILE:///srv/inbox.git":        true,
		`C:\Users\me\inbox.git`:        true,
		"C:/inbox.git":                 true,
		"git@example.com:team/inbox":   false,
		"example.com:inbox":            false,
		"ssh://example.com/inbox":      false,
		"https://example.com/inbox":    false,
		"git://example.com/inbox":      false,
		"ext::sh -c x":                 false,
		"https://example.com/a://b":    false,
		"host:/path/with://in-it":      false,
		"file://host/../../etc/passwd": true,
	} {
		if got := localURL(url); got != want {
			t.Errorf("localURL(%q) = %v, want %v", url, got, want)
		}
	}
}

// armed is a way for whoever can write a shared repository to make a
// program of theirs run on a member's machine when git's local transport
// serves a push or a fetch from it.
type armed struct {
	name string
	// bare: the remote is a bare repository (else one with a work tree).
	bare bool
	// arm plants the program in the repository at dir (its git directory
	// is gitDir); each run of it appends a line to marker. head is the
	// ref that the next send changes.
	arm func(t *testing.T, dir, gitDir, marker, head string)
}

// markerScript is a shell script that appends what to marker, reads its
// input and succeeds, so that a push it sees would go on (proc-receive,
// which speaks a protocol, reads nothing and fails instead).
func markerScript(what, marker string) []byte {
	if what == "proc-receive" {
		return []byte("#!/bin/sh\necho " + what + " >>'" + marker + "'\nexit 1\n")
	}
	return []byte("#!/bin/sh\necho " + what + " >>'" + marker + "'\ncat >/dev/null 2>&1\nexit 0\n")
}

func writeHook(t *testing.T, dir, name, marker string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), markerScript(name, marker), 0o755); err != nil {
		t.Fatal(err)
	}
}

func armedRemotes() []armed {
	hook := func(name string) armed {
		return armed{name: name, bare: true, arm: func(t *testing.T, _, gitDir, marker, _ string) {
			writeHook(t, filepath.Join(gitDir, "hooks"), name, marker)
		}}
	}
	return []armed{
		hook("pre-receive"), hook("update"), hook("post-receive"), hook("post-update"), hook("reference-transaction"),
		{name: "core.hooksPath", bare: true, arm: func(t *testing.T, _, gitDir, marker, _ string) {
			hooks := filepath.Join(filepath.Dir(gitDir), "elsewhere-hooks")
			for _, h := range []string{"pre-receive", "update", "post-receive", "post-update", "reference-transaction"} {
				writeHook(t, hooks, h, marker)
			}
			gitT(t, gitDir, "config", "core.hooksPath", hooks)
		}},
		{name: "proc-receive", bare: true, arm: func(t *testing.T, _, gitDir, marker, _ string) {
			writeHook(t, filepath.Join(gitDir, "hooks"), "proc-receive", marker)
			gitT(t, gitDir, "config", "receive.procReceiveRefs", "refs/heads")
		}},
		{name: "pre-auto-gc", bare: true, arm: func(t *testing.T, _, gitDir, marker, _ string) {
			writeHook(t, filepath.Join(gitDir, "hooks"), "pre-auto-gc", marker)
			// Every push keeps a pack, and two packs are one too many.
			gitT(t, gitDir, "config", "receive.unpackLimit", "1")
			gitT(t, gitDir, "config", "gc.autoPackLimit", "1")
			gitT(t, gitDir, "config", "receive.autogc", "true")
		}},
		{name: "core.alternateRefsCommand", bare: true, arm: func(t *testing.T, _, gitDir, marker, _ string) {
			other := filepath.Join(filepath.Dir(gitDir), "other.git")
			gitT(t, "", "init", "--quiet", "--bare", other)
			if err := os.WriteFile(filepath.Join(gitDir, "objects", "info", "alternates"), []byte(filepath.Join(other, "objects")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitT(t, gitDir, "config", "core.alternateRefsCommand", "echo alternates >>'"+marker+"'; true")
		}},
		{name: "uploadpack.packObjectsHook", bare: true, arm: func(t *testing.T, _, gitDir, marker, _ string) {
			gitT(t, gitDir, "config", "uploadpack.packObjectsHook", "echo pack-objects >>'"+marker+"'; exec")
		}},
		{name: "push-to-checkout", arm: func(t *testing.T, dir, gitDir, marker, head string) {
			writeHook(t, filepath.Join(gitDir, "hooks"), "push-to-checkout", marker)
			gitT(t, dir, "config", "receive.denyCurrentBranch", "updateInstead")
			gitT(t, dir, "symbolic-ref", "HEAD", head)
			gitT(t, dir, "reset", "--quiet", "--hard")
		}},
		{name: "updateInstead-filter", arm: func(t *testing.T, dir, gitDir, marker, head string) {
			// The checkout of a push-to-deploy runs the remote's filters.
			gitT(t, dir, "config", "receive.denyCurrentBranch", "updateInstead")
			gitT(t, dir, "symbolic-ref", "HEAD", head)
			gitT(t, dir, "reset", "--quiet", "--hard")
			if err := os.WriteFile(filepath.Join(gitDir, "info", "attributes"), []byte("* filter=x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gitT(t, dir, "config", "filter.x.smudge", "echo smudge >>'"+marker+"'; cat")
			gitT(t, dir, "config", "core.fsmonitor", "echo fsmonitor >>'"+marker+"'; true")
		}},
	}
}

// A local remote (a path, or a file:// URL) is code only of git's: no hook,
// no program its configuration names, runs on this machine when a member
// sends, lists the inbox, receives (with the push that removes what it
// imported) or receives with nothing new. Syncing my devices is the same
// Send and Receive.
func TestLocalRemoteRunsNoProgramOfItsOwn(t *testing.T) {
	for i, a := range armedRemotes() {
		t.Run(a.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "inbox.git")
			gitDir := dir
			if a.bare {
				gitT(t, "", "init", "--quiet", "--bare", dir)
			} else {
				gitT(t, "", "init", "--quiet", dir)
				gitDir = filepath.Join(dir, ".git")
			}
			// Half the kinds through a plain path, half through file://.
			r := Remote{Name: "team", URL: dir, Branch: DefaultBranch}
			if i%2 == 1 {
				r.URL = "file://" + dir
			}
			marker := filepath.Join(base, "ran")
			alice, bob := newMachine(t, "alice@laptop"), newMachine(t, "bob@desk")
			bob.trusts(alice)
			alice.send(r, alice.save("before"), bob)
			a.arm(t, dir, gitDir, marker, r.recipientRef(bob.hash()))
			ctx := context.Background()
			// A push the remote's own settings refuse (proc-receive,
			// updateInstead) may fail: it must still run nothing.
			_, sendErr := Send(ctx, alice.sendOpts(r, alice.save("after"), bob))
			if _, err := Inbox(ctx, InboxOptions{Remote: r, DataDir: bob.data, Keys: bob.keys, Read: bob.readOptions()}); err != nil {
				t.Fatalf("inbox: %v", err)
			}
			res, err := Receive(ctx, bob.receiveOpts(r))
			if err != nil {
				t.Fatalf("receive: %v", err)
			}
			if _, err := Receive(ctx, bob.receiveOpts(r)); err != nil {
				t.Fatalf("receive again: %v", err)
			}
			if data, err := os.ReadFile(marker); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("the remote's own programs ran on this machine: %q", strings.Fields(string(data)))
			}
			if sendErr == nil && (countOutcome(res, OutcomeImported) != 2 || res.Removed != 2) {
				t.Fatalf("receive: %+v", res)
			}
			if sendErr != nil {
				t.Logf("send, refused by the remote: %v", sendErr)
			}
		})
	}
}
