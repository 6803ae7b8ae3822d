package handover

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// CheckpointVersion is the version of the checkpoint format.
const CheckpointVersion = 1

// maxCheckpoint bounds the checkpoint file.
const maxCheckpoint = 1 << 20

// Run states.
const (
	RunRunning   = "running"   // started, not finished: a resume is needed
	RunCompleted = "completed" // every step done
)

// Step states.
const (
	StepPending = "pending"
	StepRunning = "running" // started and not known to have finished
	StepDone    = "done"
	StepFailed  = "failed"
)

// Checkpoint is the record of one run, rewritten atomically after every
// change, so that a run killed at any instant can be found and finished.
type Checkpoint struct {
	Version    int        `json:"version"`
	RunID      string     `json:"run_id"`
	Project    string     `json:"project"`
	ConfigHash string     `json:"config_hash"`
	State      string     `json:"state"`
	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	// HandoffID is chosen when the run starts, so that a save or capture
	// resumed after a crash stores the same record instead of a second.
	HandoffID string      `json:"handoff_id"`
	Steps     []StepState `json:"steps"`
	// Resumes counts how many times the run was picked up again.
	Resumes int `json:"resumes,omitempty"`
}

// StepState is one step's progress.
type StepState struct {
	Name       string     `json:"name"`
	Kind       string     `json:"kind"`
	State      string     `json:"state"`
	Attempts   int        `json:"attempts"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	// Outputs are what the step produced (the handoff id, a file path)
	// for later steps and for people.
	Outputs map[string]string `json:"outputs,omitempty"`
	Error   string            `json:"error,omitempty"`
}

// StateDir is where a project's checkpoint and run lock live, under the
// data directory: one directory per project, named by a hash of its root.
func StateDir(dataDir, projectRoot string) string {
	sum := sha256.Sum256([]byte(projectRoot))
	return filepath.Join(dataDir, "handover", hex.EncodeToString(sum[:8]))
}

// checkpointPath is the checkpoint file in a state directory.
func checkpointPath(stateDir string) string { return filepath.Join(stateDir, "checkpoint.json") }

// LoadCheckpoint reads a project's checkpoint; nil when there is none.
func LoadCheckpoint(stateDir string) (*Checkpoint, error) {
	path := checkpointPath(stateDir)
	data, err := safefile.ReadFile(path, maxCheckpoint)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, safefile.Wrap("read", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cp Checkpoint
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cp.Version != CheckpointVersion {
		return nil, fmt.Errorf("%s: checkpoint version %d, want %d", path, cp.Version, CheckpointVersion)
	}
	if cp.State != RunRunning && cp.State != RunCompleted {
		return nil, fmt.Errorf("%s: unknown run state %s", path, untrusted.Quote(cp.State, 32))
	}
	for _, st := range cp.Steps {
		switch st.State {
		case StepPending, StepRunning, StepDone, StepFailed:
		default:
			return nil, fmt.Errorf("%s: step %s has unknown state %s", path, untrusted.Quote(st.Name, 64), untrusted.Quote(st.State, 32))
		}
	}
	return &cp, nil
}

// save writes the checkpoint atomically.
func (cp *Checkpoint) save(stateDir string) error {
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return safefile.Wrap("create", stateDir, err)
	}
	if err := safefile.WriteFile(checkpointPath(stateDir), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write checkpoint: %w", err)
	}
	return nil
}

// step finds a step's state by name.
func (cp *Checkpoint) step(name string) *StepState {
	for i := range cp.Steps {
		if cp.Steps[i].Name == name {
			return &cp.Steps[i]
		}
	}
	return nil
}

// Pending lists the steps not done yet.
func (cp *Checkpoint) Pending() []string {
	var out []string
	for _, st := range cp.Steps {
		if st.State != StepDone {
			out = append(out, st.Name)
		}
	}
	return out
}
