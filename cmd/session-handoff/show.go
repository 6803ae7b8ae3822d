package main

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/render"
)

// showOptions are show's argument and flags.
type showOptions struct {
	ref         string // an id, unique prefix or "latest"
	allProjects bool   // "latest" is the store's newest, not this project's
	json        bool
	attachment  string // the display name of an attachment to write out
	output      string // where the attachment goes: a file, or "-" for stdout
}

func newShowCmd(a *app) *cobra.Command {
	var opts showOptions
	cmd := &cobra.Command{
		Use:   "show ID|PREFIX|latest [--json | --attachment NAME -o FILE|-]",
		Short: "print one stored handoff",
		Long: `Prints a handoff for people, or as the exact stored JSON with --json (a handoff whose signer is no longer trusted says so on standard error: the JSON keeps how it was verified at import). The id may be any unique prefix, or "latest".

With --attachment NAME -o FILE, writes the attachment of that name to FILE (or to stdout with -o -), checking it against its SHA-256 as it is copied: a blob that does not match is an error and leaves no file.`,
		Example: `  session-handoff show latest
  session-handoff show 01JDZ3K4XQ2 --json | jq .next_steps
  session-handoff show latest --attachment transcript.jsonl -o transcript.jsonl`,
		Args:              exactArgs(1, "exactly one id, prefix or 'latest'"),
		ValidArgsFunction: a.completeIDs,
		RunE: func(_ *cobra.Command, args []string) error {
			opts.ref = args[0]
			return runShow(a, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.allProjects, "all-projects", false, allProjectsUsage)
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the record as JSON")
	cmd.Flags().StringVar(&opts.attachment, "attachment", "", "write the attachment with this name (see -o)")
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "with --attachment: the file to write, or - for stdout")
	return cmd
}

func runShow(a *app, opts showOptions) error {
	switch {
	case opts.attachment != "" && opts.output == "":
		return withHint(usagef("--attachment needs -o FILE, or -o - for stdout"), "session-handoff show ID --attachment NAME -o FILE")
	case opts.attachment == "" && opts.output != "":
		return usagef("-o is for --attachment")
	case opts.attachment != "" && opts.json:
		return usagef("--attachment and --json do not go together")
	}
	s, rec, err := a.openRecord(opts.ref, opts.allProjects)
	if err != nil {
		return err
	}
	if opts.attachment != "" {
		at, err := rec.FindAttachment(opts.attachment)
		if err != nil {
			return err
		}
		return a.writeOutput(opts.output, 0o600, func(w io.Writer) error { return s.CopyAttachment(w, at) })
	}
	if opts.json {
		if imp := rec.Source.Import; imp != nil && imp.Withdrawn {
			// The stored JSON says how it was verified at import; that
			// its signer is no longer trusted is decided now.
			fmt.Fprintf(a.stderr, "note: %s: %s (its stored verification is how it read at import)\n", rec.ID, rec.Source.Origin())
		}
		return a.writeJSON(rec)
	}
	a.printRecord(rec)
	a.printCarried(s, rec)
	return nil
}

// printRecord prints rec as render.People lays it out for people, painted
// when colour is on: the title and the section headings bold, the origin
// coloured as list colours it.
func (a *app) printRecord(rec *handoff.Record) {
	var b strings.Builder
	render.People(&b, rec, time.Now())
	st := a.style()
	if !st.On {
		io.WriteString(a.stdout, b.String())
		return
	}
	lines := strings.Split(b.String(), "\n")
	header := true
	for i, l := range lines {
		switch {
		case i == 0:
			lines[i] = st.Bold(l)
		case l == "":
			header = false
		case header && strings.HasPrefix(l, "origin:   "):
			lines[i] = "origin:   " + paintOrigin(st, strings.TrimPrefix(l, "origin:   "))
		case !header && lines[i-1] == "" && !strings.HasPrefix(l, " "):
			lines[i] = st.Bold(l)
		}
	}
	io.WriteString(a.stdout, strings.Join(lines, "\n"))
}
