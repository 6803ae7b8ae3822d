// Command recap measures what a compaction summary keeps of a session,
// and what the post-compaction recap (render.RenderRecap, which the
// session-start hook gives a session after its compaction) puts back: on
// every transcript in the repository that holds a compaction, the share
// of the file paths, commands and user requests from before the
// compaction, and the open failure, that (a) the agent's summary names
// and (b) the summary and the recap name, the recap made within the
// agent's limit for a session-start hook's context.
//
//	go run ./bench/recap            # a table, then the totals
//	go run ./bench/recap -v         # and what each misses
//
// Issue 45's goal is (b) = 100% of the files, the open failure and the
// requests; TestRecapHoldsWhatTheSummaryDrops holds it to that.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/render"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	verbose := flag.Bool("v", false, "name what each part misses")
	flag.Parse()
	results, err := measureAll(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "recap:", err)
		os.Exit(1)
	}
	fmt.Printf("%-12s %-44s %13s %13s %13s %9s %s\n", "agent", "transcript", "files a/b", "commands a/b", "requests a/b", "failure", "recap/limit")
	var total result
	for _, r := range results {
		fmt.Printf("%-12s %-44s %13s %13s %13s %9s %d/%d\n", r.agent, shorten(r.file, 44), r.files, r.commands, r.requests, r.failure, r.recapBytes, r.limit)
		if *verbose {
			for _, m := range r.missed {
				fmt.Printf("    missed by (b): %s\n", m)
			}
		}
		total.add(r)
	}
	fmt.Printf("\n%d transcripts with a compaction\n", len(results))
	fmt.Printf("files:    summary %s, summary and recap %s\n", total.files.percent("a"), total.files.percent("b"))
	fmt.Printf("commands: summary %s, summary and recap %s\n", total.commands.percent("a"), total.commands.percent("b"))
	fmt.Printf("requests: summary %s, summary and recap %s\n", total.requests.percent("a"), total.requests.percent("b"))
	fmt.Printf("failure:  summary %s, summary and recap %s\n", total.failure.percent("a"), total.failure.percent("b"))
}

// share counts how many of n items the summary (a) and the summary with
// the recap (b) name.
type share struct{ a, b, n int }

func (s share) String() string {
	if s.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d/%d", s.a, s.b, s.n)
}

func (s share) percent(which string) string {
	if s.n == 0 {
		return "-"
	}
	v := s.a
	if which == "b" {
		v = s.b
	}
	return fmt.Sprintf("%.1f%% (%d of %d)", 100*float64(v)/float64(s.n), v, s.n)
}

func (s *share) add(o share) { s.a, s.b, s.n = s.a+o.a, s.b+o.b, s.n+o.n }

// result is one transcript's measure.
type result struct {
	agent, file                        string
	files, commands, requests, failure share
	recapBytes, limit                  int
	missed                             []string
}

func (r *result) add(o result) {
	r.files.add(o.files)
	r.commands.add(o.commands)
	r.requests.add(o.requests)
	r.failure.add(o.failure)
}

// measureAll measures every transcript with a compaction under root's
// fixtures: testdata/transcripts and each agent's testdata.
func measureAll(root string) ([]result, error) {
	dirs := []string{filepath.Join(root, "testdata", "transcripts")}
	own, _ := filepath.Glob(filepath.Join(root, "internal", "agents", "*", "testdata"))
	dirs = append(dirs, own...)
	var out []result
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			r, ok, err := measure(path)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if ok {
				r.file, _ = filepath.Rel(root, path)
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// measure reads the transcript at path; ok is false when it holds no
// compaction, or no line of it holds the start of the summary.
func measure(path string) (result, bool, error) {
	det, err := capture.DetectFile(path)
	if err != nil || det.Agent == "" {
		return result{}, false, nil
	}
	a, _ := agents.Find(string(det.Agent))
	full, err := a.Transcripts.Read(path, "", transcript.Limits{})
	if err != nil || strings.TrimSpace(full.Session.CompactionSummary) == "" {
		return result{}, false, nil
	}
	summary := full.Session.CompactionSummary
	before, ok, err := beforeSummary(path, summary)
	if err != nil || !ok {
		return result{}, false, err
	}
	defer os.RemoveAll(filepath.Dir(before))
	pre, err := a.Transcripts.Read(before, "", transcript.Limits{})
	if err != nil {
		return result{}, false, nil // nothing readable before the summary
	}
	rec, err := handoff.New(time.Now(), string(det.Agent), "recap")
	if err != nil {
		return result{}, false, err
	}
	rec.Session, rec.Files = &pre.Session, pre.Files
	limit := a.HookContextLimit - 512
	if a.HookContextLimit <= 0 {
		limit = 32 << 10
	}
	rec2 := *rec
	res, err := render.RenderRecap(&rec2, render.Options{Budget: render.Budget{Bytes: limit}})
	if err != nil {
		return result{}, false, err
	}
	r := result{agent: a.Name, recapBytes: len(res.Text), limit: limit}
	sum, both := normal(summary), normal(summary+"\n"+res.Text)
	count := func(s *share, what string, items []string, in func(text, item string) bool) {
		for _, it := range items {
			s.n++
			if in(sum, it) {
				s.a++
			}
			if in(both, it) {
				s.b++
			} else {
				r.missed = append(r.missed, what+" "+shorten(it, 80))
			}
		}
	}
	var files, cmds []string
	for _, f := range pre.Files {
		files = append(files, f.Path)
	}
	for _, c := range pre.Session.Commands {
		cmds = append(cmds, c.Command)
	}
	count(&r.files, "file", files, namesFile)
	count(&r.commands, "command", cmds, namesText)
	count(&r.requests, "request", pre.Session.Requests, namesText)
	if f := pre.Session.LastFailure; f != nil {
		count(&r.failure, "failure", []string{f.Command}, namesText)
	}
	return r, true, nil
}

// beforeSummary writes, to a file of its own, the lines of the transcript
// at path before the first line that holds the start of summary (as JSON
// writes it): the session as it stood when it was compacted.
func beforeSummary(path, summary string) (string, bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, err
	}
	probe := strings.TrimSpace(summary)
	if i := strings.IndexAny(probe, "\n\"\\"); i > 0 {
		probe = probe[:i]
	}
	probe = shorten(probe, 60)
	cut := -1
	off := 0
	for line := range strings.Lines(string(data)) {
		if strings.Contains(line, probe) {
			cut = off
			break
		}
		off += len(line)
	}
	if cut <= 0 {
		return "", false, nil
	}
	dir, err := os.MkdirTemp("", "recap")
	if err != nil {
		return "", false, err
	}
	out := filepath.Join(dir, filepath.Base(path))
	return out, true, os.WriteFile(out, data[:cut], 0o600)
}

// normal is text lower-cased, its white space one space each.
func normal(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// namesText says whether text names item: its first 60 characters, as
// normal writes them (requests and commands run long; their start names
// them).
func namesText(text, item string) bool {
	it := normal(item)
	if it == "" {
		return true
	}
	return strings.Contains(text, shorten(it, 60))
}

// namesFile says whether text names a file: its path, or its base name.
func namesFile(text, path string) bool {
	return strings.Contains(text, normal(path)) || strings.Contains(text, normal(filepath.Base(path)))
}

// shorten keeps the first n bytes of s, on a rune boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
