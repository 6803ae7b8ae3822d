package main

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/memory"
)

// memoryFlags are the flags each memory subcommand takes; any other flag
// given is a usage error rather than silently ignored.
var memoryFlags = map[string][]string{
	"init":    {"dir", "name", "force"},
	"write":   {"dir", "layer", "tag", "date", "handoff", "key", "file"},
	"show":    {"dir", "layer", "tag", "json"},
	"compact": {"dir", "month", "keep-days", "json"},
}

func init() {
	register(&command{
		name:    "memory",
		summary: "plain-Markdown memory: session notes, current state, monthly archives",
		usage: "memory init [DIR] [--name NAME] [--force]\n" +
			"  memory write --layer 1|2|3 [--tag T] [--date YYYY-MM-DD] [--handoff ID] [--key K] (--file F | -)\n" +
			"  memory show [FILE] [--layer N] [--tag T] [--json]\n" +
			"  memory compact [--month YYYY-MM] [--keep-days N] [--json]",
		help: `Keeps an agent's memory as Markdown files any agent can read and git can
track, in the memory directory (--dir; by default memory/ at the top of the
git worktree, or in the current directory outside git):

  SOUL.md, MEMORY.md, HANDOFF.md      who the agent is, what it knows, the latest handoff
  layer1/YYYY-MM/TAG-YYYY-MM-DD.md    session notes; a second note on the same day appends
  layer2/current-state.md             where things stand now; each write replaces it
  layer3/YYYY-MM-TAG-archive.md       old notes, folded by month and tag

init makes the directory, the identity files and a .gitignore for the
writers' lock; existing files are kept unless --force.

write reads the text from --file or from standard input ("-"). --tag is
required for layers 1 and 3 (lower-case letters, digits, '.', '_', '-');
--date defaults to today. With --key, a note whose key the file already
holds is not written again.

show lists the memory files with their header fields (layer, tag, date,
handoff, entries); --layer 2 prints the current state, and FILE (a path in
the memory directory) prints that file.

compact folds notes older than --keep-days days (default 30), or every note
of --month, into the month's archive for their tag, in date order, then
removes them. Every archive is written and synced before any note goes, and
an entry already archived is not added again, so running it again after a
crash is safe.`,
		example: `  session-handoff memory init --name Aria
  echo "Fixed the login redirect; rate limiter next." | session-handoff memory write --layer 1 --tag api -
  session-handoff memory write --layer 2 --file state.md
  session-handoff memory write --layer 3 --tag api --date 2026-01-15 --file summary.md
  session-handoff memory show --tag api
  session-handoff memory show --layer 2
  session-handoff memory show layer1/2026-03/api-2026-03-05.md
  session-handoff memory compact --keep-days 14`,
		setup: func(fs *pflag.FlagSet, a *app) func([]string) error {
			dirFlag := fs.String("dir", "", "the memory directory (default memory/ at the top of the git worktree, or in the current directory)")
			name := fs.String("name", "", "the agent's name, for SOUL.md (init)")
			force := fs.Bool("force", false, "replace existing identity files and .gitignore (init)")
			layer := fs.Int("layer", 0, "the layer: 1 notes, 2 current state, 3 archive (write; show: only this layer)")
			tag := fs.String("tag", "", "the note's tag (write, layers 1 and 3; show: only this tag)")
			date := fs.String("date", "", "the date, YYYY-MM-DD (write; default today)")
			handoffID := fs.String("handoff", "", "the id of the handoff the text came from (write)")
			key := fs.String("key", "", "a key that makes the write happen once (write, layers 1 and 3)")
			file := fs.String("file", "", `read the text from FILE, or "-" for standard input (write)`)
			asJSON := fs.Bool("json", false, "print as JSON (show, compact)")
			month := fs.String("month", "", "fold every note of this month, YYYY-MM (compact)")
			keepDays := fs.Int("keep-days", 30, "fold notes older than this many days (compact)")
			return func(args []string) error {
				if len(args) == 0 {
					return usagef("want 'memory init', 'memory write', 'memory show' or 'memory compact'")
				}
				sub := args[0]
				allowed, ok := memoryFlags[sub]
				if !ok {
					return usagef("unknown memory command %q", handoff.Shorten(sub, 40))
				}
				var stray []string
				fs.Visit(func(f *pflag.Flag) {
					for _, n := range allowed {
						if f.Name == n {
							return
						}
					}
					stray = append(stray, "--"+f.Name)
				})
				if len(stray) > 0 {
					sort.Strings(stray)
					return usagef("%s: not a flag of 'memory %s'", strings.Join(stray, ", "), sub)
				}
				args = args[1:]
				switch sub {
				case "init":
					if len(args) > 1 {
						return usagef("memory init takes at most one directory")
					}
					root := *dirFlag
					if len(args) == 1 {
						if root != "" && root != args[0] {
							return usagef("give the directory as DIR or --dir, not both")
						}
						root = args[0]
					}
					d, err := a.memoryDir(root)
					if err != nil {
						return err
					}
					created, err := memory.Init(d.Root, memory.InitOptions{Name: *name, Force: *force})
					for _, c := range created {
						fmt.Fprintf(a.stdout, "created %s\n", c)
					}
					if err != nil {
						return err
					}
					if len(created) == 0 {
						fmt.Fprintf(a.stdout, "%s is set up already; --force replaces the identity files\n", d.Root)
					}
					return nil

				case "write":
					return a.memoryWrite(*dirFlag, args, memory.Note{Layer: *layer, Tag: *tag, Date: *date, HandoffID: *handoffID, Key: *key}, *file)

				case "show":
					if len(args) > 1 {
						return usagef("memory show takes at most one file")
					}
					if *layer < 0 || *layer > 3 {
						return usagef("--layer %d: want 1, 2 or 3", *layer)
					}
					if *tag != "" {
						if err := memory.ValidTag(*tag); err != nil {
							return usagef("--%s", err)
						}
					}
					d, err := a.memoryDir(*dirFlag)
					if err != nil {
						return err
					}
					if len(args) == 1 || *layer == 2 {
						rel := memory.StateFile
						if len(args) == 1 {
							if fs.Changed("layer") || fs.Changed("tag") {
								return usagef("give a FILE or --layer/--tag, not both")
							}
							rel = filepath.ToSlash(args[0])
						} else if *tag != "" {
							return usagef("layer 2 has no tags")
						}
						return a.memoryShowFile(d, rel, *asJSON)
					}
					return a.memoryList(d, *layer, *tag, *asJSON)

				case "compact":
					if len(args) > 0 {
						return usagef("memory compact takes no arguments")
					}
					if *month != "" && fs.Changed("keep-days") {
						return usagef("--month and --keep-days cannot be used together")
					}
					if *month != "" {
						if err := memory.ValidMonth(*month); err != nil {
							return usagef("--%s", err)
						}
					}
					if *keepDays < 0 {
						return usagef("--keep-days %d: want 0 or more", *keepDays)
					}
					d, err := a.memoryDir(*dirFlag)
					if err != nil {
						return err
					}
					res, err := d.Compact(*month, *keepDays, time.Now())
					if err != nil {
						return err
					}
					if *asJSON {
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
					case *month != "":
						fmt.Fprintf(a.stdout, "no notes of %s to compact\n", *month)
					default:
						fmt.Fprintf(a.stdout, "no notes older than %d days to compact\n", *keepDays)
					}
					return nil
				}
				return nil
			}
		},
	})
}

// memoryDir is the memory directory a command works on: --dir as given,
// or memory/ at the top of the git worktree holding the current directory
// (the current directory itself outside git), shown relative to the
// current directory (which is inside the worktree).
func (a *app) memoryDir(flagValue string) (memory.Dir, error) {
	if flagValue != "" {
		return memory.Dir{Root: flagValue}, nil
	}
	root, err := a.projectRoot(".")
	if err != nil {
		return memory.Dir{}, err
	}
	dir := filepath.Join(root, "memory")
	// git names the worktree with its links resolved: so must the
	// current directory be, for the relative path to be short.
	if wd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			wd = real
		}
		if rel, err := filepath.Rel(wd, dir); err == nil {
			dir = rel
		}
	}
	return memory.Dir{Root: dir}, nil
}

// memoryWrite is 'memory write': n carries the flags, file --file.
func (a *app) memoryWrite(dirFlag string, args []string, n memory.Note, file string) error {
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
			return usagef("--tag is required for layer %d", n.Layer)
		}
		if err := memory.ValidTag(n.Tag); err != nil {
			return usagef("--%s", err)
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
	d, err := a.memoryDir(dirFlag)
	if err != nil {
		return err
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
			fmt.Fprintf(a.stderr, "session-handoff: warning: %s\n", oneLine(f.Problem))
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
