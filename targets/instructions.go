package targets

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/instructions"
	"github.com/session-handoff/session-handoff/render"
)

// BlockFile is the profile's instruction file in the project at root, as
// the marked-block editor writes it: the agent's header for a new file,
// its size limit, and kept inside root.
func (p Profile) BlockFile(root string) instructions.BlockFile {
	return instructions.BlockFile{Path: filepath.Join(root, filepath.FromSlash(p.InstructionFile)),
		Header: p.Header, MaxSize: p.MaxFileSize, Root: root}
}

// RenderOptions are the options for rendering a handoff for the profile's
// agent in mode: a zero budget for instructions is the profile's
// InstructionBudget, and sections must be ids of render.SectionIDs.
func (p Profile) RenderOptions(mode render.Mode, b render.Budget, sections []string) (render.Options, error) {
	if err := render.CheckSections(sections); err != nil {
		return render.Options{}, err
	}
	if mode == render.Instructions && b == (render.Budget{}) {
		b = render.Budget{Bytes: p.InstructionBudget}
	}
	return render.Options{Mode: mode, Style: p.Style, Budget: b, Sections: sections}, nil
}

// Written is what WriteInstructions did.
type Written struct {
	Path    string
	Changed bool // false: the file already held this rendering
	Result  *render.Result
	// Budget is the budget the rendering was made to: opts.Budget, or
	// less when the file had less room left under the agent's limit.
	Budget render.Budget
}

// WriteInstructions renders rec into the profile's instruction file in
// the project at root, as a marked block written atomically, sized to the
// room the file has left under the agent's limit.
func (p Profile) WriteInstructions(root string, rec *handoff.Record, opts render.Options) (Written, error) {
	f := p.BlockFile(root)
	w := Written{Path: f.Path, Budget: opts.Budget}
	changed, err := f.Write(func(room int) (string, error) {
		if room >= 0 && (w.Budget.Bytes == 0 || room < w.Budget.Bytes) {
			if room == 0 {
				return "", fmt.Errorf("no room left under %s's %d-byte limit", p.Agent, p.MaxFileSize)
			}
			w.Budget = render.Budget{Bytes: room}
		}
		opts.Budget = w.Budget
		r, err := render.Render(rec, opts)
		if err != nil {
			return "", err
		}
		w.Result = r
		return r.Text, nil
	})
	if err != nil {
		return Written{}, err
	}
	w.Changed = changed
	return w, nil
}

// RemoveInstructions takes the handoff block out of the profile's
// instruction file in the project at root; it reports the file and
// whether it changed.
func (p Profile) RemoveInstructions(root string) (path string, changed bool, err error) {
	f := p.BlockFile(root)
	changed, err = f.Remove()
	return f.Path, changed, err
}

// ErrNeedsForce is wrapped by the error of CheckInstructionSource.
var ErrNeedsForce = errors.New("needs an explicit id and --force")

// CheckInstructionSource says why rec should not go into the instruction
// file of the project at root without being asked for by id and with
// --force: a handoff of another project (by path), or one imported with a
// signature that is not trusted or with none, or from an older format
// (legacy records are unsigned). Instruction files are read
// by the agent at every start, so a wrong or unvouched handoff there
// steers every session. It returns nil when there is no such reason.
func CheckInstructionSource(rec *handoff.Record, root string) error {
	if imp := rec.Source.Import; imp != nil && (imp.Withdrawn || imp.Verification != "verified" && imp.Verification != "pinned") {
		how := "with no verification recorded"
		switch {
		case imp.Withdrawn:
			how = "signed by a key that is no longer trusted"
		case imp.Verification == "untrusted":
			how = "signed by a key that is not trusted"
		case imp.Verification == "unsigned":
			how = "unsigned"
		}
		return fmt.Errorf("handoff %s was imported %s: writing it into an instruction file %w", rec.ID, how, ErrNeedsForce)
	}
	if rec.Source.Kind == handoff.SourceLegacy {
		return fmt.Errorf("handoff %s was imported from an older format, unsigned: writing it into an instruction file %w", rec.ID, ErrNeedsForce)
	}
	if p := rec.Project.Path; p == "" || filepath.Clean(p) != filepath.Clean(root) {
		return fmt.Errorf("handoff %s is of project %s, not %s: writing it into an instruction file %w", rec.ID, handoff.Shorten(handoff.CleanText(p), 200), root, ErrNeedsForce)
	}
	return nil
}
