package agents_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/transcript/expect"
)

// The held-out check: capture run over real transcripts kept outside the
// repository, each with its expectation in a file beside it, scored field
// by field (scripts/heldout.sh; docs/TRANSCRIPTS.md says how to run it).
//
//	go test ./internal/agents -run '^TestHeldOut$' -count=1 -args -heldout DIR
//
// Without -heldout the test checks the scoring itself on a copy of the
// repository's own transcripts and expectations.
var heldOut = flag.String("heldout", "", "score capture on the transcripts with `.expect.json` files under this directory (outside the repository)")

// heldOutSuffix names an expectation file: <transcript>.expect.json.
const heldOutSuffix = ".expect.json"

// maxHeldOutExpect bounds an expectation file.
const maxHeldOutExpect = 1 << 20

// heldOutFile is realExpectation as JSON (the same fields, the same
// meaning: see realExpectation).
type heldOutFile struct {
	Agent       string                 `json:"agent"`
	Error       string                 `json:"error,omitempty"`
	Title       string                 `json:"title"`
	Requests    []string               `json:"requests"`
	Files       map[string]heldOutPath `json:"files"`
	NumCommands int                    `json:"num_commands"`
	Commands    []heldOutCommand       `json:"commands"`
	OpenFailure string                 `json:"open_failure"`
	Todos       []handoff.Todo         `json:"todos"`
	Compaction  string                 `json:"compaction"`
	Plan        string                 `json:"plan"`
	PlanStatus  string                 `json:"plan_status"`
	Cancelled   bool                   `json:"cancelled"`
	FailedEdits map[string]heldOutEdit `json:"failed_edits,omitempty"`
}

type heldOutEdit struct {
	Count int    `json:"count"`
	By    string `json:"by,omitempty"`
}

type heldOutPath struct {
	Action string `json:"action"`
	Edits  int    `json:"edits"`
	By     string `json:"by,omitempty"`
}

type heldOutCommand struct {
	Prefix string `json:"prefix"`
	Exit   *int   `json:"exit"`
	Count  int    `json:"count"`
	Status string `json:"status,omitempty"`
	By     string `json:"by,omitempty"`
}

func (h heldOutFile) expectation(file string) (realExpectation, error) {
	a, ok := agents.Find(h.Agent)
	if !ok || a.Transcripts == nil {
		return realExpectation{}, fmt.Errorf("unknown agent %q", h.Agent)
	}
	agent := a.Name
	e := realExpectation{file: file, agent: agent, err: h.Error, title: h.Title, requests: h.Requests,
		numCommands: h.NumCommands, openFailure: h.OpenFailure, todos: h.Todos, compaction: h.Compaction,
		plan: h.Plan, planStatus: h.PlanStatus, cancelled: h.Cancelled, files: map[string]realFile{}}
	for p, f := range h.Files {
		e.files[p] = realFile{action: f.Action, edits: f.Edits, by: f.By}
	}
	for p, f := range h.FailedEdits {
		if e.failedEdits == nil {
			e.failedEdits = map[string]expect.FailedEdit{}
		}
		e.failedEdits[p] = expect.FailedEdit{Count: f.Count, By: f.By}
	}
	for _, c := range h.Commands {
		e.commands = append(e.commands, realCommand{prefix: c.Prefix, exit: c.Exit, count: c.Count, status: c.Status, by: c.By})
	}
	return e, nil
}

// heldOutJSON is an expectation as a held-out expectation file holds it.
func heldOutJSON(e realExpectation) ([]byte, error) {
	h := heldOutFile{Agent: e.agent, Error: e.err, Title: e.title, Requests: e.requests,
		NumCommands: e.numCommands, OpenFailure: e.openFailure, Todos: e.todos, Compaction: e.compaction,
		Plan: e.plan, PlanStatus: e.planStatus, Cancelled: e.cancelled, Files: map[string]heldOutPath{}}
	for p, f := range e.files {
		h.Files[p] = heldOutPath{Action: f.action, Edits: f.edits, By: f.by}
	}
	for p, f := range e.failedEdits {
		if h.FailedEdits == nil {
			h.FailedEdits = map[string]heldOutEdit{}
		}
		h.FailedEdits[p] = heldOutEdit{Count: f.Count, By: f.By}
	}
	for _, c := range e.commands {
		h.Commands = append(h.Commands, heldOutCommand{Prefix: c.prefix, Exit: c.exit, Count: c.count, Status: c.status, By: c.by})
	}
	return json.MarshalIndent(h, "", "  ")
}

// readHeldOutFile reads one expectation file, strictly: a field this
// check does not know is an error, not a field silently unchecked.
func readHeldOutFile(path string) (heldOutFile, error) {
	var h heldOutFile
	f, err := os.Open(path)
	if err != nil {
		return h, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxHeldOutExpect+1))
	if err != nil {
		return h, err
	}
	if len(data) > maxHeldOutExpect {
		return h, fmt.Errorf("%s: larger than %d bytes", path, maxHeldOutExpect)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// heldOutScore is what the check found: per field, how many transcripts
// passed; and each mismatch, named by transcript.
type heldOutScore struct {
	total    int
	passed   map[string]int
	problems []string
}

// scoreHeldOut reads every transcript under dir that has an expectation
// file and compares its digest with it.
func scoreHeldOut(dir string) (*heldOutScore, error) {
	sc := &heldOutScore{passed: map[string]int{}}
	err := filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(p, heldOutSuffix) {
			return err
		}
		h, err := readHeldOutFile(p)
		if err != nil {
			return err
		}
		file := strings.TrimSuffix(p, heldOutSuffix)
		rel, _ := filepath.Rel(dir, file)
		want, err := h.expectation(rel)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		sc.total++
		failed := map[string]bool{}
		d, err := readAs(want.agent, file, transcript.Limits{})
		switch {
		case want.err != "":
			if err == nil || !strings.Contains(err.Error(), want.err) {
				for _, f := range expect.Fields {
					failed[f] = true
				}
				sc.problems = append(sc.problems, fmt.Sprintf("%s: error %v, want one containing %q", rel, err, want.err))
			}
		case err != nil:
			for _, f := range expect.Fields {
				failed[f] = true
			}
			sc.problems = append(sc.problems, fmt.Sprintf("%s: %v", rel, err))
		default:
			for _, m := range compareReal(d, want) {
				failed[m.Field] = true
				sc.problems = append(sc.problems, fmt.Sprintf("%s: %s: %s", rel, m.Field, m.Msg))
			}
		}
		for _, f := range expect.Fields {
			if !failed[f] {
				sc.passed[f]++
			}
		}
		return nil
	})
	return sc, err
}

// report prints the pass rate of each field, then what failed.
func (sc *heldOutScore) report(w io.Writer) {
	fmt.Fprintf(w, "%-14s %9s %7s\n", "field", "passed", "rate")
	for _, f := range expect.Fields {
		rate := 100.0
		if sc.total > 0 {
			rate = 100 * float64(sc.passed[f]) / float64(sc.total)
		}
		fmt.Fprintf(w, "%-14s %4d/%-4d %6.1f%%\n", f, sc.passed[f], sc.total, rate)
	}
	for _, p := range sc.problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// perfect says every field passed for every transcript.
func (sc *heldOutScore) perfect() bool {
	for _, f := range expect.Fields {
		if sc.passed[f] != sc.total {
			return false
		}
	}
	return true
}

func TestHeldOut(t *testing.T) {
	if *heldOut != "" {
		dir, err := filepath.Abs(*heldOut)
		if err != nil {
			t.Fatal(err)
		}
		if repo, _ := filepath.Abs("../.."); dir == repo || strings.HasPrefix(dir, repo+string(filepath.Separator)) {
			t.Fatalf("%s is inside the repository (%s): a held-out set is kept outside it", dir, repo)
		}
		sc, err := scoreHeldOut(dir)
		if err != nil {
			t.Fatal(err)
		}
		if sc.total == 0 {
			t.Fatalf("no *%s files under %s", heldOutSuffix, dir)
		}
		fmt.Printf("held-out check: %d transcripts under %s\n", sc.total, dir)
		sc.report(os.Stdout)
		if !sc.perfect() {
			t.Fail()
		}
		return
	}
	// The scoring itself: the repository's transcripts with their
	// expectations written out as held-out files score 100%; one title
	// made wrong costs the title field one transcript and no other field.
	dir := t.TempDir()
	var all []realExpectation
	for _, set := range []struct {
		from string
		es   []realExpectation
	}{{realDir, realExpectations}, {samplesDir, sampleExpectations}} {
		for _, e := range set.es {
			data, err := os.ReadFile(filepath.Join(set.from, e.file))
			if err != nil {
				t.Fatal(err)
			}
			e.file = filepath.Join(filepath.Base(set.from), e.file)
			all = append(all, e)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, e.file)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.file), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func(e realExpectation) {
		data, err := heldOutJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.file+heldOutSuffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range all {
		write(e)
	}
	sc, err := scoreHeldOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc.report(&out)
	if sc.total != len(all) || !sc.perfect() {
		t.Fatalf("the repository's own expectations score below 100%%:\n%s", out.String())
	}
	i := slices.IndexFunc(all, func(e realExpectation) bool { return e.err == "" })
	wrong := all[i]
	wrong.title += " (not the title)"
	write(wrong)
	if sc, err = scoreHeldOut(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range expect.Fields {
		if want := sc.total - map[bool]int{true: 1}[f == "title"]; sc.passed[f] != want {
			t.Errorf("%s: %d of %d passed, want %d", f, sc.passed[f], sc.total, want)
		}
	}
	// A field the check does not know is an error, not ignored.
	if err := os.WriteFile(filepath.Join(dir, wrong.file+heldOutSuffix), []byte(`{"agent":"codex","titel":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := scoreHeldOut(dir); err == nil || !strings.Contains(err.Error(), "titel") {
		t.Errorf("unknown field: %v", err)
	}
}
