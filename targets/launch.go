package targets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/render"
)

// Prepared is a handoff made ready to start an agent on: the prompt file
// written, and the command that starts the agent on it.
type Prepared struct {
	File   string // the prompt file, absolute
	Result *render.Result
	Start  Start
}

// PrepareStart renders rec as a prompt for the profile's agent within b,
// writes it to a new private prompt file (WritePromptFile) and builds the
// command that starts the agent on it, extra first. It refuses a profile
// without a start command, or extra arguments it cannot pass, before
// anything is written.
func (p Profile) PrepareStart(rec *handoff.Record, b render.Budget, extra []string) (*Prepared, error) {
	if _, err := p.StartCommand("/", extra); err != nil {
		return nil, err
	}
	res, err := render.Render(rec, render.Options{Mode: render.Prompt, Style: p.Style, Budget: b})
	if err != nil {
		return nil, err
	}
	file, err := WritePromptFile(rec.ID, res.Text)
	if err != nil {
		return nil, err
	}
	start, err := p.StartCommand(file, extra)
	if err != nil {
		return nil, err
	}
	return &Prepared{File: file, Result: res, Start: start}, nil
}

// WritePromptFile writes a rendered handoff to a new private file: mode
// 0600 in a fresh mode-0700 directory under the temporary directory, so
// no other user can read it or put a file in its place. It stays after
// the agent starts (the agent reads it later).
func WritePromptFile(id handoff.ID, text string) (string, error) {
	dir, err := os.MkdirTemp("", "session-handoff-launch-")
	if err != nil {
		return "", fmt.Errorf("create the prompt file's directory: %w", err)
	}
	// MkdirTemp makes it 0700 already; say so in case of an odd umask.
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(filepath.Join(dir, "handoff-"+string(id)+".md"))
	if err != nil {
		return "", err
	}
	if err := safefile.Create(abs, []byte(text), 0o600); err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("prompt file %s exists already", abs)
		}
		return "", fmt.Errorf("write prompt file %s: %w", abs, err)
	}
	return abs, nil
}
