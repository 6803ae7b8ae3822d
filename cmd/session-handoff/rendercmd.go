package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/targets"
)

// renderOptions are render's flags and argument.
type renderOptions struct {
	ref         string // id, prefix or "latest"; "" is latest
	target      string
	as          string
	asSet       bool // --as was given
	budget      string
	sections    []string
	output      string
	outSet      bool // -o was given
	write       bool
	remove      bool
	project     string
	force       bool // --write may put another project's or an untrusted handoff in the file
	shared      bool // --write into the file the team shares, not the personal one
	allProjects bool // "latest" is the store's newest, not this project's
}

func newRenderCmd(a *app) *cobra.Command {
	var opts renderOptions
	cmd := &cobra.Command{
		Use: "render [ID|latest] [--target T] [--as prompt|instructions] [--budget N] [--sections S,…] [-o FILE]\n" +
			"  render [ID|latest] --as instructions --target T --write [--shared] [--project DIR]\n" +
			"  render --target T --remove [--shared] [--project DIR]",
		Short: "turn a handoff into a prompt or instruction-file section for an agent",
		Long: `Writes the handoff as text tuned for the agent that picks the work up
(targets: ` + strings.Join(targets.Names(), ", ") + `; see 'session-handoff targets').
Everything quoted from the handoff is fenced and labelled as data, so a
handoff cannot pose as instructions of ours.

--budget caps the size: a number is tokens (approximated as 4 bytes each),
or give bytes with a unit (20000B, 32KiB). To fit, low-value sections are
shortened and then dropped (commands, files, todos, git detail first);
provenance never is, and decisions and next steps are only shortened, last:
each clipped, then the first few shown and the rest counted. What was left
out is said at the end of the text and on stderr.

--sections picks sections by id: ` + strings.Join(render.SectionIDs, ", ") + `
(provenance is always included).

--write puts the rendering into an instruction file the agent reads at
every start, as a marked block: written atomically, replaced in place the
next time, and nothing outside it is touched. A handoff is personal
state, so it goes into the agent's personal file where it has one
(Claude Code: CLAUDE.local.md; Copilot:
.github/instructions/handoff.instructions.md, applied to every file);
--shared writes the file the team shares instead (CLAUDE.md,
.github/copilot-instructions.md). Codex, Gemini CLI and Cursor have one
project file each (AGENTS.md, or AGENTS.override.md where the project has
one, sized to Codex's project_doc_max_bytes; GEMINI.md;
.cursor/rules/handoff.mdc). Writing into a file tracked by git is said
on stderr first: the handoff would show in everyone's diff.
A handoff of another project, or imported with a signature that is not
trusted (or none), goes in only when named by id and with --force.
--remove takes the block out again (of the personal and the shared file;
with --shared of the shared one only).`,
		Example: `  session-handoff render latest --target claude-code -o /tmp/handoff.md
  claude -p "Continue the work in the handoff on stdin." < /tmp/handoff.md
  session-handoff render --target codex --budget 4000 | codex exec -
  session-handoff render --as instructions --target cursor --write
  session-handoff render --target cursor --remove`,
		Args:              rangeArgs(0, 1, "at most one id"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ref = ""
			if len(args) == 1 {
				opts.ref = args[0]
			}
			opts.asSet, opts.outSet = cmd.Flags().Changed("as"), cmd.Flags().Changed("output")
			return runRender(a, &opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.target, "target", "generic", "the agent: "+strings.Join(targets.Names(), ", "))
	f.StringVar(&opts.as, "as", "prompt", "prompt (a message to start a session) or instructions (a section of an instruction file)")
	f.StringVar(&opts.budget, "budget", "", "size limit: tokens (8000) or bytes (32KiB); default none for prompts, the target's for instructions")
	f.StringSliceVar(&opts.sections, "sections", nil, "render only these sections (comma-separated ids)")
	f.StringVarP(&opts.output, "output", "o", "-", "write to FILE (atomically) instead of stdout")
	f.BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	f.BoolVar(&opts.write, "write", false, "write into the target's instruction file in the project")
	f.BoolVar(&opts.force, "force", false, "with --write and an explicit id: write a handoff of another project, or one that is unsigned, legacy or with an untrusted signer")
	f.BoolVar(&opts.remove, "remove", false, "remove the handoff block from the target's instruction file")
	f.BoolVar(&opts.shared, "shared", false, "with --write or --remove: the instruction file the team shares, not your personal one")
	f.StringVar(&opts.project, "project", ".", "the project whose instruction file --write and --remove change")
	completeTargets(cmd, targets.Names)
	return cmd
}

func runRender(a *app, opts *renderOptions) error {
	p, err := targets.Lookup(opts.target)
	if err != nil {
		return usageError{err}
	}
	if opts.remove {
		if opts.write || opts.ref != "" {
			return usagef("--remove takes no id and no --write")
		}
		return a.removeBlock(p, opts.project, opts.shared)
	}
	if opts.shared && !opts.write {
		return usagef("--shared goes with --write or --remove")
	}
	ropts, err := opts.renderOptions(p)
	if err != nil {
		return err
	}
	ref := opts.ref
	if ref == "" {
		ref = "latest"
	}
	_, rec, err := a.openRecord(ref, opts.allProjects)
	if err != nil {
		return err
	}
	if opts.write {
		return a.writeBlock(p, opts, rec, ropts)
	}
	res, err := render.Render(rec, ropts)
	if err != nil {
		return err
	}
	if err := a.writeOutput(opts.output, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, res.Text)
		return err
	}); err != nil {
		return err
	}
	a.noteLeftOut(res, ropts.Budget)
	return nil
}

// renderOptions checks the flags against each other and makes the
// rendering's options for p: --write without --as means instructions.
func (o *renderOptions) renderOptions(p targets.Profile) (render.Options, error) {
	mode, err := render.ParseMode(o.as)
	if err != nil {
		return render.Options{}, usagef("--as %w", err)
	}
	if o.write && mode == render.Prompt {
		if o.asSet {
			return render.Options{}, usagef("--write puts the handoff in an instruction file: use --as instructions")
		}
		mode = render.Instructions
	}
	if o.write && o.outSet {
		return render.Options{}, usagef("--write and -o are exclusive")
	}
	b, err := render.ParseBudget(o.budget)
	if err != nil {
		return render.Options{}, usageError{err}
	}
	ropts, err := p.RenderOptions(mode, b, o.sections)
	if err != nil {
		return render.Options{}, usagef("--sections: %w", err)
	}
	return ropts, nil
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
	return capture.ProjectRoot(a.ctx, dir)
}

// writeBlock renders rec into the target's instruction file in project.
// A handoff of another project or not vouched for by a trusted signer
// goes in only when named by id and forced.
func (a *app) writeBlock(p targets.Profile, ro *renderOptions, rec *handoff.Record, opts render.Options) error {
	root, err := a.projectRoot(ro.project)
	if err != nil {
		return err
	}
	if err := targets.CheckInstructionSource(rec, root); err != nil {
		explicit := ro.ref != "" && !strings.EqualFold(ro.ref, "latest")
		if !explicit || !ro.force {
			return withHint(err, "name the handoff by id and add --force if it belongs here: session-handoff render "+string(rec.ID)+" --as instructions --write --force")
		}
	}
	p, err = a.projectProfile(p, root)
	if err != nil {
		return err
	}
	personal, isPersonal := p.Personal()
	if isPersonal && !ro.shared {
		p = personal
	}
	a.warnTracked(filepath.Join(root, filepath.FromSlash(p.InstructionFile)))
	w, err := p.WriteInstructions(root, rec, opts)
	if err != nil {
		return err
	}
	if w.Changed {
		fmt.Fprintf(a.stdout, "wrote handoff %s into %s (%d bytes, ~%d tokens)\n", rec.ID, w.Path, len(w.Result.Text), render.Tokens(len(w.Result.Text)))
	} else {
		fmt.Fprintf(a.stdout, "%s already holds this handoff\n", w.Path)
	}
	if isPersonal && !ro.shared {
		a.excludeFromGit(w.Path)
	}
	if w.Result != nil {
		a.noteLeftOut(w.Result, w.Budget)
	}
	return nil
}

// removeBlock takes the handoff block out of the target's personal and
// shared instruction files (only the shared one, with shared).
func (a *app) removeBlock(p targets.Profile, project string, shared bool) error {
	root, err := a.projectRoot(project)
	if err != nil {
		return err
	}
	if p, err = a.projectProfile(p, root); err != nil {
		return err
	}
	profiles := []targets.Profile{p}
	if personal, ok := p.Personal(); ok && !shared {
		profiles = []targets.Profile{personal, p}
	}
	var none []string
	for _, q := range profiles {
		path, changed, err := q.RemoveInstructions(root)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(a.stdout, "removed the handoff block from %s\n", path)
		} else {
			none = append(none, path)
		}
	}
	if len(none) == len(profiles) {
		fmt.Fprintf(a.stdout, "no handoff block in %s\n", strings.Join(none, " or "))
	}
	return nil
}

// projectProfile is p as it applies in the project at root (Codex: the
// file it reads there and its configured limit).
func (a *app) projectProfile(p targets.Profile, root string) (targets.Profile, error) {
	home, _ := paths.Home(a.getenv)
	return p.ForProject(root, home, a.getenv)
}

// warnTracked says on stderr, before the write, that path is tracked by
// git: a handoff is personal state, and there it shows in everyone's
// diff and may be committed.
func (a *app) warnTracked(path string) {
	if tracked, err := git.Tracked(a.ctx, path); err == nil && tracked {
		a.warn("%s is tracked by git: the handoff, which is your own state, will show in the diff and may be committed; remove it with 'render --remove' before you commit", path)
	}
}

// excludeFromGit adds a personal file we wrote into a worktree to git's
// info/exclude (git.Exclude), saying so the first time; a failure is a
// warning, as the file itself was written.
func (a *app) excludeFromGit(path string) {
	x, err := git.Exclude(a.ctx, path)
	if err != nil {
		a.warn("%s may show in git status: %v", filepath.Base(path), err)
		return
	}
	if x != nil && x.Added {
		fmt.Fprintf(a.stdout, "git ignores %s here: added %s to %s\n", strings.TrimPrefix(x.Line, "/"), x.Line, x.File)
	}
}

// completeTargets completes cmd's --target with the names that start
// with what was typed.
func completeTargets(cmd *cobra.Command, names func() []string) {
	cmd.RegisterFlagCompletionFunc("target", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, n := range names() {
			if strings.HasPrefix(n, toComplete) {
				out = append(out, n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}
