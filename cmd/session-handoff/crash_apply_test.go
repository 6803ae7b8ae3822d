//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The crash campaign's apply (issue 34): a handoff saved with
// --with-changes in a repository "desk" of its own, whose worktree is
// then put back at the base commit with a local change of a file the
// patch does not touch. apply is killed at each point of its writes to
// the worktree; afterwards apply run again must finish, and leave every
// file as the laptop had it, the local change in place and in the stash.

// crashApplyFiles are the desk's files at the base commit, and what the
// changes make of them ("" for a file the changes create).
var crashApplyFiles = []struct{ name, base, changed string }{
	{"a.txt", "a\n", "a, changed\n"},
	{"b.txt", "b\n", "b, changed\n"},
	{"c.txt", "c\n", "c, changed\n"},
	{"local.txt", "mine\n", "mine\n"},
	{"new1.txt", "", "new one\n"},
	{"new2.txt", "", "new two\n"},
}

const crashLocalChange = "mine, changed here\n"

// crashNextFiles are the changes of the desk's other handoff, made at
// the same base: what the user applies after the killed apply.
var crashNextFiles = []struct{ name, base, changed string }{
	{"next.txt", "", "the next handoff's\n"},
	{"next2.txt", "", "the next handoff's too\n"},
}

// crashUserFiles are the user's own untracked files, written after the
// kill: user.txt no handoff names, next.txt the next handoff creates.
var crashUserFiles = map[string]string{"user.txt": "the user's\n", "next.txt": "the user's own next\n"}

// crashApplyWorld makes the desk repository under case/ and stores the
// handoff that carries its changes, and another made at the same base;
// it returns their ids.
func crashApplyWorld(t *testing.T, dir string, me map[string]string) (id, next string) {
	desk := filepath.Join(dir, "case", "desk")
	gitIn(t, filepath.Dir(desk), "init", "-q", "-b", "main", desk)
	for _, f := range crashApplyFiles {
		if f.base != "" {
			writeFile(t, filepath.Join(desk, f.name), f.base)
		}
	}
	gitIn(t, desk, "add", ".")
	gitIn(t, desk, "commit", "-q", "-m", "base")
	for _, f := range crashApplyFiles {
		writeFile(t, filepath.Join(desk, f.name), f.changed)
	}
	out := mustCLI(t, "world", me, "", "save", "--project", desk, "--title", "Work to carry", "--with-changes", "--json").stdout
	var rec struct{ ID string }
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		t.Fatalf("save --json: %v: %s", err, out)
	}
	gitIn(t, desk, "checkout", "-q", "--", ".")
	gitIn(t, desk, "clean", "-qfd")
	for _, f := range crashNextFiles {
		writeFile(t, filepath.Join(desk, f.name), f.changed)
	}
	out = mustCLI(t, "world", me, "", "save", "--project", desk, "--title", "Other work to carry", "--with-changes", "--json").stdout
	var nextRec struct{ ID string }
	if err := json.Unmarshal([]byte(out), &nextRec); err != nil || nextRec.ID == "" {
		t.Fatalf("save --json: %v: %s", err, out)
	}
	gitIn(t, desk, "checkout", "-q", "--", ".")
	gitIn(t, desk, "clean", "-qfd")
	writeFile(t, filepath.Join(desk, "local.txt"), crashLocalChange)
	return rec.ID, nextRec.ID
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkApply: apply run again finishes, and the desk is as the laptop
// had it, with the local change in place and kept in a stash entry.
func checkApply(c *crashCase) []string {
	bad := checkCommon(c)
	desk := filepath.Join(c.root, "desk")
	r := c.cli("apply", c.w.changesID, "--project", desk)
	lock := filepath.Join(desk, ".git", "index.lock")
	if r.code != 0 && strings.Contains(r.stderr, "left "+lock) {
		// What the message tells the user to do: the git that held the
		// lock died with apply.
		os.Remove(lock)
		r = c.cli("apply", c.w.changesID, "--project", desk)
	}
	if r.code != 0 {
		return append(bad, fmt.Sprintf("apply again: exit %d: %s", r.code, firstLines(r.stderr, 2)))
	}
	for _, f := range crashApplyFiles {
		want := f.changed
		if f.name == "local.txt" {
			want = crashLocalChange
		}
		if got, err := os.ReadFile(filepath.Join(desk, f.name)); err != nil || string(got) != want {
			bad = append(bad, fmt.Sprintf("%s = %q (%v), want %q", f.name, got, err, want))
		}
	}
	return append(bad, localKept(desk)...)
}

// localKept: a stash entry holds the local change, and no journal is left.
func localKept(desk string) (bad []string) {
	stashes, err := exec.Command("git", "-C", desk, "stash", "list", "--format=%H").Output()
	if err != nil {
		return append(bad, "git stash list: "+err.Error())
	}
	kept := false
	for _, h := range strings.Fields(string(stashes)) {
		if out, err := exec.Command("git", "-C", desk, "show", h+":local.txt").Output(); err == nil && string(out) == crashLocalChange {
			kept = true
		}
	}
	if !kept {
		bad = append(bad, "no stash entry holds the local change")
	}
	if _, err := os.Stat(filepath.Join(desk, ".git", "session-handoff-apply")); !os.IsNotExist(err) {
		bad = append(bad, fmt.Sprintf("the apply journal is left: %v", err))
	}
	return bad
}

// checkApplyNext: after the kill the user writes files of their own,
// one where the next handoff creates one, and applies that other
// handoff. The killed apply is undone with its journal alone, and no
// file of the user's is lost: the next apply refuses (a file is in the
// way), and once the user moves it, applies, with every user file and the
// local change in place.
func checkApplyNext(c *crashCase) []string {
	bad := checkCommon(c)
	desk := filepath.Join(c.root, "desk")
	for name, text := range crashUserFiles {
		if err := os.WriteFile(filepath.Join(desk, name), []byte(text), 0o644); err != nil {
			return append(bad, err.Error())
		}
	}
	apply := func() cliResult {
		r := c.cli("apply", c.w.nextID, "--project", desk)
		if lock := filepath.Join(desk, ".git", "index.lock"); r.code != 0 && strings.Contains(r.stderr, "left "+lock) {
			os.Remove(lock)
			r = c.cli("apply", c.w.nextID, "--project", desk)
		}
		return r
	}
	userFilesKept := func(when string) {
		for name, text := range crashUserFiles {
			if got, err := os.ReadFile(filepath.Join(desk, name)); err != nil || string(got) != text {
				bad = append(bad, fmt.Sprintf("%s: the user's %s = %q (%v), want %q", when, name, got, err, text))
			}
		}
	}
	if r := apply(); r.code == 0 || !strings.Contains(r.stderr, "exists here") {
		bad = append(bad, fmt.Sprintf("the next apply over the user's next.txt: exit %d: %s", r.code, firstLines(r.stderr, 2)))
	}
	userFilesKept("after the refused apply")
	moved := filepath.Join(desk, "next.txt.mine")
	if err := os.Rename(filepath.Join(desk, "next.txt"), moved); err != nil {
		return append(bad, err.Error())
	}
	if r := apply(); r.code != 0 {
		return append(bad, fmt.Sprintf("the next apply: exit %d: %s", r.code, firstLines(r.stderr, 2)))
	}
	if got, err := os.ReadFile(moved); err != nil || string(got) != crashUserFiles["next.txt"] {
		bad = append(bad, fmt.Sprintf("the user's moved next.txt = %q (%v)", got, err))
	}
	if err := os.Rename(moved, filepath.Join(desk, "next.txt.handoff")); err != nil {
		return append(bad, err.Error())
	}
	for _, f := range crashNextFiles {
		if got, err := os.ReadFile(filepath.Join(desk, f.name)); err != nil || string(got) != f.changed {
			bad = append(bad, fmt.Sprintf("%s = %q (%v), want %q", f.name, got, err, f.changed))
		}
	}
	if got, err := os.ReadFile(filepath.Join(desk, "user.txt")); err != nil || string(got) != crashUserFiles["user.txt"] {
		bad = append(bad, fmt.Sprintf("the user's user.txt = %q (%v)", got, err))
	}
	// The first apply's files: undone (absent, or as at the base) when
	// it was killed, its changes when it finished first; never another
	// content.
	for _, f := range crashApplyFiles {
		got, err := os.ReadFile(filepath.Join(desk, f.name))
		switch {
		case f.name == "local.txt":
			if string(got) != crashLocalChange {
				bad = append(bad, fmt.Sprintf("local.txt = %q (%v), want the local change", got, err))
			}
		case f.base == "" && os.IsNotExist(err):
		case err != nil || string(got) != f.base && string(got) != f.changed:
			bad = append(bad, fmt.Sprintf("%s = %q (%v), want %q or %q", f.name, got, err, f.base, f.changed))
		}
	}
	return append(bad, localKept(desk)...)
}
