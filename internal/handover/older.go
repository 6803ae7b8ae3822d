package handover

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// OlderCheckpointPath is where the earlier agent-handover tool kept its
// checkpoint, relative to the project (its cli.py DEFAULT_CHECKPOINT,
// ../shared/seeds/agent-handover-001.txt).
const OlderCheckpointPath = ".agent-handover/checkpoint.json"

// RetiredCheckpointPath is where a completed 'handover run' moves an
// interrupted agent-handover checkpoint (RetireOlderCheckpoint), kept as it
// was.
const RetiredCheckpointPath = OlderCheckpointPath + ".migrated"

// maxOlderCheckpoint bounds the file read.
const maxOlderCheckpoint = 1 << 20

// OlderCheckpoint is agent-handover's checkpoint as its Checkpoint class
// wrote it: {"status": "none"|"in_progress"|"completed", "steps": {NAME:
// "pending"|"done"}, "started_at", "finished_at"}.
type OlderCheckpoint struct {
	// Path is the file read; Name is how messages name it (the project's
	// OlderCheckpointPath, or the path a user gave).
	Path   string `json:"path"`
	Name   string `json:"-"`
	Status string `json:"status"`
	// Steps are the step names in the file's order; Pending those not
	// done.
	Steps     []string `json:"steps"`
	Pending   []string `json:"pending,omitempty"`
	StartedAt string   `json:"started_at,omitempty"`
}

// ResumeCode is agent-handover's check exit code for it (its
// Checkpoint.resume_code): 1 when a run was interrupted with steps left, 2
// when the last run completed (or was in progress with none left), 0
// otherwise.
func (c *OlderCheckpoint) ResumeCode() int {
	switch {
	case c.Status == "completed":
		return 2
	case c.Status == "in_progress" && len(c.Pending) > 0:
		return 1
	case c.Status == "in_progress":
		return 2
	}
	return 0
}

// Advice says in one line what to do about it.
func (c *OlderCheckpoint) Advice() string {
	if c.ResumeCode() == 1 && c.Name != OlderCheckpointPath {
		return fmt.Sprintf("agent-handover's run was interrupted (steps left: %s): finish it with your agent-handover script, or let 'session-handoff handover run' write the note and state afresh; then remove %s",
			strings.Join(c.Pending, ", "), c.Name)
	}
	if c.ResumeCode() == 1 {
		return fmt.Sprintf("agent-handover's run was interrupted (steps left: %s): 'session-handoff handover run' writes the note and state afresh and retires it (to %s); or finish it with your agent-handover script and remove %s",
			strings.Join(c.Pending, ", "), RetiredCheckpointPath, OlderCheckpointPath)
	}
	state := "shows no run"
	if c.ResumeCode() == 2 {
		state = "last run " + strings.ReplaceAll(c.Status, "_", " ")
	}
	return fmt.Sprintf("agent-handover's checkpoint: %s; session-handoff keeps its own checkpoint, so %s can be removed", state, c.Name)
}

// ReadOlderCheckpoint reads the project's agent-handover checkpoint; nil
// and no error when there is none. Its text is untrusted: names are cleaned
// and shortened, the file bounded.
func ReadOlderCheckpoint(projectRoot string) (*OlderCheckpoint, error) {
	return ReadOlderCheckpointFile(filepath.Join(projectRoot, filepath.FromSlash(OlderCheckpointPath)), OlderCheckpointPath)
}

// ReadOlderCheckpointFile is ReadOlderCheckpoint of the file at p (its
// --checkpoint PATH), named name in messages. A missing file is no
// checkpoint, as agent-handover's Checkpoint took it.
func ReadOlderCheckpointFile(p, name string) (*OlderCheckpoint, error) {
	data, err := safefile.ReadRegular(p, maxOlderCheckpoint)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, safefile.Wrap("read", name, err)
	}
	var raw struct {
		Status    string          `json:"status"`
		Steps     json.RawMessage `json:"steps"`
		StartedAt *string         `json:"started_at"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: not agent-handover's checkpoint: %v", name, strings.TrimPrefix(err.Error(), "json: "))
	}
	c := &OlderCheckpoint{Path: p, Name: name, Status: flat(raw.Status, 40)}
	if raw.StartedAt != nil {
		c.StartedAt = flat(*raw.StartedAt, 40)
	}
	if err := c.readSteps(raw.Steps); err != nil {
		return nil, fmt.Errorf("%s: steps: %w", name, err)
	}
	return c, nil
}

// readSteps reads the steps object in its order (Python keeps insertion
// order, and the order is the run's).
func (c *OlderCheckpoint) readSteps(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not an object")
	}
	for dec.More() {
		if len(c.Steps) == 1000 {
			return errors.New("over 1000 steps")
		}
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var state any
		if err := dec.Decode(&state); err != nil {
			return err
		}
		name := flat(fmt.Sprint(k), 64)
		c.Steps = append(c.Steps, name)
		if state != "done" {
			c.Pending = append(c.Pending, name)
		}
	}
	return nil
}

// flat is untrusted text cleaned, on one line, and shortened to n.
func flat(s string, n int) string {
	return handoff.Shorten(strings.Join(strings.Fields(handoff.CleanText(s)), " "), n)
}

// RetireOlderCheckpoint moves an interrupted agent-handover checkpoint
// (ResumeCode 1) aside to RetiredCheckpointPath, once a session-handoff
// run has written the note and state it left pending: until then
// 'handover check' honours it. It reports whether it moved one; any other
// checkpoint, or none, is left alone.
func RetireOlderCheckpoint(projectRoot string) (bool, error) {
	c, err := ReadOlderCheckpoint(projectRoot)
	if err != nil || c == nil || c.ResumeCode() != 1 {
		return false, err
	}
	to := filepath.Join(projectRoot, filepath.FromSlash(RetiredCheckpointPath))
	if err := os.Rename(c.Path, to); err != nil {
		return false, fmt.Errorf("retire agent-handover's checkpoint: %w", err)
	}
	return true, nil
}
