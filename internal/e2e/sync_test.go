//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/e2e/fakemodel"
)

// pairedWorlds makes a laptop running Claude Code and a desktop running
// Codex on a clone of the laptop's project at another path, each with its
// keys (the laptop's signing key with passphrase when it is not empty),
// one remote "mine", and paired with the other.
func pairedWorlds(t *testing.T, passphrase string) (laptop, desktop *world) {
	laptop, desktop = newWorld(t, claudeCode), newWorld(t, codex)
	if err := os.RemoveAll(desktop.project); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "clone", "-q", laptop.project, desktop.project).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	inbox := filepath.Join(t.TempDir(), "handoffs.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", inbox).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	text := map[*world]string{}
	for _, w := range []*world{laptop, desktop} {
		if w == laptop && passphrase != "" {
			// What keygen makes on a terminal: a key with a passphrase.
			w.run([]string{"SESSION_HANDOFF_KEY_PASSPHRASE=" + passphrase}, program, "keygen", "--name", "me-"+w.agent.name)
		} else {
			w.sh("keygen", "--no-passphrase", "--name", "me-"+w.agent.name)
		}
		w.sh("remote", "add", "mine", "file://"+inbox)
		text[w] = strings.TrimSpace(w.sh("devices", "add", "--name", map[*world]string{laptop: "laptop", desktop: "desktop"}[w], "--text"))
	}
	desktop.sh("devices", "add", text[laptop])
	laptop.sh("devices", "add", text[desktop])
	return laptop, desktop
}

// syncWorlds is pairedWorlds with sync on for every project and the
// agents' hooks installed, the hooks waiting for the sync they start.
func syncWorlds(t *testing.T, passphrase string) (laptop, desktop *world) {
	laptop, desktop = pairedWorlds(t, passphrase)
	for _, w := range []*world{laptop, desktop} {
		w.env = append(w.env, "SESSION_HANDOFF_SYNC_WAIT=1")
		w.sh("sync", "on", "--global")
		w.sh("integrate", w.agent.name)
		w.agent.trustHooks(w)
	}
	return laptop, desktop
}

// TestSyncAcrossMachines: my machines in step, with a different agent on
// each. A Claude Code session ends on the laptop; the desktop, where the
// project is a clone at another path, runs Codex: its next session's
// briefing, as sent to the model, carries the laptop's handoff, with no
// command typed in between: the very next one, since a session start
// waits for the receive it starts through a remote that answers fast
// (issue 49). The hooks wait for the sync they start
// (SESSION_HANDOFF_SYNC_WAIT=1), so the test does not race it.
func TestSyncAcrossMachines(t *testing.T) {
	laptop, desktop := syncWorlds(t, "")
	laptop.session("add a greeting file",
		fakemodel.Turn{Calls: []fakemodel.Call{laptop.agent.writeFile(laptop, "hello.txt", "hello from the laptop\n")}},
		fakemodel.Turn{Text: "Wrote hello.txt."})
	recs := laptop.records()
	if len(recs) != 1 {
		t.Fatalf("the laptop's store holds %d records, want 1", len(recs))
	}
	id := string(recs[0].ID)

	// The desktop's first session starts the receive, waits for it, and
	// its briefing carries what arrived.
	reqs := mainRequests(desktop.session("what next?", fakemodel.Turn{Text: "Nothing to do."}))
	if len(reqs) == 0 {
		t.Fatal("the desktop's first session sent the model no request")
	}
	if body := string(reqs[0].Body); !strings.Contains(body, id) || !strings.Contains(body, "hello.txt") {
		t.Errorf("the desktop's briefing does not carry the laptop's handoff %s:\n%s", id, clip(body))
	}
	found := false
	for _, r := range desktop.records() {
		if string(r.ID) == id {
			found = r.Source.Import != nil && r.Source.Import.Verification == "verified" && r.Source.Import.Signer == "me@laptop"
		}
	}
	if !found {
		t.Errorf("the desktop holds no copy of %s verified as me@laptop", id)
	}
	if t.Failed() {
		for _, w := range []*world{laptop, desktop} {
			log, _ := os.ReadFile(filepath.Join(w.home, ".local", "share", "session-handoff", "hooks.log"))
			t.Logf("%s's hooks.log:\n%s\nsync status:\n%s\nlist:\n%s", w.agent.name, log, w.sh("sync", "status"), w.sh("list"))
		}
	}
}

// TestSyncWithAPassphraseKey: the laptop's key has a passphrase, which the
// background send after a session cannot ask for (issue 44). The handoff
// stays pending, and the laptop's next session is told in one line that
// its last handoff did not go out; once the user removes the passphrase
// as sync on advised, a push delivers it, and the desktop's next session
// is briefed with it.
func TestSyncWithAPassphraseKey(t *testing.T) {
	laptop, desktop := syncWorlds(t, "correct-horse")
	laptop.session("add a greeting file",
		fakemodel.Turn{Calls: []fakemodel.Call{laptop.agent.writeFile(laptop, "hello.txt", "hello from the laptop\n")}},
		fakemodel.Turn{Text: "Wrote hello.txt."})
	recs := laptop.records()
	if len(recs) != 1 {
		t.Fatalf("the laptop's store holds %d records, want 1", len(recs))
	}
	id := string(recs[0].ID)
	if st := laptop.sh("sync", "status"); !strings.Contains(st, "pending: 1 bundle") || !strings.Contains(st, "last send failed") {
		t.Errorf("the laptop's sync status does not say the send is pending and why:\n%s", st)
	}
	reqs := mainRequests(laptop.session("what next?", fakemodel.Turn{Text: "Noted."}))
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "did not go out") {
		t.Errorf("the laptop's next session is not told its last handoff did not go out")
	}

	laptop.run([]string{"SESSION_HANDOFF_KEY_PASSPHRASE=correct-horse"}, program, "key", "passphrase", "--remove")
	laptop.sh("sync", "push")
	if st := laptop.sh("sync", "status"); strings.Contains(st, "pending") {
		t.Errorf("still pending after the fix:\n%s", st)
	}
	// Both sessions' handoffs went out in one push: the desktop holds the
	// first, and its briefing carries one of the laptop's (which one is
	// the project's latest there is the order the receive stored them in).
	desktop.session("anything new?", fakemodel.Turn{Text: "Nothing yet."})
	reqs = mainRequests(desktop.session("what next?", fakemodel.Turn{Text: "Nothing to do."}))
	carried := false
	for _, r := range laptop.records() {
		carried = carried || len(reqs) > 0 && strings.Contains(string(reqs[0].Body), string(r.ID))
	}
	if !carried {
		t.Errorf("the desktop's briefing carries none of the laptop's handoffs")
	}
	held := false
	for _, r := range desktop.records() {
		held = held || string(r.ID) == id
	}
	if !held {
		t.Errorf("the desktop holds no copy of the handoff %s that was pending", id)
	}
}
