//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/devsync"
)

// The crash campaign's sync: two of my machines, "laptop" and "desktop",
// homes of their own under case/, paired, with a git remote sync.git.
// The laptop sent "Laptop A" (on the remote, for the desktop) and was
// asked to send "Laptop B", whose push was killed before it did anything
// (the request is in its sync state, nothing else). 'sync push' on the
// laptop and 'sync pull' on the desktop are killed at each step; then
// what status says must be true (nothing pending means the remote has
// it), a push and a pull again must deliver both, each imported once.

// crashSyncHomes are the two machines' homes, under case/.
var crashSyncHomes = []string{"laptop", "desktop"}

// crashSyncWorld makes the machines under dir/case.
func crashSyncWorld(t *testing.T, dir string) {
	remote := "file://" + filepath.Join(dir, "case", "sync.git")
	gitIn(t, dir, "init", "-q", "--bare", filepath.Join(dir, "case", "sync.git"))
	env := map[string]map[string]string{}
	texts := map[string]string{}
	for _, name := range crashSyncHomes {
		home := filepath.Join(dir, "case", name)
		env[name] = campaignEnv(home)
		mustCLI(t, "sync world", env[name], "", "keygen", "--name", "me@"+name+"-key", "--no-passphrase")
		mustCLI(t, "sync world", env[name], "", "remote", "add", "mine", remote)
		texts[name] = mustCLI(t, "sync world", env[name], "", "devices", "add", "--name", name, "--text").stdout
	}
	for i, name := range crashSyncHomes {
		other := crashSyncHomes[1-i]
		text := filepath.Join(dir, other+".pair")
		writeFile(t, text, texts[other])
		mustCLI(t, "sync world", env[name], "", "devices", "add", text, "--name", name)
		mustCLI(t, "sync world", env[name], "", "sync", "on", "--global")
	}
	laptop := env["laptop"]
	mustCLI(t, "sync world", laptop, "", "save", "--no-git", "--project", dir, "--title", "Laptop A")
	mustCLI(t, "sync world", laptop, "", "sync", "push", "latest")
	out := mustCLI(t, "sync world", laptop, "", "save", "--no-git", "--project", dir, "--title", "Laptop B", "--json").stdout
	var rec struct{ ID string }
	if err := json.Unmarshal([]byte(out), &rec); err != nil || rec.ID == "" {
		t.Fatalf("save --json: %v: %s", err, out)
	}
	if err := devsync.Want(filepath.Join(dir, "case", "laptop", "data"), "mine", handoff.ID(rec.ID), "", time.Now()); err != nil {
		t.Fatal(err)
	}
}

// crashSyncScenarios are sync push on the laptop and sync pull on the
// desktop.
func crashSyncScenarios() []crashScenario {
	on := func(name string) []string {
		return []string{"--store", "{root}/" + name + "/data", "--keys", "{root}/" + name + "/config"}
	}
	watch := func(name string) func(c *crashCase) []string {
		return func(c *crashCase) []string {
			return []string{filepath.Join(c.root, name), filepath.Join(c.root, "sync.git")}
		}
	}
	return []crashScenario{
		{name: "sync push", args: append([]string{"sync", "push"}, on("laptop")...), watch: watch("laptop"), check: checkSyncPush},
		{name: "sync pull", args: append([]string{"sync", "pull"}, on("desktop")...), watch: watch("desktop"), check: checkSyncPull},
	}
}

// syncOn runs a command as a process on one of the machines.
func (c *crashCase) syncOn(name string, args ...string) (int, string) {
	return c.proc(append(args, "--store", filepath.Join(c.root, name, "data"), "--keys", filepath.Join(c.root, name, "config"))...)
}

// syncPendingOn is what 'sync status --json' says is pending on name.
func (c *crashCase) syncPendingOn(name string) (int, bool, error) {
	code, out := c.syncOn(name, "sync", "status", "--json")
	if code != 0 {
		return 0, false, fmt.Errorf("sync status: exit %d: %s", code, firstLines(out, 3))
	}
	var st struct {
		Pending int             `json:"pending"`
		Failure json.RawMessage `json:"failure"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return 0, false, fmt.Errorf("sync status --json: %v: %s", err, firstLines(out, 3))
	}
	return st.Pending, len(st.Failure) > 0, nil
}

// desktopTitles counts the desktop's handoffs by title.
func (c *crashCase) desktopTitles() (map[string]int, error) {
	code, out := c.syncOn("desktop", "list", "--json")
	if code != 0 {
		if strings.Contains(out, "no handoffs yet") {
			return map[string]int{}, nil
		}
		return nil, fmt.Errorf("list: exit %d: %s", code, firstLines(out, 3))
	}
	var recs []struct{ Title string }
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		return nil, fmt.Errorf("list --json: %v", err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Title]++
	}
	return seen, nil
}

// checkSyncDelivered pulls on the desktop, twice, and checks that it
// holds want, each once.
func checkSyncDelivered(c *crashCase, want ...string) []string {
	var bad []string
	for range 2 {
		if code, out := c.syncOn("desktop", "sync", "pull"); code != 0 {
			return append(bad, fmt.Sprintf("sync pull: exit %d: %s", code, firstLines(out, 4)))
		}
		seen, err := c.desktopTitles()
		if err != nil {
			return append(bad, err.Error())
		}
		for _, title := range want {
			if seen[title] != 1 {
				bad = append(bad, fmt.Sprintf("the desktop holds %q %d times", title, seen[title]))
			}
		}
	}
	return bad
}

func checkSyncPush(c *crashCase) []string {
	bad := checkCommon(c)
	pending, _, err := c.syncPendingOn("laptop")
	if err != nil {
		return append(bad, "after the kill: "+err.Error())
	}
	if pending == 0 {
		// Nothing pending must mean the remote has it.
		if p := checkSyncDelivered(c, "Laptop A", "Laptop B"); len(p) > 0 {
			return append(bad, "sync status said nothing is pending, but: "+strings.Join(p, "; "))
		}
	}
	if code, out := c.syncOn("laptop", "sync", "push"); code != 0 {
		// A kill inside the remote's receive-pack (a file:// remote
		// runs it as our child) leaves its ref lock, as it would under
		// git push; git refuses the ref until someone removes it. The
		// push must fail saying so, and leave the send pending, with
		// the reason; once the lock is gone, it goes.
		locks := syncRefLocks(c)
		if len(locks) == 0 || !strings.Contains(out, "cannot lock ref") {
			return append(bad, fmt.Sprintf("sync push after the kill: exit %d: %s", code, firstLines(out, 4)))
		}
		if pending, failing, err := c.syncPendingOn("laptop"); err != nil || pending == 0 || !failing {
			return append(bad, fmt.Sprintf("a push refused by a stale ref lock: %d pending, failing %v, %v", pending, failing, err))
		}
		for _, l := range locks {
			os.Remove(l)
		}
		if code, out := c.syncOn("laptop", "sync", "push"); code != 0 {
			return append(bad, fmt.Sprintf("sync push after removing the stale lock: exit %d: %s", code, firstLines(out, 4)))
		}
	}
	pending, failing, err := c.syncPendingOn("laptop")
	switch {
	case err != nil:
		return append(bad, err.Error())
	case pending != 0 || failing:
		bad = append(bad, fmt.Sprintf("after pushing again: %d pending, failing %v", pending, failing))
	}
	return append(bad, checkSyncDelivered(c, "Laptop A", "Laptop B")...)
}

func checkSyncPull(c *crashCase) []string {
	bad := checkCommon(c)
	if _, _, err := c.syncPendingOn("desktop"); err != nil {
		return append(bad, "after the kill: "+err.Error())
	}
	return append(bad, checkSyncDelivered(c, "Laptop A")...)
}

// rewriteSyncRemotes points the machines' remotes at the copy's sync.git.
func rewriteSyncRemotes(t *testing.T, w *crashWorld, root string) {
	for _, name := range crashSyncHomes {
		path := filepath.Join(root, name, "config", "remotes")
		conf, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		conf = []byte(strings.ReplaceAll(string(conf), "file://"+filepath.Join(w.dir, "case"), "file://"+root))
		if err := os.WriteFile(path, conf, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// syncRefLocks are the ref locks left in the copy's sync.git.
func syncRefLocks(c *crashCase) []string {
	locks, _ := filepath.Glob(filepath.Join(c.root, "sync.git", "refs", "heads", "inbox", "*.lock"))
	return locks
}
