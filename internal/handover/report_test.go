package handover

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPauseFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config", "sub")
	project := t.TempDir()

	p, err := PauseFile(cfg, project, false)
	if err != nil || p != filepath.Join(project, PauseFileName) {
		t.Fatalf("project PAUSE file: %q %v", p, err)
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("a project pause made the configuration directory: %v", err)
	}
	p, err = PauseFile(cfg, project, true)
	if err != nil || p != filepath.Join(cfg, PauseFileName) {
		t.Fatalf("global PAUSE file: %q %v", p, err)
	}
	if info, err := os.Stat(cfg); err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Fatalf("global pause did not make the configuration directory 0700: %v %v", info, err)
	}
	// The global file needs no project; the project file needs one.
	if p, err := PauseFile(cfg, "", true); err != nil || p != filepath.Join(cfg, PauseFileName) {
		t.Fatalf("global without a project: %q %v", p, err)
	}
	if _, err := PauseFile(cfg, "", false); err == nil {
		t.Fatal("project PAUSE file without a project root: no error")
	}
	if _, err := PauseFile("", project, true); err == nil {
		t.Fatal("global PAUSE file without a configuration directory: no error")
	}
	// What PauseFile names is what a run checks.
	files := PauseFiles(cfg, project)
	for _, global := range []bool{false, true} {
		p, _ := PauseFile(cfg, project, global)
		found := false
		for _, f := range files {
			found = found || f == p
		}
		if !found {
			t.Fatalf("PauseFile(global=%v) = %s, not among PauseFiles %v", global, p, files)
		}
	}
}

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	rep, err := Inspect(dir)
	if err != nil || rep.Status != StatusNone || rep.Running || rep.Checkpoint != nil || rep.Interrupted() {
		t.Fatalf("no run: %+v %v", rep, err)
	}
	data, _ := json.Marshal(rep)
	if !strings.Contains(string(data), `"status":"none"`) {
		t.Fatalf("JSON: %s", data)
	}

	cp := &Checkpoint{Version: CheckpointVersion, RunID: "r1", State: RunRunning, StartedAt: time.Now().UTC()}
	if err := cp.save(dir); err != nil {
		t.Fatal(err)
	}
	rep, err = Inspect(dir)
	if err != nil || rep.Status != StatusResumeNeeded || rep.Running || !rep.Interrupted() || rep.Checkpoint.RunID != "r1" {
		t.Fatalf("interrupted run: %+v %v", rep, err)
	}
	// Running (another process holding the run lock) is covered by the
	// crash tests of cmd/session-handoff: a lock is per process.
	rep.Running = true
	if rep.Interrupted() {
		t.Fatal("a running run counts as interrupted")
	}

	cp.State = RunCompleted
	if err := cp.save(dir); err != nil {
		t.Fatal(err)
	}
	rep, err = Inspect(dir)
	if err != nil || rep.Status != StatusCompleted || rep.Interrupted() {
		t.Fatalf("completed run: %+v %v", rep, err)
	}
	data, _ = json.Marshal(rep)
	if !strings.Contains(string(data), `"status":"completed"`) {
		t.Fatalf("JSON: %s", data)
	}

	if err := os.WriteFile(checkpointPath(dir), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, err := Inspect(dir); err == nil || rep.Status != StatusResumeNeeded {
		t.Fatalf("damaged checkpoint: %+v %v", rep, err)
	}
	if got := Status(7).String(); got != "status(7)" {
		t.Fatalf("unknown status: %s", got)
	}
}
