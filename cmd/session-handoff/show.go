package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/handoff"
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
		Long: `Prints a handoff for people, or as the exact stored JSON with --json. The id may be any unique prefix, or "latest".

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
		return a.writeJSON(rec)
	}
	printRecord(a.stdout, rec, time.Now())
	return nil
}

// printRecord writes a record for people. Every value is cleaned of
// control characters, since records may come from other machines.
func printRecord(w io.Writer, r *handoff.Record, now time.Time) {
	fmt.Fprintf(w, "%s\n", clean(r.Title))
	fmt.Fprintf(w, "id:       %s\n", r.ID)
	fmt.Fprintf(w, "created:  %s (%s)\n", r.CreatedAt.Local().Format(time.RFC3339), ago(r.CreatedAt, now))
	fmt.Fprintf(w, "tool:     %s\n", r.Tool)
	fmt.Fprintf(w, "project:  %s (%s)\n", clean(r.Project.Name), clean(r.Project.Path))
	if r.Project.Remote != "" {
		fmt.Fprintf(w, "remote:   %s\n", clean(r.Project.Remote))
	}
	if len(r.Tags) > 0 {
		fmt.Fprintf(w, "tags:     %s\n", clean(strings.Join(r.Tags, ", ")))
	}
	fmt.Fprintf(w, "origin:   %s\n", clean(r.Source.Origin()))
	fmt.Fprintf(w, "source:   %s", r.Source.Kind)
	if r.Source.Machine != "" {
		fmt.Fprintf(w, " on %s", clean(r.Source.Machine))
	}
	if p := r.Source.Import; p != nil {
		fmt.Fprintf(w, ", bundle %s, %s", clean(p.BundleID), p.Verification)
		if p.Signer != "" {
			fmt.Fprintf(w, " by %s", clean(p.Signer))
		}
		if p.Fingerprint != "" {
			fmt.Fprintf(w, " (%s)", p.Fingerprint)
		}
	}
	fmt.Fprintln(w)
	if r.Summary != "" {
		fmt.Fprintf(w, "\nSummary\n%s\n", indent(clean(r.Summary)))
	}
	printList(w, "Decisions", r.Decisions, false)
	printList(w, "Next steps", r.NextSteps, true)
	printList(w, "Open questions", r.OpenQuestions, false)
	if g := r.Git; g != nil {
		fmt.Fprintf(w, "\nGit\n")
		branch := g.Branch
		if branch == "" {
			branch = "(detached HEAD)"
		}
		fmt.Fprintf(w, "  branch %s at %s\n", clean(branch), shortHash(g.Head))
		if g.Upstream != "" {
			fmt.Fprintf(w, "  upstream %s, %d ahead, %d behind\n", clean(g.Upstream), g.Ahead, g.Behind)
		}
		for _, f := range g.Staged {
			fmt.Fprintf(w, "  staged    %s %s\n", f.Status, clean(f.Path))
		}
		for _, f := range g.Unstaged {
			fmt.Fprintf(w, "  unstaged  %s %s\n", f.Status, clean(f.Path))
		}
		for _, p := range g.Untracked {
			fmt.Fprintf(w, "  untracked   %s\n", clean(p))
		}
		if g.Truncated {
			fmt.Fprintf(w, "  (lists cut at their limit)\n")
		}
		for _, c := range g.RecentCommits {
			fmt.Fprintf(w, "  %s %s\n", shortHash(c.Hash), clean(c.Subject))
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(w, "\nFiles touched\n")
		for _, f := range r.Files {
			fmt.Fprintf(w, "  %-8s %s\n", f.Action, clean(f.Path))
		}
	}
	if len(r.Attachments) > 0 {
		fmt.Fprintf(w, "\nAttachments\n")
		for _, at := range r.Attachments {
			fmt.Fprintf(w, "  %s (%s, %d bytes, sha256 %s)\n", clean(at.Name), clean(at.MediaType), at.Size, at.SHA256[:12])
		}
	}
}

func printList(w io.Writer, heading string, items []string, numbered bool) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", heading)
	for i, it := range items {
		if numbered {
			fmt.Fprintf(w, "  %d. %s\n", i+1, clean(it))
		} else {
			fmt.Fprintf(w, "  - %s\n", clean(it))
		}
	}
}

// clean makes record text safe to print on a terminal.
func clean(s string) string { return handoff.CleanText(s) }

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

func shortHash(h string) string {
	if h == "" {
		return "(no commits)"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
