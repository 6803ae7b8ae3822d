package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/session-handoff/session-handoff/internal/handover"
)

// crashMain is the CLI with a kill switch for tests: when the step and
// phase named by SESSION_HANDOFF_CRASH_AT ("note:started") come, the
// process SIGKILLs itself, as a power cut or an OOM kill would stop it.
func crashMain() {
	at := os.Getenv("SESSION_HANDOFF_CRASH_AT")
	handoverObserve = func(step string, phase handover.Phase) {
		if step+":"+string(phase) == at {
			// os.Process.Kill is SIGKILL on Unix, TerminateProcess on Windows.
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Kill()
			}
		}
	}
	main()
}

// crashConfig has one step of each kind that runs without a network:
// save, memory note/state/compact, handoff-file, and an exec step that
// counts its runs.
const crashConfig = `
[[steps]]
name = "save"
kind = "save"
title = "Nightly handover"

[[steps]]
name = "note"
kind = "memory"
action = "note"

[[steps]]
name = "state"
kind = "memory"
action = "state"

[[steps]]
name = "handoff-file"
kind = "handoff-file"
target = "codex"

[[steps]]
name = "compact"
kind = "memory"
action = "compact"

[[steps]]
name = "count"
kind = "exec"
run = "echo ran >> count.txt"
`

// crashEnv is one simulated machine: a project in git and its own home.
type crashEnv struct {
	t       *testing.T
	dir     string
	project string
	bin     string
	env     []string
}

func newCrashEnv(t *testing.T, bin string) *crashEnv {
	dir := t.TempDir()
	e := &crashEnv{t: t, dir: dir, project: filepath.Join(dir, "app"), bin: bin}
	e.env = append(os.Environ(), "SESSION_HANDOFF_HOME="+filepath.Join(dir, "home"), "HOME="+filepath.Join(dir, "userhome"),
		"XDG_DATA_HOME=", "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com",
		// Fixed dates give every machine the same commit hashes.
		"GIT_AUTHOR_DATE=2026-11-20T10:00:00Z", "GIT_COMMITTER_DATE=2026-11-20T10:00:00Z",
		"CLAUDE_CONFIG_DIR="+filepath.Join(dir, "none"), "CODEX_HOME="+filepath.Join(dir, "none"))
	if err := os.MkdirAll(e.project, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.project, e.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(e.project, "handover.toml"), []byte(crashConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := e.run("", "handover", "allow"); code != 0 {
		t.Fatalf("handover allow: exit %d\n%s", code, out)
	}
	return e
}

// run runs the CLI (the crash variant) and returns its exit code, or -9
// when SIGKILL ended it.
func (e *crashEnv) run(crashAt string, args ...string) (int, string) {
	cmd := exec.Command(filepath.Join(e.bin, "session-handoff-crash"), args...)
	// A fresh slice: run is called from several goroutines at once, and
	// appending to e.env in place would share its spare capacity.
	cmd.Dir, cmd.Env = e.project, append(slices.Clip(e.env), "SESSION_HANDOFF_CRASH_AT="+crashAt)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -int(ws.Signal()), string(out)
		}
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return 0, string(out)
}

// ids and times that differ from run to run, replaced before comparing;
// and the dates left after that (of notes, of the state, in file names),
// which differ when midnight passes between the reference run and a
// killed one.
var (
	idPattern   = regexp.MustCompile(`\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b`)
	timePattern = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?( UTC|Z)?`)
	datePattern = regexp.MustCompile(`\d{4}-\d\d(-\d\d)?`)
)

// snapshot reads the memory directory and the count of exec runs, with
// ids and times normalised.
func (e *crashEnv) snapshot() map[string]string {
	out := map[string]string{}
	root := filepath.Join(e.project, "memory")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return nil
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		text := strings.ReplaceAll(string(data), e.project, "PROJECT")
		text = timePattern.ReplaceAllString(idPattern.ReplaceAllString(text, "ID"), "TIME")
		out[datePattern.ReplaceAllString(rel, "DATE")] = datePattern.ReplaceAllString(text, "DATE")
		return nil
	})
	count, _ := os.ReadFile(filepath.Join(e.project, "count.txt"))
	out["count.txt"] = string(count)
	return out
}

// TestHandoverCrashAtEveryPoint kills a real run with SIGKILL at every
// step boundary and in the middle of every step, then checks that check
// reports it, that run resumes it, that each step's effect happened once,
// and that the result equals an uninterrupted run's.
func TestHandoverCrashAtEveryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns dozens of processes")
	}
	bin := linkSelf(t, t.TempDir(), "session-handoff-crash")
	ref := newCrashEnv(t, bin)
	if code, out := ref.run("", "handover", "run"); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, out)
	}
	want := ref.snapshot()
	if want["count.txt"] != "ran\n" || len(want) < 4 {
		t.Fatalf("the reference run did not do its steps: %v", keys(want))
	}
	steps := []string{"save", "note", "state", "handoff-file", "compact", "count"}
	phases := []handover.Phase{handover.PhaseBefore, handover.PhaseStarted, handover.PhaseWorked, handover.PhaseDone}
	for _, step := range steps {
		for _, phase := range phases {
			at := step + ":" + string(phase)
			t.Run(at, func(t *testing.T) {
				t.Parallel()
				e := newCrashEnv(t, bin)
				if code, out := e.run(at, "handover", "run"); code != -int(syscall.SIGKILL) {
					t.Fatalf("the run was not killed (exit %d):\n%s", code, out)
				}
				if code, out := e.run("", "handover", "check"); code != 1 || !strings.Contains(out, "was interrupted") {
					t.Fatalf("check after the kill: exit %d, want 1:\n%s", code, out)
				}
				if code, out := e.run("", "handover", "run"); code != 0 || !strings.Contains(out, "resuming run") {
					t.Fatalf("resume: exit %d:\n%s", code, out)
				}
				if code, _ := e.run("", "handover", "check"); code != 2 {
					t.Fatalf("check after the resume: exit %d, want 2", code)
				}
				got := e.snapshot()
				// An exec step killed after its command ran but before the
				// checkpoint knew runs again: at least once, as documented.
				if at == "count:worked" {
					if got["count.txt"] != "ran\nran\n" {
						t.Fatalf("count.txt = %q", got["count.txt"])
					}
					got["count.txt"] = want["count.txt"]
				}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s differs from the uninterrupted run's:\n--- got\n%s\n--- want\n%s", k, got[k], v)
					}
				}
				if len(got) != len(want) {
					t.Errorf("files %v, want %v", keys(got), keys(want))
				}
				if code, out := e.run("", "list", "--json"); code != 0 || strings.Count(out, `"id"`) != 1 {
					t.Errorf("the store must hold exactly one handoff:\n%s", out)
				}
				if code, out := e.run("", "store", "check"); code != 0 {
					t.Errorf("store check: exit %d\n%s", code, out)
				}
			})
		}
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
