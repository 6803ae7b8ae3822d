package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/schema"
)

func TestOpenCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Dir() != dir {
		t.Errorf("Dir() = %q, want %q", s.Dir(), dir)
	}
	if es := mustList(t, s, Filter{}); len(es) != 0 {
		t.Errorf("empty store lists %d", len(es))
	}
	if _, err := s.Resolve("latest"); !errors.Is(err, ErrEmpty) {
		t.Errorf("latest on empty store: %v, want ErrEmpty", err)
	}
	if _, err := s.Resolve("01J"); !errors.Is(err, ErrNotFound) {
		t.Errorf("prefix on empty store: %v, want ErrNotFound", err)
	}
	id, _ := handoff.NewID(baseTime)
	if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("get on empty store: %v", err)
	}
	if err := s.Remove(id); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove on empty store: %v", err)
	}
	rep, err := s.Check(true)
	if err != nil || rep.Records != 0 {
		t.Errorf("check empty: %+v %v", rep, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("reading created the store directory: %v", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	testsys.Check(t, os.WriteFile(file, nil, 0o600))
	if _, err := Open(file); err == nil {
		t.Error("Open of a regular file succeeded")
	}
	if _, err := Open(""); err == nil {
		t.Error("Open of \"\" succeeded")
	}
}

func fullRecord(t *testing.T) *handoff.Record {
	r := mkRecord(t, baseTime, "claude-code", "session-handoff", "Store: index and crash safety")
	exit := 1
	started := baseTime.Add(-time.Hour)
	r.Summary = "Wrote the store.\tWith a tab, a \\ backslash and a\nnewline."
	r.Decisions = []string{"append-only index"}
	r.NextSteps = []string{"benchmarks", "fuzz"}
	r.OpenQuestions = []string{"compaction policy?"}
	r.Tags = []string{"store", "go:1.26", "π"}
	r.Git = &handoff.GitState{Root: "/home/dev/src/session-handoff", Branch: "feat/store", Head: strings.Repeat("a", 40), Ahead: 2,
		Staged: []handoff.FileStatus{{Path: "store/store.go", Status: "A"}}}
	r.Files = []handoff.FileTouched{{Path: "store/index.go", Action: "created", Edits: 3}}
	r.Session = &handoff.Session{Agent: "claude-code", StartedAt: &started, Commands: []handoff.Command{{Command: "go test ./...", ExitCode: &exit}}}
	r.Attachments = []handoff.Attachment{{Name: "diff", MediaType: "text/x-diff", Size: 3, SHA256: strings.Repeat("b", 64)}}
	return r
}

func TestSaveGetRoundTrip(t *testing.T) {
	s := newTestStore(t)
	r := fullRecord(t)
	mustSave(t, s, r)
	got, err := s.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(got)
		t.Fatalf("round trip differs:\nsaved %s\ngot   %s", a, b)
	}
	// Lower-case ids work too.
	if _, err := s.Get(handoff.ID(strings.ToLower(string(r.ID)))); err != nil {
		t.Errorf("get by lower-case id: %v", err)
	}
	path := filepath.Join(s.Dir(), "records", string(r.ID)+".json")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v, want 0600", st.Mode().Perm())
	}
	for _, d := range []string{s.Dir(), filepath.Join(s.Dir(), "records")} {
		if st, _ := os.Stat(d); st.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, st.Mode().Perm())
		}
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte("{\n  \"schema_version\": 1,")) {
		t.Errorf("record file is not indented JSON: %.40q", data)
	}
	if err := schema.Validate(schema.Handoff, data); err != nil {
		t.Errorf("stored file does not validate: %v", err)
	}

	es := mustList(t, s, Filter{})
	want := Entry{ID: r.ID, CreatedAt: r.CreatedAt, Tool: "claude-code", ProjectName: "session-handoff", ProjectPath: "/home/dev/src/session-handoff",
		Title: r.Title, Branch: "feat/store", Source: "hand", Tags: []string{"store", "go:1.26", "π"}}
	if len(es) != 1 || !reflect.DeepEqual(es[0], want) {
		t.Fatalf("list = %+v\nwant %+v", es, want)
	}
	j, _ := json.Marshal(es[0])
	for _, k := range []string{`"id"`, `"created_at"`, `"tool"`, `"project_name"`, `"project_path"`, `"title"`, `"branch"`, `"source"`, `"tags"`} {
		if !bytes.Contains(j, []byte(k)) {
			t.Errorf("entry JSON lacks %s: %s", k, j)
		}
	}
	assertConsistent(t, s)
}

func TestSaveExistsAndPutReplace(t *testing.T) {
	s := newTestStore(t)
	r := mkRecord(t, baseTime, "codex", "p", "first")
	mustSave(t, s, r)
	if err := s.Save(r); !errors.Is(err, ErrExists) {
		t.Fatalf("second save: %v, want ErrExists", err)
	}
	if _, err := s.Put(r, false); !errors.Is(err, ErrExists) {
		t.Fatalf("put without replace: %v, want ErrExists", err)
	}
	r2 := *r
	r2.Title = "second"
	replaced, err := s.Put(&r2, true)
	if err != nil || !replaced {
		t.Fatalf("put replace = %v, %v", replaced, err)
	}
	got, err := s.Get(r.ID)
	if err != nil || got.Title != "second" {
		t.Fatalf("after replace: %v %v", got, err)
	}
	es := mustList(t, s, Filter{})
	if len(es) != 1 || es[0].Title != "second" {
		t.Fatalf("list after replace: %+v", es)
	}
	r3 := mkRecord(t, baseTime.Add(time.Second), "codex", "p", "third")
	if replaced, err := s.Put(r3, true); err != nil || replaced {
		t.Fatalf("put new with replace = %v, %v", replaced, err)
	}
	assertConsistent(t, s)
}

func TestSaveRejectsInvalidRecords(t *testing.T) {
	s := newTestStore(t)
	for name, mod := range map[string]func(*handoff.Record){
		"bad tool":       func(r *handoff.Record) { r.Tool = "Bad Tool" },
		"empty title":    func(r *handoff.Record) { r.Title = " " },
		"long title":     func(r *handoff.Record) { r.Title = strings.Repeat("x", 201) },
		"bad id":         func(r *handoff.Record) { r.ID = "nope" },
		"newer version":  func(r *handoff.Record) { r.SchemaVersion = 2 },
		"bad file entry": func(r *handoff.Record) { r.Files = []handoff.FileTouched{{Path: "x", Action: "smashed"}} },
	} {
		r := mkRecord(t, baseTime, "codex", "p", "t")
		mod(r)
		if err := s.Save(r); err == nil {
			t.Errorf("%s: saved", name)
		}
	}
	if err := s.Save(nil); err == nil {
		t.Error("saved nil")
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Error("a rejected save created the store")
	}
}

func TestResolve(t *testing.T) {
	s := newTestStore(t)
	// Three ids in the same millisecond share their first ten characters;
	// one a day later does not.
	var same []*handoff.Record
	for i := 0; i < 3; i++ {
		r := mkRecord(t, baseTime, "codex", "p", "same ms")
		mustSave(t, s, r)
		same = append(same, r)
	}
	later := mkRecord(t, baseTime.Add(24*time.Hour), "codex", "p", "later")
	mustSave(t, s, later)

	for _, ref := range []string{string(later.ID), strings.ToLower(string(later.ID)), string(later.ID[:12]), strings.ToLower(string(later.ID[:12])), "latest", "LATEST"} {
		id, err := s.Resolve(ref)
		if err != nil || id != later.ID {
			t.Errorf("Resolve(%q) = %s, %v; want %s", ref, id, err, later.ID)
		}
	}
	id, err := s.Resolve(string(same[1].ID[:20]))
	if err != nil && !isAmbiguous(err) {
		t.Fatal(err)
	}
	if err == nil && id != same[1].ID {
		t.Errorf("long prefix resolved to %s", id)
	}

	prefix := string(same[0].ID[:10])
	_, err = s.Resolve(prefix)
	var amb *AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("Resolve(%q) = %v, want *AmbiguousError", prefix, err)
	}
	if amb.Prefix != prefix || len(amb.Candidates) != 3 {
		t.Fatalf("ambiguity = %+v", amb)
	}
	for i, c := range amb.Candidates { // newest first
		if want := same[2-i].ID; c.ID != want {
			t.Errorf("candidate %d = %s, want %s", i, c.ID, want)
		}
	}
	if !strings.Contains(err.Error(), prefix) || !strings.Contains(err.Error(), "3") {
		t.Errorf("ambiguity message %q", err)
	}

	other, _ := handoff.NewID(baseTime.Add(-24 * time.Hour))
	for _, ref := range []string{string(other), string(other[:12])} {
		if _, err := s.Resolve(ref); !errors.Is(err, ErrNotFound) {
			t.Errorf("Resolve(%q) = %v, want ErrNotFound", ref, err)
		}
	}
	for _, ref := range []string{"", "01J!", "u", strings.Repeat("0", 27), "latest!"} {
		if _, err := s.Resolve(ref); !errors.Is(err, handoff.ErrInvalidID) {
			t.Errorf("Resolve(%q) = %v, want ErrInvalidID", ref, err)
		}
	}
}

func isAmbiguous(err error) bool {
	var amb *AmbiguousError
	return errors.As(err, &amb)
}

func TestListFilters(t *testing.T) {
	s := newTestStore(t)
	type spec struct {
		tool, project, title string
		tags                 []string
		summary              string
		path                 string
	}
	specs := []spec{
		{"claude-code", "alpha", "Fix the parser", []string{"bug"}, "", ""},
		{"codex", "beta", "Add caching", nil, "Caching layer with LRU eviction", ""},
		{"gemini", "alpha", "Write docs", []string{"Docs", "release"}, "", "/work/alpha/sub"},
		{"codex", "gamma", "Refactor", nil, strings.Repeat("x", 300) + "needle-after-prefix", ""},
		{"Claude-Code", "alphabet", "Ünïcode Title", nil, "", "/work/alphabet"},
	}
	var recs []*handoff.Record
	for i, sp := range specs {
		r := mkRecord(t, baseTime.Add(time.Duration(i)*time.Hour), sp.tool, sp.project, sp.title)
		r.Tags = sp.tags
		r.Summary = sp.summary
		if sp.path != "" {
			r.Project.Path = sp.path
		}
		mustSave(t, s, r)
		recs = append(recs, r)
	}
	id := func(i int) string { return string(recs[i].ID) }
	cases := []struct {
		name string
		f    Filter
		want []int // indexes into recs, newest first
	}{
		{"all", Filter{}, []int{4, 3, 2, 1, 0}},
		{"tool", Filter{Tool: "codex"}, []int{3, 1}},
		{"tool case", Filter{Tool: "CLAUDE-CODE"}, []int{4, 0}},
		{"project name", Filter{Project: "alpha"}, []int{2, 0}},
		{"project path", Filter{Project: "/home/dev/src/beta"}, []int{1}},
		{"project path under", Filter{Project: "/work/alpha"}, []int{2}},
		{"project path unclean", Filter{Project: "/work/alpha/"}, []int{2}},
		{"project parent", Filter{Project: "/work"}, []int{4, 2}},
		{"project root", Filter{Project: "/"}, []int{4, 3, 2, 1, 0}},
		{"query title", Filter{Query: "PARSER"}, []int{0}},
		{"query summary", Filter{Query: "lru"}, []int{1}},
		{"query beyond summary prefix", Filter{Query: "needle"}, nil},
		{"query tag", Filter{Query: "docs"}, []int{2}},
		{"query project name", Filter{Query: "gamm"}, []int{3}},
		{"query unicode", Filter{Query: "üNÏ"}, []int{4}},
		{"query comma", Filter{Query: "docs,release"}, nil},
		{"query none", Filter{Query: "zzz"}, nil},
		{"id prefix", Filter{IDPrefix: strings.ToLower(id(2))}, []int{2}},
		{"since", Filter{Since: baseTime.Add(2 * time.Hour)}, []int{4, 3, 2}},
		{"since sub-ms", Filter{Since: baseTime.Add(2*time.Hour + time.Microsecond)}, []int{4, 3}},
		{"latest", Filter{Latest: true}, []int{4}},
		{"latest tool", Filter{Tool: "codex", Latest: true}, []int{3}},
		{"limit", Filter{Limit: 2}, []int{4, 3}},
		{"limit filtered", Filter{Tool: "codex", Limit: 1}, []int{3}},
		{"combined", Filter{Tool: "claude-code", Project: "alpha", Query: "fix"}, []int{0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for _, i := range c.want {
				want = append(want, id(i))
			}
			got := ids(mustList(t, s, c.f))
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("got  %v\nwant %v", got, want)
			}
		})
	}
	if _, err := s.List(Filter{Limit: -1}); err == nil {
		t.Error("negative limit accepted")
	}
	if _, err := s.List(Filter{IDPrefix: "0!"}); !errors.Is(err, handoff.ErrInvalidID) {
		t.Errorf("bad id prefix: %v", err)
	}
}

func TestRemove(t *testing.T) {
	s := newTestStore(t)
	a := mkRecord(t, baseTime, "codex", "p", "a")
	b := mkRecord(t, baseTime.Add(time.Minute), "codex", "p", "b")
	mustSave(t, s, a)
	mustSave(t, s, b)
	if err := s.Remove(b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(b.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("get removed: %v", err)
	}
	if _, err := s.Resolve(string(b.ID)); !errors.Is(err, ErrNotFound) {
		t.Errorf("resolve removed: %v", err)
	}
	if got := ids(mustList(t, s, Filter{})); len(got) != 1 || got[0] != string(a.ID) {
		t.Errorf("list after remove: %v", got)
	}
	if id, _ := s.Resolve("latest"); id != a.ID {
		t.Errorf("latest after removing the newest = %s", id)
	}
	if err := s.Remove(b.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second remove: %v", err)
	}
	if err := s.Remove("bogus"); !errors.Is(err, handoff.ErrInvalidID) {
		t.Errorf("remove bogus: %v", err)
	}
	// Saving the id again brings it back.
	mustSave(t, s, b)
	if got := mustList(t, s, Filter{}); len(got) != 2 {
		t.Errorf("list after re-save: %v", ids(got))
	}
	assertConsistent(t, s)
}

// goodJSON returns the record file bytes of a valid record.
func goodJSON(t *testing.T, r *handoff.Record) []byte {
	data, err := encodeRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestCorruptRecords(t *testing.T) {
	cases := []struct {
		name  string
		data  func(r *handoff.Record) []byte
		cause string
		is    error
		// readCause and readIs, when set, are what a read says: reads
		// decode strictly without the schema, which store check runs.
		readCause string
		readIs    error
	}{
		{"garbage", func(*handoff.Record) []byte { return []byte("\x00\xffnot json at all") }, "malformed JSON", schema.ErrMalformed, "", nil},
		{"truncated", func(r *handoff.Record) []byte { d := goodJSON(t, r); return d[:len(d)/2] }, "unexpected end", schema.ErrMalformed, "", nil},
		{"empty", func(*handoff.Record) []byte { return nil }, "malformed JSON", schema.ErrMalformed, "", nil},
		{"duplicate key", func(r *handoff.Record) []byte {
			return bytes.Replace(goodJSON(t, r), []byte(`"title":`), []byte(`"title": "x", "title":`), 1)
		}, "duplicate key", schema.ErrMalformed, "", nil},
		{"newer schema", func(r *handoff.Record) []byte {
			return bytes.Replace(goodJSON(t, r), []byte(`"schema_version": 1`), []byte(`"schema_version": 2`), 1)
		}, "schema version 2, this program reads up to version 1", ErrNewerSchema, "", nil},
		{"schema violation", func(r *handoff.Record) []byte {
			return bytes.Replace(goodJSON(t, r), []byte(`"tool": "codex"`), []byte(`"tool": 7`), 1)
		}, "/tool", schema.ErrInvalid, "Record.tool", schema.ErrMalformed},
		{"other id inside", func(r *handoff.Record) []byte {
			o := *r
			o.ID, _ = handoff.NewID(baseTime.Add(-time.Hour))
			return goodJSON(t, &o)
		}, "holds handoff", nil, "", nil},
		{"too large", func(*handoff.Record) []byte { return bytes.Repeat([]byte(" "), handoff.MaxRecordSz+1) }, "too large", safefile.ErrTooLarge, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestStore(t)
			var good []*handoff.Record
			for i := 0; i < 3; i++ {
				r := mkRecord(t, baseTime.Add(time.Duration(i)*time.Minute), "codex", "p", "good")
				mustSave(t, s, r)
				good = append(good, r)
			}
			// A saved record is damaged behind the store's back.
			victim := good[1]
			path := filepath.Join(s.Dir(), "records", string(victim.ID)+".json")
			if err := os.WriteFile(path, c.data(victim), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Get(victim.ID)
			if err == nil {
				t.Fatal("get of a corrupt record succeeded")
			}
			rel := "records/" + string(victim.ID) + ".json"
			readCause, readIs := c.cause, c.is
			if c.readCause != "" {
				readCause, readIs = c.readCause, c.readIs
			}
			if !strings.Contains(err.Error(), rel) || !strings.Contains(err.Error(), readCause) {
				t.Errorf("error %q does not name %s and %q", err, rel, readCause)
			}
			if readIs != nil && !errors.Is(err, readIs) {
				t.Errorf("error %q does not wrap %v", err, readIs)
			}
			if errors.Is(err, ErrNotFound) {
				t.Errorf("corrupt record reported as not found: %v", err)
			}

			rep, err := s.Check(false)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Records != 2 || len(rep.Bad) != 1 || rep.Bad[0].File != rel || !strings.Contains(rep.Bad[0].Err.Error(), c.cause) {
				t.Fatalf("check = records %d bad %s", rep.Records, fmtBad(rep.Bad))
			}
			if !rep.IndexWasStale || rep.IndexRebuilt {
				t.Errorf("check(false): stale=%v rebuilt=%v; the index lists a damaged record", rep.IndexWasStale, rep.IndexRebuilt)
			}
			rep, err = s.Check(true)
			if err != nil {
				t.Fatal(err)
			}
			if !rep.IndexRebuilt || len(rep.Bad) != 1 || rep.Records != 2 {
				t.Errorf("check(true) = %+v", rep)
			}
			got := sortedIDs(mustList(t, s, Filter{}))
			if want := []string{string(good[0].ID), string(good[2].ID)}; strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("after rebuild list %v, want %v", got, want)
			}
			// A rebuild from scratch also skips it, keeps the rest, and
			// warns about it.
			testsys.Check(t, os.Remove(filepath.Join(s.Dir(), "index")))
			var warnings []error
			s.SetWarn(func(err error) { warnings = append(warnings, err) })
			if got := mustList(t, s, Filter{}); len(got) != 2 {
				t.Errorf("after index removal list %v", ids(got))
			}
			s.SetWarn(nil)
			if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), rel) || !strings.Contains(warnings[0].Error(), readCause) {
				t.Errorf("warnings = %v", warnings)
			}
			rep, _ = s.Check(false)
			if rep.IndexWasStale || len(rep.Bad) != 1 {
				t.Errorf("after rebuild check = %+v", rep)
			}
		})
	}
}

func TestNewerSchemaMessageNamesBothVersions(t *testing.T) {
	s := newTestStore(t)
	r := mkRecord(t, baseTime, "codex", "p", "t")
	mustSave(t, s, r)
	path := filepath.Join(s.Dir(), "records", string(r.ID)+".json")
	// A future record: a version bump plus a field this version lacks.
	data := bytes.Replace(goodJSON(t, r), []byte(`"schema_version": 1,`), []byte(`"schema_version": 2, "mood": "curious",`), 1)
	testsys.Check(t, os.WriteFile(path, data, 0o600))
	_, err := s.Get(r.ID)
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "2") || !strings.Contains(err.Error(), "1") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
	// A string version is not a version: a read refuses it as malformed,
	// store check as a schema violation.
	testsys.Check(t, os.WriteFile(path, bytes.Replace(goodJSON(t, r), []byte(`"schema_version": 1`), []byte(`"schema_version": "2"`), 1), 0o600))
	if _, err := s.Get(r.ID); errors.Is(err, ErrNewerSchema) || !errors.Is(err, schema.ErrMalformed) {
		t.Errorf("string version: %v", err)
	}
	if rep, err := s.Check(false); err != nil || len(rep.Bad) != 1 || !errors.Is(rep.Bad[0].Err, schema.ErrInvalid) {
		t.Errorf("store check of a string version: %+v, %v", rep, err)
	}
}

func indexPath(s *Store) string { return filepath.Join(s.Dir(), "index") }

func saveN(t *testing.T, s *Store, n int) []*handoff.Record {
	var out []*handoff.Record
	for i := 0; i < n; i++ {
		r := mkRecord(t, baseTime.Add(time.Duration(i)*time.Minute), "codex", "p", "r")
		mustSave(t, s, r)
		out = append(out, r)
	}
	return out
}

func appendFile(t *testing.T, path string, data string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func TestTornIndexLineIgnoredThenCut(t *testing.T) {
	s := newTestStore(t)
	recs := saveN(t, s, 3)
	before, _ := os.ReadFile(indexPath(s))
	extra := mkRecord(t, baseTime.Add(time.Hour), "codex", "p", "torn")
	ie := entryFromRecord(extra)
	line := appendLine(nil, &ie, "")
	appendFile(t, indexPath(s), string(line[:len(line)/2]))
	if got := mustList(t, s, Filter{}); len(got) != 3 {
		t.Fatalf("torn line not ignored: %v", ids(got))
	}
	if after, _ := os.ReadFile(indexPath(s)); len(after) == len(before) {
		t.Fatal("a reader cut the torn line; only writers may")
	}
	mustSave(t, s, mkRecord(t, baseTime.Add(2*time.Hour), "codex", "p", "next"))
	if got := mustList(t, s, Filter{}); len(got) != 4 || got[3].ID != recs[0].ID {
		t.Fatalf("after next save: %v", ids(got))
	}
	data, _ := os.ReadFile(indexPath(s))
	if bytes.Contains(data, line[:len(line)/2]) {
		t.Error("torn line still in the index")
	}
	// A complete line without its newline is torn too.
	appendFile(t, indexPath(s), string(line[:len(line)-1]))
	if got := mustList(t, s, Filter{}); len(got) != 4 {
		t.Fatalf("unterminated line not ignored: %v", ids(got))
	}
	rep, err := s.Check(true)
	if err != nil || !rep.TornLineRemoved || rep.IndexWasStale {
		t.Errorf("check = %+v, %v", rep, err)
	}
	assertConsistent(t, s)
}

func TestCorruptIndexRebuilt(t *testing.T) {
	for name, damage := range map[string]func([]byte) []byte{
		"garbage line": func(d []byte) []byte {
			i := bytes.IndexByte(d, '\n')
			return append(d[:i+1:i+1], append([]byte("what is this\n"), d[i+1:]...)...)
		},
		"bad header": func(d []byte) []byte {
			return append([]byte("session-handoff-index 99\n"), d[bytes.IndexByte(d, '\n')+1:]...)
		},
		"empty":       func([]byte) []byte { return nil },
		"bad escape":  func(d []byte) []byte { return bytes.Replace(d, []byte("\tcodex\t"), []byte("\tco\\qdex\t"), 1) },
		"bad time":    func(d []byte) []byte { return bytes.Replace(d, []byte("\t17"), []byte("\tx7"), 1) },
		"few fields":  func(d []byte) []byte { return bytes.Replace(d, []byte("\tcodex\t"), []byte("\tcodex "), 1) },
		"bad id":      func(d []byte) []byte { return bytes.Replace(d, []byte("+\t0"), []byte("+\tU"), 1) },
		"binary junk": func(d []byte) []byte { return append(d, "\x00\xff\xfe\n"...) },
	} {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t)
			saveN(t, s, 5)
			data, _ := os.ReadFile(indexPath(s))
			testsys.Check(t, os.WriteFile(indexPath(s), damage(bytes.Clone(data)), 0o600))

			// With a writer holding the lock, a reader still answers, from
			// the records, and writes nothing.
			l, err := safefile.LockFile(filepath.Join(s.Dir(), "lock"))
			if err != nil {
				t.Fatal(err)
			}
			damaged, _ := os.ReadFile(indexPath(s))
			if got := mustList(t, s, Filter{Tool: "codex"}); len(got) != 5 {
				t.Errorf("list with lock busy: %v", ids(got))
			}
			if now, _ := os.ReadFile(indexPath(s)); !bytes.Equal(now, damaged) {
				t.Error("reader wrote the index while the lock was held")
			}
			l.Unlock()

			if got := mustList(t, s, Filter{}); len(got) != 5 {
				t.Errorf("list: %v", ids(got))
			}
			if now, _ := os.ReadFile(indexPath(s)); !bytes.Equal(now, data) {
				t.Errorf("index not rebuilt:\n%s\nwant\n%s", now, data)
			}
			assertConsistent(t, s)
		})
	}
}

func TestCheckFindsAndRebuildsDamagedIndex(t *testing.T) {
	s := newTestStore(t)
	saveN(t, s, 3)
	data, _ := os.ReadFile(indexPath(s))
	testsys.Check(t, os.WriteFile(indexPath(s), append(data, "garbage\n"...), 0o600))
	rep, err := s.Check(false)
	if err != nil || !rep.IndexWasStale || rep.IndexRebuilt || !strings.Contains(rep.IndexProblem, "line 5") {
		t.Fatalf("check(false) = %+v, %v", rep, err)
	}
	rep, err = s.Check(true)
	if err != nil || !rep.IndexWasStale || !rep.IndexRebuilt {
		t.Fatalf("check(true) = %+v, %v", rep, err)
	}
	assertConsistent(t, s)
}

func TestMissingIndexRebuilt(t *testing.T) {
	s := newTestStore(t)
	saveN(t, s, 4)
	testsys.Check(t, os.Remove(indexPath(s)))
	if got := mustList(t, s, Filter{}); len(got) != 4 {
		t.Fatalf("list: %v", ids(got))
	}
	if _, err := os.Stat(indexPath(s)); err != nil {
		t.Fatalf("index not rebuilt: %v", err)
	}
	testsys.Check(t, os.Remove(indexPath(s)))
	// A writer rebuilds it too, before appending.
	mustSave(t, s, mkRecord(t, baseTime.Add(time.Hour), "codex", "p", "x"))
	if got := mustList(t, s, Filter{}); len(got) != 5 {
		t.Fatalf("list after save: %v", ids(got))
	}
	testsys.Check(t, os.Remove(indexPath(s)))
	rep, err := s.Check(true)
	if err != nil || !rep.IndexWasStale || !rep.IndexRebuilt || rep.Records != 5 {
		t.Fatalf("check = %+v, %v", rep, err)
	}
	assertConsistent(t, s)
}

func TestStaleIndexFoundByCheck(t *testing.T) {
	s := newTestStore(t)
	recs := saveN(t, s, 3)
	// A record file deleted behind the store's back, another added.
	testsys.Check(t, os.Remove(filepath.Join(s.Dir(), "records", string(recs[0].ID)+".json")))
	extra := mkRecord(t, baseTime.Add(time.Hour), "codex", "p", "sneaked in")
	testsys.Check(t, os.WriteFile(filepath.Join(s.Dir(), "records", string(extra.ID)+".json"), goodJSON(t, extra), 0o600))
	rep, err := s.Check(false)
	if err != nil || !rep.IndexWasStale || rep.Records != 3 || !strings.Contains(rep.IndexProblem, "1 more") {
		t.Fatalf("check(false) = %+v, %v", rep, err)
	}
	if rep, err := s.Check(true); err != nil || !rep.IndexRebuilt {
		t.Fatalf("check(true) = %+v, %v", rep, err)
	}
	assertConsistent(t, s)
}

func TestCheckCompactsIndex(t *testing.T) {
	s := newTestStore(t)
	r := mkRecord(t, baseTime, "codex", "p", "t")
	mustSave(t, s, r)
	// Many superseded lines for one record.
	var junk []byte
	for i := 0; i < 1100; i++ {
		junk = appendTombstone(junk, r.ID)
		ie := entryFromRecord(r)
		junk = appendLine(junk, &ie, r.ID)
	}
	appendFile(t, indexPath(s), string(junk))
	rep, err := s.Check(true)
	if err != nil || rep.IndexWasStale || rep.IndexRebuilt || !rep.IndexCompacted {
		t.Fatalf("check = %+v, %v", rep, err)
	}
	data, _ := os.ReadFile(indexPath(s))
	if n := bytes.Count(data, []byte("\n")); n != 2 {
		t.Errorf("compacted index has %d lines", n)
	}
}

func TestCheckRemovesLeftoverTempFiles(t *testing.T) {
	s := newTestStore(t)
	saveN(t, s, 2)
	if _, _, err := s.PutBlob(strings.NewReader("blob"), 100); err != nil {
		t.Fatal(err)
	}
	blobs := filepath.Join(s.Dir(), "blobs", "sha256")
	leftovers := []string{
		filepath.Join(s.Dir(), ".tmp-index-123"),
		filepath.Join(s.Dir(), ".tmp-pending-9"),
		filepath.Join(s.Dir(), "records", ".tmp-01JDZ.json-77"),
		filepath.Join(blobs, ".tmp-blob-5"),
	}
	for _, p := range leftovers {
		testsys.Check(t, os.WriteFile(p, []byte("partial"), 0o600))
	}
	// A blob being written right now is not a leftover.
	live, err := os.Create(filepath.Join(blobs, ".tmp-blob-live"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := safefile.Flock(live, false); err != nil {
		t.Fatal(err)
	}

	rep, err := s.Check(false)
	if err != nil || rep.TempFound != 4 || rep.TempRemoved != 0 {
		t.Fatalf("check(false) = %+v, %v", rep, err)
	}
	for _, p := range leftovers {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("check(false) removed %s", p)
		}
	}
	rep, err = s.Check(true)
	if err != nil || rep.TempFound != 4 || rep.TempRemoved != 4 {
		t.Fatalf("check(true) = %+v, %v", rep, err)
	}
	for _, p := range leftovers {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s not removed", p)
		}
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("a live blob temp was removed: %v", err)
	}
	if rep, _ := s.Check(true); rep.TempFound != 0 {
		t.Errorf("temps remain: %+v", rep)
	}
	assertConsistent(t, s)
}

// crashAfterRecord leaves the store as a writer killed between writing the
// record and appending its index line would.
func crashAfterRecord(t *testing.T, s *Store, r *handoff.Record) {
	testsys.Check(t, os.MkdirAll(filepath.Join(s.Dir(), "records"), 0o700))
	if err := os.WriteFile(filepath.Join(s.Dir(), "records", string(r.ID)+".json"), goodJSON(t, r), 0o600); err != nil {
		t.Fatal(err)
	}
	writePendingFile(t, s, "put", r.ID)
}

func writePendingFile(t *testing.T, s *Store, op string, id handoff.ID) {
	data := "session-handoff-pending 1\n" + op + " " + string(id) + "\n"
	if err := os.WriteFile(filepath.Join(s.Dir(), "pending"), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// pendingExists reports whether the pending marker names an operation.
func pendingExists(s *Store) bool { return s.pendingActive() }

func TestPendingMarkerRepaired(t *testing.T) {
	t.Run("put, record written", func(t *testing.T) {
		s := newTestStore(t)
		saveN(t, s, 2)
		r := mkRecord(t, baseTime.Add(time.Hour), "gemini", "p", "crashed")
		crashAfterRecord(t, s, r)

		// While a live writer holds the lock, its marker is not a crash:
		// readers do not wait and do not touch it.
		l, _ := safefile.LockFile(filepath.Join(s.Dir(), "lock"))
		if got := mustList(t, s, Filter{}); len(got) != 2 {
			t.Errorf("list during a live write: %v", ids(got))
		}
		if !pendingExists(s) {
			t.Error("reader took a live writer's marker")
		}
		l.Unlock()

		got := mustList(t, s, Filter{Tool: "gemini"})
		if len(got) != 1 || got[0].ID != r.ID {
			t.Fatalf("reader did not repair: %v", ids(got))
		}
		if pendingExists(s) {
			t.Error("marker left behind")
		}
		assertConsistent(t, s)
	})
	t.Run("put, record not written", func(t *testing.T) {
		s := newTestStore(t)
		saveN(t, s, 2)
		id, _ := handoff.NewID(baseTime.Add(time.Hour))
		writePendingFile(t, s, "put", id)
		if got := mustList(t, s, Filter{}); len(got) != 2 || pendingExists(s) {
			t.Fatalf("list = %v, pending %v", ids(got), pendingExists(s))
		}
		assertConsistent(t, s)
	})
	t.Run("put, next writer repairs", func(t *testing.T) {
		s := newTestStore(t)
		saveN(t, s, 1)
		r := mkRecord(t, baseTime.Add(time.Hour), "gemini", "p", "crashed")
		crashAfterRecord(t, s, r)
		mustSave(t, s, mkRecord(t, baseTime.Add(2*time.Hour), "codex", "p", "next"))
		if pendingExists(s) {
			t.Error("writer left the marker")
		}
		if got := mustList(t, s, Filter{}); len(got) != 3 {
			t.Fatalf("list = %v", ids(got))
		}
		assertConsistent(t, s)
	})
	t.Run("put replace, old line in index", func(t *testing.T) {
		s := newTestStore(t)
		recs := saveN(t, s, 2)
		r := *recs[1]
		r.Title = "replaced"
		testsys.Check(t, os.WriteFile(filepath.Join(s.Dir(), "records", string(r.ID)+".json"), goodJSON(t, &r), 0o600))
		writePendingFile(t, s, "put", r.ID)
		if got := mustList(t, s, Filter{Latest: true}); got[0].Title != "replaced" {
			t.Fatalf("list = %+v", got)
		}
		assertConsistent(t, s)
	})
	t.Run("put, record damaged", func(t *testing.T) {
		s := newTestStore(t)
		recs := saveN(t, s, 2)
		testsys.Check(t, os.WriteFile(filepath.Join(s.Dir(), "records", string(recs[1].ID)+".json"), []byte("{"), 0o600))
		writePendingFile(t, s, "put", recs[1].ID)
		if got := mustList(t, s, Filter{}); len(got) != 1 {
			t.Fatalf("list = %v", ids(got))
		}
	})
	t.Run("remove, tombstone not written", func(t *testing.T) {
		s := newTestStore(t)
		recs := saveN(t, s, 2)
		writePendingFile(t, s, "remove", recs[0].ID)
		if got := mustList(t, s, Filter{}); len(got) != 1 || got[0].ID != recs[1].ID {
			t.Fatalf("list = %v", ids(got))
		}
		if _, err := s.Get(recs[0].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("removal not rolled forward: %v", err)
		}
		assertConsistent(t, s)
	})
	t.Run("damaged marker", func(t *testing.T) {
		s := newTestStore(t)
		saveN(t, s, 2)
		r := mkRecord(t, baseTime.Add(time.Hour), "gemini", "p", "crashed")
		crashAfterRecord(t, s, r)
		testsys.Check(t, os.WriteFile(filepath.Join(s.Dir(), "pending"), []byte("session-handoff-pending 1\nput"), 0o600))
		if got := mustList(t, s, Filter{}); len(got) != 3 || pendingExists(s) {
			t.Fatalf("list = %v, pending %v", ids(got), pendingExists(s))
		}
		assertConsistent(t, s)
	})
	t.Run("check repairs", func(t *testing.T) {
		s := newTestStore(t)
		saveN(t, s, 2)
		crashAfterRecord(t, s, mkRecord(t, baseTime.Add(time.Hour), "gemini", "p", "crashed"))
		rep, err := s.Check(false)
		if err != nil || !rep.PendingFound || !rep.IndexWasStale || !pendingExists(s) {
			t.Fatalf("check(false) = %+v, %v", rep, err)
		}
		rep, err = s.Check(true)
		if err != nil || !rep.PendingRepaired || rep.IndexRebuilt || pendingExists(s) {
			t.Fatalf("check(true) = %+v, %v", rep, err)
		}
		assertConsistent(t, s)
	})
}

func TestBlobs(t *testing.T) {
	s := newTestStore(t)
	content := strings.Repeat("attachment bytes\n", 5000)
	sum, size, err := s.PutBlob(strings.NewReader(content), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	if size != int64(len(content)) || len(sum) != 64 {
		t.Fatalf("PutBlob = %s, %d", sum, size)
	}
	if sum2, _, err := s.PutBlob(strings.NewReader(content), 1<<20); err != nil || sum2 != sum {
		t.Fatalf("second PutBlob = %s, %v", sum2, err)
	}
	rc, n, err := s.OpenBlob(sum)
	if err != nil || n != size {
		t.Fatalf("OpenBlob = %d, %v", n, err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(got) != content {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	path := filepath.Join(s.Dir(), "blobs", "sha256", sum)
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("blob mode %v", st.Mode().Perm())
	}

	if _, _, err := s.PutBlob(strings.NewReader(content), 100); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("over limit: %v", err)
	}
	if _, _, err := s.PutBlob(strings.NewReader(""), 0); err == nil {
		t.Error("zero limit accepted")
	}
	if _, _, err := s.PutBlob(errReader{}, 100); err == nil {
		t.Error("read error not reported")
	}
	des, err := os.ReadDir(filepath.Join(s.Dir(), "blobs", "sha256"))
	testsys.Check(t, err)
	if len(des) != 1 {
		t.Errorf("blob directory holds %d files, want 1", len(des))
	}

	if _, _, err := s.OpenBlob(strings.Repeat("0", 64)); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing blob: %v", err)
	}
	for _, bad := range []string{"", "../index", strings.Repeat("A", 64), strings.Repeat("0", 63)} {
		if _, _, err := s.OpenBlob(bad); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("OpenBlob(%q) = %v", bad, err)
		}
	}

	// A damaged blob is caught at the end of reading.
	testsys.Check(t, os.WriteFile(path, []byte("tampered"), 0o600))
	rc, _, err = s.OpenBlob(sum)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(rc)
	rc.Close()
	if err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("tampered blob read: %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestBlobTempNamesAreTemp(t *testing.T) {
	f, err := createLockedTemp(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !safefile.IsTemp(filepath.Base(f.Name())) {
		t.Errorf("%s is not recognised as a temporary file", f.Name())
	}
}

func TestReadOnlyStoreStillReads(t *testing.T) {
	s := newTestStore(t)
	saveN(t, s, 3)
	testsys.Check(t, os.Remove(indexPath(s)))
	testsys.Check(t, os.Remove(filepath.Join(s.Dir(), "lock")))
	if os.Geteuid() == 0 {
		// Root ignores permissions (CI runs as root): the read runs as
		// nobody, in a copy of this test binary, on a store nobody owns
		// but may not write.
		readAsNobody(t, s.Dir(), 3)
		return
	}
	testsys.Check(t, os.Chmod(s.Dir(), 0o500))
	defer os.Chmod(s.Dir(), 0o700)
	if got := mustList(t, s, Filter{}); len(got) != 3 {
		t.Fatalf("list = %v", ids(got))
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	s := newTestStore(t)
	const workers, each = 4, 15
	errs := make(chan error, workers*each*3)
	done := make(chan struct{})
	// Readers run all along; every entry they list must be readable
	// unless it was removed since.
	go func() {
		defer close(done)
		for i := 0; i < 30; i++ {
			es, err := s.List(Filter{})
			if err != nil {
				errs <- err
				return
			}
			for _, e := range es {
				if _, err := s.Get(e.ID); err != nil && !errors.Is(err, ErrNotFound) {
					errs <- err
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				r := mkRecord(t, time.Now(), "codex", "p", fmt.Sprintf("w%d-%d", w, i))
				if err := s.Save(r); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					if err := s.Remove(r.ID); err != nil {
						errs <- err
					}
				}
			}
		}()
	}
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if es := assertConsistent(t, s); len(es) != workers*each*2/3 {
		t.Errorf("%d records, want %d", len(es), workers*each*2/3)
	}
}

func TestPendingMarkerFile(t *testing.T) {
	s := newTestStore(t)
	saveN(t, s, 1)
	path := filepath.Join(s.Dir(), "pending")
	data, err := os.ReadFile(path)
	if err != nil || len(data) != pendingSize {
		t.Fatalf("marker: %q, %v", data, err)
	}
	if p, err := parsePending(data); p != nil || err != nil {
		t.Fatalf("marker after a save is %+v, %v; want idle", p, err)
	}
	if p, err := parsePending(encodePending("put " + strings.Repeat("0", 26))); err != nil || p == nil || p.op != "put" {
		t.Fatalf("put marker parses as %+v, %v", p, err)
	}
	for _, bad := range []string{"", "session-handoff-pending 1\n", "session-handoff-pending 1\nput 0123\n", "session-handoff-pending 2\nidle\n",
		"session-handoff-pending 1\ndelete " + strings.Repeat("0", 26) + "\n", "session-handoff-pending 1\nidle"} {
		if _, err := parsePending([]byte(bad)); err == nil {
			t.Errorf("parsePending(%q) accepted", bad)
		}
	}

	// A symbolic link planted as the marker is replaced, never written
	// through.
	victim := filepath.Join(t.TempDir(), "victim")
	testsys.Check(t, os.WriteFile(victim, []byte("precious"), 0o600))
	testsys.Check(t, os.Remove(path))
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	mustSave(t, s, mkRecord(t, baseTime.Add(time.Hour), "codex", "p", "after link"))
	if got, _ := os.ReadFile(victim); string(got) != "precious" {
		t.Errorf("write followed the link: victim now %q", got)
	}
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		t.Errorf("marker is not a regular file: %v %v", st, err)
	}
	assertConsistent(t, s)
}

func TestHostileFileTypesDoNotHang(t *testing.T) {
	s := newTestStore(t)
	recs := saveN(t, s, 3)
	fifo := filepath.Join(s.Dir(), "records", string(recs[0].ID)+".json")
	link := filepath.Join(s.Dir(), "records", string(recs[1].ID)+".json")
	testsys.Check(t, os.Remove(fifo))
	testsys.Check(t, os.Remove(link))
	testsys.Mkfifo(t, fifo)
	testsys.Check(t, os.Symlink(filepath.Join(s.Dir(), "records", string(recs[2].ID)+".json"), link))
	for _, id := range []handoff.ID{recs[0].ID, recs[1].ID} {
		if _, err := s.Get(id); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("get %s: %v", id, err)
		}
	}
	rep, err := s.Check(true)
	if err != nil || len(rep.Bad) != 2 || rep.Records != 1 {
		t.Fatalf("check = %+v, %v", rep, err)
	}
	if got := mustList(t, s, Filter{}); len(got) != 1 {
		t.Errorf("list = %v", ids(got))
	}
	// Removing them is how a user cleans up.
	if err := s.Remove(recs[0].ID); err != nil {
		t.Errorf("remove fifo record: %v", err)
	}
	testsys.Check(t, os.Remove(indexPath(s)))
	testsys.Mkfifo(t, indexPath(s))
	if _, err := s.List(Filter{}); err == nil {
		t.Error("list with a named pipe for an index succeeded")
	}
}

// Reading our own records runs no JSON Schema (issue 19): they were
// validated when they entered the store, and store check validates them
// again; a read decodes strictly.
func TestReadsDoNotRunTheSchema(t *testing.T) {
	s := newTestStore(t)
	r := mkRecord(t, baseTime, "codex", "app", "t")
	mustSave(t, s, r)
	before := schema.Validations()
	if _, err := s.Get(r.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.LatestForProject(r.Project.Path, nil); err != nil {
		t.Fatal(err)
	}
	testsys.Check(t, os.Remove(indexPath(s))) // a rebuild from the records reads them too
	mustList(t, s, Filter{})
	if n := schema.Validations() - before; n != 0 {
		t.Errorf("reads validated %d documents against the schema, want 0", n)
	}
	if _, err := s.Check(false); err != nil {
		t.Fatal(err)
	}
	if n := schema.Validations() - before; n == 0 {
		t.Error("store check validated nothing against the schema")
	}
}
