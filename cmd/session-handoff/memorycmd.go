package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

func newMemoryCmd(a *app) *cobra.Command {
	return newParentCmd("memory init|write|show|compact|migrate", "plain-Markdown memory: session notes, current state, monthly archives",
		`Keeps an agent's memory as Markdown files any agent can read and git can
track, in the memory directory (--dir; by default memory/ at the top of the
git worktree, or in the current directory outside git):

  SOUL.md, MEMORY.md, HANDOFF.md      who the agent is, what it knows, the latest handoff
  layer1/YYYY-MM/TAG-YYYY-MM-DD.md    session notes; a second note on the same day appends
  layer2/current-state.md             where things stand now; each write replaces it
  layer3/YYYY-MM-TAG-archive.md       old notes, folded by month and tag

agent-handover's folders are read as they are; 'memory migrate' rewrites
one into the current form, keeping a backup.

Each subcommand takes --dir, and only the flags of its own.`,
		`  session-handoff memory init --name Aria
  echo "Fixed the login redirect; rate limiter next." | session-handoff memory write --layer 1 --tag api -
  session-handoff memory show --layer 2
  session-handoff memory compact --keep-days 14`,
		newMemoryInitCmd(a), newMemoryWriteCmd(a), newMemoryShowCmd(a), newMemoryCompactCmd(a), newMemoryMigrateCmd(a))
}

// dirFlagUsage describes --dir, which every memory subcommand takes.
const dirFlagUsage = "the memory directory (default memory/ at the top of the git worktree, or in the current directory)"

// memoryInitOptions are the argument and flags of 'memory init'.
type memoryInitOptions struct {
	dir   string // --dir, or the DIR argument
	arg   string
	name  string
	force bool
}

func newMemoryInitCmd(a *app) *cobra.Command {
	var opts memoryInitOptions
	cmd := &cobra.Command{
		Use:   "init [DIR] [--name NAME] [--force]",
		Short: "make the memory directory, its identity files and .gitignore",
		Long: `Makes the directory, the identity files and a .gitignore for the
writers' lock; existing files are kept unless --force, and each line says
what was created, overwrote, updated or kept. DIR that is the top of a git
worktree (agent-handoff's 'init .') gets memory/ made in it; identity files
it already holds at its root stay there.`,
		Example: "  session-handoff memory init --name Aria",
		Args:    rangeArgs(0, 1, "at most one directory"),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.arg = args[0]
			}
			return runMemoryInit(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", dirFlagUsage)
	f.StringVar(&opts.name, "name", "", "the agent's name, for SOUL.md")
	f.BoolVar(&opts.force, "force", false, "also bring existing identity files into the current form (an untouched template is replaced; no line of yours is removed)")
	return cmd
}

func runMemoryInit(a *app, opts memoryInitOptions) error {
	root := opts.dir
	if opts.arg != "" {
		if root != "" && root != opts.arg {
			return usagef("give the directory as DIR or --dir, not both")
		}
		root = opts.arg
		if isWorktreeTop(opts.arg) {
			// agent-handoff's 'init .' named the project: its memory
			// directory is memory/ in it, not the root itself.
			root = filepath.Join(opts.arg, memory.DirName)
		}
	}
	d, err := a.memoryDir(root)
	if err != nil {
		return err
	}
	done, err := memory.Init(d.Root, memory.InitOptions{Name: opts.name, Force: opts.force, Beside: a.besideMemory(d.Root)})
	changed := false
	for _, r := range done {
		line := r.Action + " " + r.Path
		switch r.Action {
		case memory.Updated:
			if filepath.Base(r.Path) != ".gitignore" {
				line += " (our header put on top; every line kept)"
			}
			changed = true
		case memory.Created, memory.Overwrote:
			changed = true
		}
		fmt.Fprintln(a.stdout, line)
	}
	if err != nil {
		return err
	}
	if !changed && !opts.force {
		fmt.Fprintf(a.stdout, "%s is set up already; --force replaces the untouched templates\n", d.Root)
	}
	return nil
}

// isWorktreeTop reports whether dir is the top of a git worktree (it holds
// .git).
func isWorktreeTop(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// besideMemory is the project root holding the memory directory root as
// its memory/, whose identity files (agent-handoff's layout) Init keeps;
// "" when root is not such a directory.
func (a *app) besideMemory(root string) string {
	if filepath.Base(filepath.Clean(root)) != memory.DirName {
		return ""
	}
	parent := filepath.Dir(filepath.Clean(root))
	if !isWorktreeTop(parent) {
		return ""
	}
	return parent
}

// memoryWriteOptions are the flags and argument of 'memory write'.
type memoryWriteOptions struct {
	dir    string
	note   memory.Note // Layer, Tag, Date, HandoffID, Key from the flags
	file   string      // --file, or "-" for standard input
	args   []string
	dryRun bool
}

func newMemoryWriteCmd(a *app) *cobra.Command {
	var opts memoryWriteOptions
	cmd := &cobra.Command{
		Use:   "write --layer 1|2|3 [--tag T] [--date YYYY-MM-DD] [--handoff ID] [--key K] (--file F | -)",
		Short: "write a session note, the current state, or an archive entry",
		Long: `Reads the text from --file or from standard input ("-"). --tag names
the note or archive of layers 1 and 3 (default general); a tag like a/b
or "My Tag" is cleaned to a-b or my_tag, with a note, as agent-handover
named its files. --date defaults to today. With --key, a note whose key
the file already holds is not written again. --dry-run says what would be
written and writes nothing.`,
		Example: `  echo "Fixed the login redirect; rate limiter next." | session-handoff memory write --layer 1 --tag api -
  session-handoff memory write --layer 2 --file state.md
  session-handoff memory write --layer 3 --tag api --date 2026-01-15 --file summary.md`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.args = args
			return runMemoryWrite(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", dirFlagUsage)
	f.IntVar(&opts.note.Layer, "layer", 0, "the layer: 1 notes, 2 current state, 3 archive")
	f.StringVar(&opts.note.Tag, "tag", "", "the note's tag (layers 1 and 3; default "+memory.DefaultTag+")")
	f.StringVar(&opts.note.Date, "date", "", "the date, YYYY-MM-DD (default today)")
	f.StringVar(&opts.note.HandoffID, "handoff", "", "the id of the handoff the text came from")
	f.StringVar(&opts.note.Key, "key", "", "a key that makes the write happen once (layers 1 and 3)")
	f.StringVar(&opts.file, "file", "", `read the text from FILE, or "-" for standard input`)
	f.BoolVar(&opts.dryRun, "dry-run", false, "say what would be written, write nothing")
	return cmd
}

// memoryShowOptions are the argument and flags of 'memory show'.
type memoryShowOptions struct {
	dir      string
	file     string // FILE, a path in the memory directory
	layer    int
	tag      string
	filtered bool // --layer or --tag was given
	latest   bool // the newest note
	json     bool
}

func newMemoryShowCmd(a *app) *cobra.Command {
	var opts memoryShowOptions
	cmd := &cobra.Command{
		Use:   "show [FILE] [--layer N] [--tag T] [--latest] [--json]",
		Short: "list the memory files, or print one",
		Long: `Lists the memory files with their header fields (layer, tag, date,
handoff, entries); --layer 2 prints the current state, --latest the newest
session note (of a tag holding --tag, ignoring case, as agent-handover's
read_latest matched it; with --layer 3 the newest archive), and
FILE (a path in the memory directory) prints that file.`,
		Example: `  session-handoff memory show --tag api
  session-handoff memory show --layer 2
  session-handoff memory show layer1/2026-03/api-2026-03-05.md`,
		Args: rangeArgs(0, 1, "at most one file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.file = args[0]
			}
			opts.filtered = cmd.Flags().Changed("layer") || cmd.Flags().Changed("tag")
			return runMemoryShow(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", dirFlagUsage)
	f.IntVar(&opts.layer, "layer", 0, "only this layer (2: print the current state)")
	f.BoolVar(&opts.latest, "latest", false, "print the newest session note (with --layer 3: archive)")
	f.StringVar(&opts.tag, "tag", "", "only this tag")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runMemoryShow(a *app, opts memoryShowOptions) error {
	if opts.layer < 0 || opts.layer > 3 {
		return usagef("--layer %d: want 1, 2 or 3", opts.layer)
	}
	if opts.tag != "" {
		if err := memory.ValidTag(opts.tag); err != nil {
			return usagef("--%s", err)
		}
	}
	d, err := a.memoryDir(opts.dir)
	if err != nil {
		return err
	}
	if opts.latest {
		if opts.file != "" || opts.layer == 2 {
			return usagef("--latest prints the newest note of layer 1 or 3: give no FILE and no --layer 2")
		}
		layer := opts.layer
		if layer == 0 {
			layer = 1
		}
		return a.memoryShowLatest(d, layer, opts.tag, opts.json)
	}
	if opts.file == "" && opts.layer != 2 {
		return a.memoryList(d, opts.layer, opts.tag, opts.json)
	}
	rel := memory.StateFile
	if opts.file != "" {
		if opts.filtered {
			return usagef("give a FILE or --layer/--tag, not both")
		}
		rel = filepath.ToSlash(opts.file)
	} else if opts.tag != "" {
		return usagef("layer 2 has no tags")
	}
	return a.memoryShowFile(d, rel, opts.json)
}

// memoryCompactOptions are the flags of 'memory compact'.
type memoryCompactOptions struct {
	dir         string
	month       string
	keepDays    int
	keepDaysSet bool
	json        bool
}

func newMemoryCompactCmd(a *app) *cobra.Command {
	var opts memoryCompactOptions
	cmd := &cobra.Command{
		Use:   "compact [--month YYYY-MM] [--keep-days N] [--json]",
		Short: "fold old session notes into monthly archives",
		Long: `Folds notes older than --keep-days days (default 30), or every note
of --month, into the month's archive for their tag, in date order, then
removes them. Every archive is written and synced before any note goes, and
an entry already archived is not added again, so running it again after a
crash is safe.`,
		Example: "  session-handoff memory compact --keep-days 14",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.keepDaysSet = cmd.Flags().Changed("keep-days")
			return runMemoryCompact(a, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.dir, "dir", "", dirFlagUsage)
	f.StringVar(&opts.month, "month", "", "fold every note of this month, YYYY-MM")
	f.IntVar(&opts.keepDays, "keep-days", 30, "fold notes older than this many days")
	f.BoolVar(&opts.json, "json", false, "print as JSON")
	return cmd
}

func runMemoryCompact(a *app, opts memoryCompactOptions) error {
	if opts.month != "" && opts.keepDaysSet {
		return usagef("--month and --keep-days cannot be used together")
	}
	if opts.month != "" {
		if err := memory.ValidMonth(opts.month); err != nil {
			return usagef("--%s", err)
		}
	}
	if opts.keepDays < 0 {
		return usagef("--keep-days %d: want 0 or more", opts.keepDays)
	}
	d, err := a.memoryDir(opts.dir)
	if err != nil {
		return err
	}
	res, err := d.Compact(opts.month, opts.keepDays, time.Now())
	if err != nil {
		return err
	}
	if opts.json {
		return a.writeJSON(res)
	}
	for _, p := range res.Archives {
		fmt.Fprintf(a.stdout, "wrote %s\n", p)
	}
	for _, p := range res.Archived {
		fmt.Fprintf(a.stdout, "archived %s\n", p)
	}
	switch {
	case len(res.Archived) > 0:
		fmt.Fprintf(a.stdout, "compacted %d note(s) into %d archive(s)\n", len(res.Archived), len(res.Archives))
	case opts.month != "":
		fmt.Fprintf(a.stdout, "no notes of %s to compact\n", opts.month)
	default:
		fmt.Fprintf(a.stdout, "no notes older than %d days to compact\n", opts.keepDays)
	}
	return nil
}

// memoryDir is the memory directory a command works on: --dir as given,
// or memory.DefaultDir for the project holding the current directory.
func (a *app) memoryDir(flagValue string) (memory.Dir, error) {
	if flagValue != "" {
		return memory.Dir{Root: flagValue}, nil
	}
	root, err := a.projectRoot(".")
	if err != nil {
		return memory.Dir{}, err
	}
	wd, _ := os.Getwd()
	return memory.DefaultDir(root, wd), nil
}

// runMemoryWrite checks the note's flags, reads its text and writes it.
func runMemoryWrite(a *app, opts memoryWriteOptions) error {
	n, file, args := opts.note, opts.file, opts.args
	switch {
	case len(args) > 1 || len(args) == 1 && args[0] != "-":
		return usagef("memory write takes the text from --file F or from standard input as \"-\"")
	case len(args) == 1 && file != "":
		return usagef("give --file or \"-\", not both")
	case len(args) == 1:
		file = "-"
	case file == "":
		return usagef("no text: give --file F, or \"-\" to read standard input")
	}
	switch n.Layer {
	case 1, 3:
		if n.Tag == "" {
			n.Tag = memory.DefaultTag
		}
		tag, changed, err := memory.CleanTag(n.Tag)
		if err != nil {
			return usagef("--%s", err)
		}
		if changed {
			fmt.Fprintf(a.stderr, "note: tag %q written as %q\n", handoff.CleanText(n.Tag), tag)
			n.Tag = tag
		}
		if n.Key != "" {
			if err := memory.ValidKey(n.Key); err != nil {
				return usagef("--%s", err)
			}
		}
	case 2:
		if n.Tag != "" || n.Key != "" {
			return usagef("layer 2 takes no --tag and no --key")
		}
	case 0:
		return usagef("--layer is required: 1 (notes), 2 (current state) or 3 (archive)")
	default:
		return usagef("--layer %d: want 1, 2 or 3", n.Layer)
	}
	if n.Date != "" {
		if err := memory.ValidDate(n.Date); err != nil {
			return usagef("--%s", err)
		}
	}
	if n.HandoffID != "" {
		if _, err := handoff.ParseID(n.HandoffID); err != nil {
			return usagef("--handoff: %s", err)
		}
	}
	text, err := a.readText(file)
	if err != nil {
		return err
	}
	if _, err := memory.CleanText(text); err != nil {
		src := file
		if file == "-" {
			src = "standard input"
		}
		return fmt.Errorf("%s: %w", src, err)
	}
	n.Body = text
	d, err := a.memoryDir(opts.dir)
	if err != nil {
		return err
	}
	if opts.dryRun {
		fmt.Fprintf(a.stdout, "would write %s (layer %d, %d bytes of text); nothing written\n", filepath.Join(d.Root, filepath.FromSlash(memoryWritePath(n))), n.Layer, len(text))
		return nil
	}
	p, written, err := d.Write(n)
	if err != nil {
		return err
	}
	if !written {
		fmt.Fprintf(a.stdout, "%s holds an entry with key %s already; nothing written\n", p, n.Key)
		return nil
	}
	fmt.Fprintf(a.stdout, "wrote %s\n", p)
	return nil
}

// memoryWritePath is the file a write of n goes to, relative to the root.
func memoryWritePath(n memory.Note) string {
	date := n.Date
	if date == "" {
		date = time.Now().Format("2006-01-02")
	}
	switch n.Layer {
	case 1:
		return memory.NotePath(n.Tag, date)
	case 3:
		return memory.ArchivePath(n.Tag, date[:7])
	}
	return memory.StateFile
}

// memoryShowFile prints one memory file (rel in the memory directory)
// without its header line.
func (a *app) memoryShowFile(d memory.Dir, rel string, asJSON bool) error {
	f, doc, err := d.Read(rel)
	if errors.Is(err, iofs.ErrNotExist) {
		hint := "run 'session-handoff memory show' for the files there are"
		if _, serr := os.Stat(d.Root); serr != nil {
			hint = "make it with 'session-handoff memory init'"
		} else if rel == memory.StateFile {
			hint = "write it with 'session-handoff memory write --layer 2 --file F'"
		}
		return withHint(err, hint)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return a.writeJSON(struct {
			memory.File
			Text    string         `json:"text"`
			Entries []memory.Entry `json:"entries,omitempty"`
		}{f, doc.Text, doc.Entries})
	}
	_, err = fmt.Fprint(a.stdout, doc.Body())
	return err
}

// memoryList prints the memory files of a layer (0: all) and tag.
func (a *app) memoryList(d memory.Dir, layer int, tag string, asJSON bool) error {
	files, err := d.List(layer, tag)
	if errors.Is(err, iofs.ErrNotExist) {
		return withHint(err, "make it with 'session-handoff memory init'")
	}
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.Problem != "" {
			fmt.Fprintf(a.stderr, "session-handoff: warning: %s\n", untrusted.OneLine(f.Problem, maxLine))
		}
	}
	if asJSON {
		return a.writeJSON(files)
	}
	if len(files) == 0 {
		fmt.Fprintf(a.stderr, "no memory files in %s match\n", d.Root)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LAYER\tPATH\tTAG\tDATE\tENTRIES\tHANDOFF\tSIZE")
	for _, f := range files {
		entries, id := "-", "-"
		if f.Layer == 1 || f.Layer == 3 {
			entries = fmt.Sprint(f.Entries)
		}
		if f.HandoffID != "" {
			id = handoff.ID(f.HandoffID).Short()
		}
		if f.Problem != "" {
			entries = "damaged"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\n", f.Layer, f.Path, orDash(f.Tag), orDash(f.Date), entries, id, f.Size)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
