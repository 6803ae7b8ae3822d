package handover

import (
	"github.com/session-handoff/session-handoff/internal/paths"

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
	if err != nil || p != filepath.Join(project, paths.PauseFile) {
		t.Fatalf("project PAUSE file: %q %v", p, err)
	}
	if _, err := os.Stat(cfg); !os.IsNotExist(err) {
		t.Fatalf("a project pause made the configuration directory: %v", err)
	}
	p, err = PauseFile(cfg, project, true)
	if err != nil || p != filepath.Join(cfg, paths.PauseFile) {
		t.Fatalf("global PAUSE file: %q %v", p, err)
	}
	if info, err := os.Stat(cfg); err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Fatalf("global pause did not make the configuration directory 0700: %v %v", info, err)
	}
	// The global file needs no project; the project file needs one.
	if p, err := PauseFile(cfg, "", true); err != nil || p != filepath.Join(cfg, paths.PauseFile) {
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

func TestDryRun(t *testing.T) {
	stateDir, project, cfgDir := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := DefaultConfig()
	r := &Runner{Project: project, StateDir: stateDir, PauseFiles: PauseFiles(cfgDir, project), Config: cfg}
	d, err := r.DryRun("built-in", false)
	if err != nil || d.Resume || d.RunID != "" || d.Paused != nil || d.Config != "built-in" || len(d.Steps) != len(cfg.Steps) {
		t.Fatalf("fresh: %+v %v", d, err)
	}
	for _, st := range d.Steps {
		if st.Action != "run" {
			t.Fatalf("fresh run skips %s", st.Name)
		}
	}

	// A pending run under this configuration, its first step done.
	cp := &Checkpoint{Version: CheckpointVersion, RunID: "r1", State: RunRunning, ConfigHash: cfg.Hash(), StartedAt: time.Now().UTC()}
	for i, st := range cfg.Steps {
		state := StepPending
		if i == 0 {
			state = StepDone
		}
		cp.Steps = append(cp.Steps, StepState{Name: st.Name, Kind: st.Kind, State: state})
	}
	if err := cp.save(stateDir); err != nil {
		t.Fatal(err)
	}
	if _, err := Pause(filepath.Join(project, paths.PauseFile), "review", time.Now()); err != nil {
		t.Fatal(err)
	}
	d, err = r.DryRun("built-in", false)
	if err != nil || !d.Resume || d.RunID != "r1" || d.Steps[0].Action != "skip" || d.Steps[1].Action != "run" {
		t.Fatalf("resume: %+v %v", d, err)
	}
	if d.Paused == nil || d.Paused.Reason != "review" || d.Paused.Path != filepath.Join(project, paths.PauseFile) {
		t.Fatalf("paused: %+v", d.Paused)
	}
	data, _ := json.Marshal(d)
	if strings.Contains(string(data), "review") || !strings.Contains(string(data), `"resume":true`) {
		t.Fatalf("JSON: %s", data)
	}
	// --restart: a new run, every step runs.
	if d, err = r.DryRun("built-in", true); err != nil || d.Resume || d.Steps[0].Action != "run" {
		t.Fatalf("restart: %+v %v", d, err)
	}
}
