package handover

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/store"
)

// Phase is a point in a step's life that Runner.Observe is told about.
type Phase string

// The phases of a step, in order. A crash between PhaseStarted and
// PhaseDone leaves the step "running" in the checkpoint: the next run
// does it again, which every built-in kind makes harmless (see Run).
const (
	PhaseBefore  Phase = "before"  // about to start; the checkpoint says pending
	PhaseStarted Phase = "started" // the checkpoint says running; no work done yet
	PhaseWorked  Phase = "worked"  // the work is done; the checkpoint does not know yet
	PhaseDone    Phase = "done"    // the checkpoint says done
)

// ErrConfigChanged is wrapped when a run is pending under a configuration
// that has changed since it began.
var ErrConfigChanged = errors.New("the configuration changed since the pending run began")

// ErrRunLocked is wrapped when another process is running a handover for
// the same project.
var ErrRunLocked = errors.New("another handover run is in progress for this project")

// Runner runs a project's handover.
type Runner struct {
	// Project is the project's root directory.
	Project string
	// StateDir holds the checkpoint and the run lock (see StateDir).
	StateDir string
	// PauseFiles stop the run when any exists (see PauseFiles).
	PauseFiles []string
	// ConfigDir holds the remotes and the address book that send steps
	// use.
	ConfigDir string
	Config    *Config
	Store     *store.Store
	// SigningKey signs exported and sent bundles; an export or send step
	// without one fails rather than send an unsigned bundle.
	SigningKey *crypto.SigningKey
	// Redactor removes secrets from what capture reads.
	Redactor *redact.Redactor
	Producer bundle.Producer
	// Env looks up environment variables (where agents keep sessions).
	Env func(string) string
	// Log receives one line per step, and the output of exec steps.
	Log io.Writer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Observe, when set, is told of every phase of every step. Tests use
	// it to kill the process at chosen instants.
	Observe func(step string, phase Phase)
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format+"\n", args...)
	}
}

func (r *Runner) observe(step string, p Phase) {
	if r.Observe != nil {
		r.Observe(step, p)
	}
}

// Status is what Check finds.
type Status int

// Check results; their values are handover check's exit codes.
const (
	StatusNone         Status = 0 // no run has been started
	StatusResumeNeeded Status = 1 // a run was interrupted (or is running now)
	StatusCompleted    Status = 2 // the last run completed
)

// Check reports whether a run is pending in stateDir.
func Check(stateDir string) (Status, *Checkpoint, error) {
	cp, err := LoadCheckpoint(stateDir)
	switch {
	case err != nil:
		return StatusResumeNeeded, nil, err
	case cp == nil:
		return StatusNone, nil, nil
	case cp.State == RunCompleted:
		return StatusCompleted, cp, nil
	}
	return StatusResumeNeeded, cp, nil
}

// String is the status as 'handover status --json' names it: "none",
// "resume-needed" or "completed".
func (s Status) String() string {
	switch s {
	case StatusNone:
		return "none"
	case StatusResumeNeeded:
		return "resume-needed"
	case StatusCompleted:
		return "completed"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// MarshalText makes a Status its name in JSON.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Report is what 'handover check' and 'handover status' say about a
// project's runs: Check's status and checkpoint, and whether a process
// runs one now.
type Report struct {
	Status     Status      `json:"status"`
	Running    bool        `json:"running"`
	Checkpoint *Checkpoint `json:"checkpoint"`
}

// Interrupted reports whether a run is pending that no process is running:
// one that 'handover run' would resume.
func (r Report) Interrupted() bool { return r.Status == StatusResumeNeeded && !r.Running }

// Inspect reads the run state in stateDir. An unreadable checkpoint is an
// error, with the report's status StatusResumeNeeded: the state is not
// known to be settled.
func Inspect(stateDir string) (Report, error) {
	st, cp, err := Check(stateDir)
	if err != nil {
		return Report{Status: st}, err
	}
	return Report{Status: st, Running: Running(stateDir), Checkpoint: cp}, nil
}

// Running reports whether a process holds the project's run lock now (the
// kernel releases it when that process dies, so a killed run is not
// running).
func Running(stateDir string) bool {
	l, err := safefile.TryLockFile(filepath.Join(stateDir, "run.lock"))
	if err != nil {
		return errors.Is(err, safefile.ErrLocked)
	}
	if l == nil {
		return true // TryLockFile's "another process holds it"
	}
	l.Unlock()
	return false
}

// ownerFile names, in the state directory, the process that took the run
// lock last: "pid N".
const ownerFile = "run.owner"

// LockOwner is the process id of the last run's process, from the owner
// file; ok is false when it is missing or damaged.
func LockOwner(stateDir string) (pid int, ok bool) {
	data, err := safefile.ReadRegular(filepath.Join(stateDir, ownerFile), 64)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(data), "pid ")))
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Run runs the configuration's steps, or resumes the pending run: steps
// already done are skipped and their outputs used. With restart, a
// pending run is abandoned and a new one begins.
//
// A step that fails stops the run with its error; the run stays pending
// and the next Run retries that step. A PAUSE file stops the run before
// any step (returning a *PausedError); it stays resumable.
//
// Every built-in kind can be repeated after a crash without harm: save and
// capture store the record under the id chosen when the run began (a
// second attempt finds it stored), memory notes carry the run and step as
// an idempotency key, the layer-2 state and HANDOFF.md are rewritten
// whole, compaction is itself resumable, export rewrites its file
// atomically, and publish treats "nothing to commit" as success. An exec
// step runs again if the crash came while it ran.
func (r *Runner) Run(ctx context.Context, restart bool) (*Checkpoint, error) {
	if err := CheckPause(r.PauseFiles); err != nil {
		return nil, err
	}
	if err := ensureDir(r.StateDir); err != nil {
		return nil, err
	}
	lock, err := safefile.TryLockFile(filepath.Join(r.StateDir, "run.lock"))
	if lock == nil && (err == nil || errors.Is(err, safefile.ErrLocked)) {
		return nil, ErrRunLocked
	}
	if err != nil {
		return nil, fmt.Errorf("lock the run: %w", err)
	}
	defer lock.Unlock()
	// Who holds the lock, for status to name once the process is gone.
	if err := safefile.WriteFile(filepath.Join(r.StateDir, ownerFile), []byte("pid "+strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("record the run's process: %w", err)
	}

	cp, err := LoadCheckpoint(r.StateDir)
	if err != nil {
		return nil, err
	}
	hash := r.Config.Hash()
	switch {
	case cp != nil && cp.State == RunRunning && !restart:
		if cp.ConfigHash != hash {
			return cp, fmt.Errorf("%w (run %s); finish it with the old configuration or pass --restart", ErrConfigChanged, cp.RunID)
		}
		cp.Resumes++
		r.logf("resuming run %s: %d of %d steps left", cp.RunID, len(cp.Pending()), len(cp.Steps))
	default:
		if cp, err = r.newRun(hash); err != nil {
			return nil, err
		}
	}
	if err := cp.save(r.StateDir); err != nil {
		return cp, err
	}
	for _, st := range r.Config.Steps {
		ss := cp.step(st.Name)
		if ss.State == StepDone {
			continue
		}
		if err := CheckPause(r.PauseFiles); err != nil {
			return cp, err
		}
		if err := ctx.Err(); err != nil {
			return cp, err
		}
		r.observe(st.Name, PhaseBefore)
		started := r.now().UTC()
		ss.State, ss.Attempts, ss.StartedAt, ss.FinishedAt, ss.Error = StepRunning, ss.Attempts+1, &started, nil, ""
		if err := cp.save(r.StateDir); err != nil {
			return cp, err
		}
		r.observe(st.Name, PhaseStarted)
		sctx, cancel := context.WithTimeout(ctx, st.Timeout.Duration)
		out, err := r.runStep(sctx, cp, st)
		cancel()
		r.observe(st.Name, PhaseWorked)
		finished := r.now().UTC()
		ss.FinishedAt = &finished
		if err != nil {
			if errors.Is(sctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("timed out after %s: %w", st.Timeout.Duration, err)
			}
			ss.State, ss.Error = StepFailed, err.Error()
			if serr := cp.save(r.StateDir); serr != nil {
				return cp, serr
			}
			r.logf("step %s (%s): failed: %v", st.Name, st.Kind, err)
			return cp, fmt.Errorf("step %s: %w", st.Name, err)
		}
		ss.State, ss.Outputs = StepDone, out
		if err := cp.save(r.StateDir); err != nil {
			return cp, err
		}
		r.observe(st.Name, PhaseDone)
		r.logf("step %s (%s): done%s", st.Name, st.Kind, describe(out))
	}
	finished := r.now().UTC()
	cp.State, cp.FinishedAt = RunCompleted, &finished
	if err := cp.save(r.StateDir); err != nil {
		return cp, err
	}
	// The run wrote what an interrupted agent-handover run left pending.
	if moved, err := RetireOlderCheckpoint(r.Project); err != nil {
		r.logf("agent-handover's checkpoint: %v", err)
	} else if moved {
		r.logf("agent-handover's interrupted run: its checkpoint is now %s", RetiredCheckpointPath)
	}
	return cp, nil
}

// newRun starts a checkpoint for a fresh run.
func (r *Runner) newRun(hash string) (*Checkpoint, error) {
	now := r.now()
	runID, err := handoff.NewID(now)
	if err != nil {
		return nil, err
	}
	hid, err := handoff.NewID(now)
	if err != nil {
		return nil, err
	}
	cp := &Checkpoint{Version: CheckpointVersion, RunID: string(runID), Project: r.Project, ConfigHash: hash,
		State: RunRunning, StartedAt: now.UTC(), HandoffID: string(hid)}
	for _, st := range r.Config.Steps {
		cp.Steps = append(cp.Steps, StepState{Name: st.Name, Kind: st.Kind, State: StepPending})
	}
	r.logf("run %s: %d steps", cp.RunID, len(cp.Steps))
	return cp, nil
}

// describe prints a step's outputs for the log, in a fixed order.
func describe(out map[string]string) string {
	s := ""
	for _, k := range []string{"handoff_id", "path", "archived", "bundle", "commit"} {
		if v, ok := out[k]; ok {
			s += " " + k + "=" + v
		}
	}
	return s
}

// PlanStep is one line of a dry run.
type PlanStep struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Action is "run", or "skip" for a step a pending run has done.
	Action string `json:"action"`
}

// DryRun is what 'handover run --dry-run' reports: the configuration, the
// run a real run would resume (none: a new run), its steps, and the PAUSE
// file that would stop it.
type DryRun struct {
	Config string       `json:"config"`
	Resume bool         `json:"resume"`
	RunID  string       `json:"-"` // the run resumed, when Resume
	Steps  []PlanStep   `json:"steps"`
	Paused *PausedError `json:"-"` // set when a PAUSE file would stop the run
}

// DryRun is Plan with what a report of it needs: configPath names the
// configuration the runner was made with.
func (r *Runner) DryRun(configPath string, restart bool) (*DryRun, error) {
	steps, cp, err := r.Plan(restart)
	if err != nil {
		return nil, err
	}
	d := &DryRun{Config: configPath, Resume: cp != nil, Steps: steps}
	if cp != nil {
		d.RunID = cp.RunID
	}
	var pe *PausedError
	if errors.As(CheckPause(r.PauseFiles), &pe) {
		d.Paused = pe
	}
	return d, nil
}

// Plan says what Run would do now, without doing or writing anything.
func (r *Runner) Plan(restart bool) ([]PlanStep, *Checkpoint, error) {
	cp, err := LoadCheckpoint(r.StateDir)
	if err != nil {
		return nil, nil, err
	}
	resume := cp != nil && cp.State == RunRunning && !restart
	if resume && cp.ConfigHash != r.Config.Hash() {
		return nil, cp, fmt.Errorf("%w (run %s); pass --restart to start over", ErrConfigChanged, cp.RunID)
	}
	var out []PlanStep
	for _, st := range r.Config.Steps {
		action := "run"
		if resume {
			if ss := cp.step(st.Name); ss != nil && ss.State == StepDone {
				action = "skip"
			}
		}
		out = append(out, PlanStep{Name: st.Name, Kind: st.Kind, Action: action})
	}
	if !resume {
		cp = nil
	}
	return out, cp, nil
}
