package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/instructions"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

func init() {
	register(&command{
		name:    "render",
		summary: "turn a handoff into a prompt or instruction-file section for an agent",
		usage: "render [ID|latest] [--target T] [--as prompt|instructions] [--budget N] [--sections S,…] [-o FILE]\n" +
			"  render [ID|latest] --as instructions --target T --write [--project DIR]\n" +
			"  render --target T --remove [--project DIR]",
		help: `Writes the handoff as text tuned for the agent that picks the work up
(targets: ` + strings.Join(targets.Names(), ", ") + `; see 'session-handoff targets').
Everything quoted from the handoff is fenced and labelled as data, so a
handoff cannot pose as instructions of ours.

--budget caps the size: a number is tokens (approximated as 4 bytes each),
or give bytes with a unit (20000B, 32KiB). To fit, low-value sections are
shortened and then dropped (commands, files, todos, git detail first);
provenance, decisions and next steps never are. What was left out is said at
the end of the text and on stderr.

--sections picks sections by id: ` + strings.Join(render.SectionIDs, ", ") + `
(provenance is always included).

--write puts the rendering into the target's instruction file in the
project (CLAUDE.md, AGENTS.md, GEMINI.md, .cursor/rules/handoff.mdc,
.github/copilot-instructions.md) as a marked block: written atomically,
replaced in place the next time, and nothing outside it is touched.
--remove takes the block out again.`,
		example: `  session-handoff render latest --target claude-code -o /tmp/handoff.md
  claude -p "Continue the work in the handoff on stdin." < /tmp/handoff.md
  session-handoff render --target codex --budget 4000 | codex exec -
  session-handoff render --as instructions --target cursor --write
  session-handoff render --target cursor --remove`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			storeDir := storeFlag(fs, a)
			target := fs.String("target", "generic", "the agent: "+strings.Join(targets.Names(), ", "))
			as := fs.String("as", "prompt", "prompt (a message to start a session) or instructions (a section of an instruction file)")
			budget := fs.String("budget", "", "size limit: tokens (8000) or bytes (32KiB); default none for prompts, the target's for instructions")
			sections := fs.StringSlice("sections", nil, "render only these sections (comma-separated ids)")
			output := fs.StringP("output", "o", "-", "write to FILE (atomically) instead of stdout")
			write := fs.Bool("write", false, "write into the target's instruction file in the project")
			remove := fs.Bool("remove", false, "remove the handoff block from the target's instruction file")
			project := fs.String("project", ".", "the project whose instruction file --write and --remove change")
			return func(args []string) error {
				if len(args) > 1 {
					return usagef("takes at most one id")
				}
				p, err := targets.Lookup(*target)
				if err != nil {
					return usageError{err}
				}
				if *remove {
					if *write || len(args) > 0 {
						return usagef("--remove takes no id and no --write")
					}
					return a.removeBlock(p, *project)
				}
				mode := render.Prompt
				switch *as {
				case "prompt":
					if *write {
						if fs.Changed("as") {
							return usagef("--write puts the handoff in an instruction file: use --as instructions")
						}
						mode = render.Instructions
					}
				case "instructions":
					mode = render.Instructions
				default:
					return usagef("--as %q: want prompt or instructions", handoff.Shorten(*as, 20))
				}
				if *write && fs.Changed("output") {
					return usagef("--write and -o are exclusive")
				}
				b, err := render.ParseBudget(*budget)
				if err != nil {
					return usageError{err}
				}
				for _, sec := range *sections {
					if !slices.Contains(render.SectionIDs, sec) {
						return usagef("--sections: unknown section %q: want some of %s", handoff.Shorten(sec, 32), strings.Join(render.SectionIDs, ", "))
					}
				}
				if mode == render.Instructions && !fs.Changed("budget") {
					b = render.Budget{Bytes: p.InstructionBudget}
				}
				ref := "latest"
				if len(args) == 1 {
					ref = args[0]
				}
				rec, err := a.loadRecord(*storeDir, ref)
				if err != nil {
					return err
				}
				opts := render.Options{Mode: mode, Style: p.Style, Budget: b, Sections: *sections}
				if *write {
					return a.writeBlock(p, *project, rec, opts)
				}
				res, err := render.Render(rec, opts)
				if err != nil {
					return err
				}
				if err := a.writeOutput(*output, 0o644, func(w io.Writer) error {
					_, err := io.WriteString(w, res.Text)
					return err
				}); err != nil {
					return err
				}
				a.noteLeftOut(res, opts.Budget)
				return nil
			}
		},
	})
}

// loadRecord opens the store and reads the record ref names.
func (a *app) loadRecord(storeDir, ref string) (*handoff.Record, error) {
	s, err := a.openStore()
	if err != nil {
		return nil, err
	}
	id, err := resolve(s, ref)
	if err != nil {
		return nil, err
	}
	return s.Get(handoff.ID(id))
}

// noteLeftOut says on stderr what the budget made the renderer leave out.
func (a *app) noteLeftOut(res *render.Result, b render.Budget) {
	if len(res.Omitted)+len(res.Shortened) == 0 {
		return
	}
	msg := "to fit " + b.String() + ":"
	if len(res.Omitted) > 0 {
		msg += " left out " + strings.Join(res.Omitted, ", ") + ";"
	}
	if len(res.Shortened) > 0 {
		msg += " shortened " + strings.Join(res.Shortened, ", ")
	}
	fmt.Fprintf(a.stderr, "session-handoff: note: %s\n", strings.TrimSuffix(msg, ";"))
}

// projectRoot is the top of the git worktree holding dir, or dir itself
// when it is not in one.
func (a *app) projectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("project: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("project %s is not a directory", abs)
	}
	root, err := capture.Root(a.ctx, abs)
	if errors.Is(err, capture.ErrNotGitRepo) || errors.Is(err, capture.ErrNoGit) {
		return abs, nil
	}
	return root, err
}

// blockFile is the target's instruction file in the project.
func (a *app) blockFile(p targets.Profile, project string) (instructions.BlockFile, error) {
	root, err := a.projectRoot(project)
	if err != nil {
		return instructions.BlockFile{}, err
	}
	return instructions.BlockFile{Path: filepath.Join(root, filepath.FromSlash(p.InstructionFile)), Header: p.Header, MaxSize: p.MaxFileSize, Root: root}, nil
}

// writeBlock renders rec into the target's instruction file, sized to the
// room the file has left under the agent's limit.
func (a *app) writeBlock(p targets.Profile, project string, rec *handoff.Record, opts render.Options) error {
	f, err := a.blockFile(p, project)
	if err != nil {
		return err
	}
	var res *render.Result
	used := opts.Budget
	changed, err := f.Write(func(room int) (string, error) {
		if room >= 0 && (used.Bytes == 0 || room < used.Bytes) {
			if room == 0 {
				return "", fmt.Errorf("no room left under %s's %d-byte limit", p.Agent, p.MaxFileSize)
			}
			used = render.Budget{Bytes: room}
		}
		opts.Budget = used
		r, err := render.Render(rec, opts)
		if err != nil {
			return "", err
		}
		res = r
		return r.Text, nil
	})
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(a.stdout, "wrote handoff %s into %s (%d bytes, ~%d tokens)\n", rec.ID, f.Path, len(res.Text), render.Tokens(len(res.Text)))
	} else {
		fmt.Fprintf(a.stdout, "%s already holds this handoff\n", f.Path)
	}
	a.noteLeftOut(res, used)
	return nil
}

// removeBlock takes the handoff block out of the target's instruction file.
func (a *app) removeBlock(p targets.Profile, project string) error {
	f, err := a.blockFile(p, project)
	if err != nil {
		return err
	}
	changed, err := f.Remove()
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(a.stdout, "removed the handoff block from %s\n", f.Path)
	} else {
		fmt.Fprintf(a.stdout, "no handoff block in %s\n", f.Path)
	}
	return nil
}
