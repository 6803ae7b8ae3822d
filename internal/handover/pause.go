package handover

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// maxPauseFile bounds what is read of a PAUSE file (its reason).
const maxPauseFile = 4 << 10

// ErrPaused is wrapped by the error a paused run or hook returns.
var ErrPaused = errors.New("paused")

// PausedError says which PAUSE file stopped the work, and why.
type PausedError struct {
	Path   string
	Reason string
}

func (e *PausedError) Error() string {
	msg := "paused by " + e.Path
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	if filepath.Base(filepath.Dir(e.Path)) == ".agent_handover" {
		return msg + " (agent-handover's kill switch, honoured by session-handoff); remove that file to continue"
	}
	return msg + "; remove it with 'session-handoff unpause' to continue"
}

// Unwrap makes errors.Is(err, ErrPaused) true.
func (e *PausedError) Unwrap() error { return ErrPaused }

// PauseFiles are the files that stop automated writes for a project: the
// global one in configDir, the project's own, and the earlier
// agent-handover's global kill switch (OlderPauseFile), honoured as a
// global PAUSE. configDir and projectRoot may be "" when unknown.
func PauseFiles(configDir, projectRoot string) []string {
	var out []string
	if configDir != "" {
		out = append(out, paths.ConfigDir(configDir).Pause())
	}
	if projectRoot != "" {
		out = append(out, filepath.Join(projectRoot, paths.PauseFile))
	}
	if p := OlderPauseFile(nil); p != "" {
		out = append(out, p)
	}
	return out
}

// OlderPauseFile is the PAUSE file of the earlier agent-handover tool,
// ~/.agent_handover/PAUSE (its README's HandoverEngine pause_file,
// ../shared/seeds/agent-handover-001.txt), which stopped every run of the
// user's; "" when there is no home directory. getenv nil is os.Getenv.
func OlderPauseFile(getenv paths.Env) string {
	home, err := paths.Home(getenv)
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".agent_handover", paths.PauseFile)
}

// CheckPause returns a *PausedError for the first PAUSE file that exists,
// or nil. Anything at the path counts, even a file we cannot read: a kill
// switch fails closed.
func CheckPause(files []string) error {
	for _, p := range files {
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		pe := &PausedError{Path: p}
		if err == nil && info.Mode().IsRegular() {
			if data, err := safefile.ReadFile(p, maxPauseFile); err == nil {
				pe.Reason = reasonOf(data)
			}
		}
		return pe
	}
	return nil
}

// reasonOf takes the reason line from a PAUSE file we wrote ("reason:
// …"), or the first line of one written by hand.
func reasonOf(data []byte) string {
	for _, l := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if r, ok := strings.CutPrefix(s, "reason:"); ok {
			s = strings.TrimSpace(r)
		}
		if s != "" && !strings.HasPrefix(s, "paused") {
			return handoff.Shorten(strings.Map(func(r rune) rune {
				if r < 0x20 || r == 0x7f {
					return -1
				}
				return r
			}, s), 200)
		}
	}
	return ""
}

// Pause creates the PAUSE file at path, with the reason and time, and
// returns false when it already existed (it is left as it is).
func Pause(path, reason string, now time.Time) (bool, error) {
	if strings.ContainsAny(reason, "\n\r") {
		return false, errors.New("the reason must be one line")
	}
	body := fmt.Sprintf("paused at %s by session-handoff pause\n", now.UTC().Format(time.RFC3339))
	if reason != "" {
		body += "reason: " + reason + "\n"
	}
	err := safefile.Create(path, []byte(body), 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, safefile.Wrap("create", path, err)
	}
	return true, nil
}

// Unpause removes the PAUSE file at path; false when there was none.
func Unpause(path string) (bool, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := safefile.Remove(path); err != nil {
		return false, safefile.Wrap("remove", path, err)
	}
	return true, nil
}

// PauseFile is the PAUSE file that pause and unpause work on: with global,
// the one in configDir, which is made if missing so the file can be
// written there; otherwise the one in projectRoot (the root of the
// project's worktree).
func PauseFile(configDir, projectRoot string, global bool) (string, error) {
	if !global {
		if projectRoot == "" {
			return "", errors.New("no project root for the PAUSE file")
		}
		return filepath.Join(projectRoot, paths.PauseFile), nil
	}
	if configDir == "" {
		return "", errors.New("no configuration directory for the global PAUSE file")
	}
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		return "", fmt.Errorf("configuration directory: %w", err)
	}
	return paths.ConfigDir(configDir).Pause(), nil
}
