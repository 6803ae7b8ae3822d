package memory

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// archived lists an archive's entries as "date key text".
func archived(t *testing.T, d Dir, rel string) []string {
	t.Helper()
	_, doc, err := d.Read(rel)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range doc.Entries {
		s := e.Date
		if e.Key != "" {
			s += " " + e.Key
		}
		out = append(out, s+" "+trimBlank(e.Body))
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestCompactKeepDaysBoundary(t *testing.T) {
	d := newDir(t)
	for _, n := range []Note{
		{Tag: "api", Date: "2026-03-01", Body: "30 days old: kept"},
		{Tag: "api", Date: "2026-02-28", Key: "k", Body: "31 days old"},
		{Tag: "api", Date: "2026-02-28", Body: "31 days old, second"},
		{Tag: "api", Date: "2026-02-02", Body: "february"},
		{Tag: "ui", Date: "2026-02-27", Body: "ui note"},
		{Tag: "api", Date: "2026-01-15", Body: "january"},
		{Tag: "api", Date: "2026-03-31", Body: "today"},
	} {
		writeNote(t, d, n)
	}
	// Late in the evening of 2026-03-31, local time of now's location.
	now := time.Date(2026, 3, 31, 23, 59, 0, 0, time.FixedZone("X", -11*3600))
	res, err := d.Compact("", 30, now)
	if err != nil {
		t.Fatal(err)
	}
	j := func(rel string) string { return filepath.Join(d.Root, filepath.FromSlash(rel)) }
	wantArchived := []string{
		j("layer1/2026-01/api-2026-01-15.md"),
		j("layer1/2026-02/api-2026-02-02.md"), j("layer1/2026-02/api-2026-02-28.md"),
		j("layer1/2026-02/ui-2026-02-27.md"),
	}
	wantArchives := []string{j("layer3/2026-01-api-archive.md"), j("layer3/2026-02-api-archive.md"), j("layer3/2026-02-ui-archive.md")}
	if !reflect.DeepEqual(res.Archived, wantArchived) || !reflect.DeepEqual(res.Archives, wantArchives) {
		t.Fatalf("result %+v", res)
	}
	if got := archived(t, d, "layer3/2026-02-api-archive.md"); !reflect.DeepEqual(got, []string{
		"2026-02-02 february", "2026-02-28 k 31 days old", "2026-02-28 31 days old, second",
	}) {
		t.Fatalf("february: %q", got)
	}
	for _, p := range wantArchived {
		if exists(p) {
			t.Errorf("%s not removed", p)
		}
	}
	for _, gone := range []string{"layer1/2026-01", "layer1/2026-02"} {
		if exists(j(gone)) {
			t.Errorf("empty %s not removed", gone)
		}
	}
	for _, kept := range []string{"layer1/2026-03/api-2026-03-01.md", "layer1/2026-03/api-2026-03-31.md"} {
		if !exists(j(kept)) {
			t.Errorf("%s folded", kept)
		}
	}
	// Again: nothing left to do.
	res, err = d.Compact("", 30, now)
	if err != nil || len(res.Archived)+len(res.Archives) != 0 {
		t.Fatalf("second run: %+v %v", res, err)
	}
	// keepDays 0 folds everything before today, never today.
	res, err = d.Compact("", 0, now)
	if err != nil || len(res.Archived) != 1 || !exists(j("layer1/2026-03/api-2026-03-31.md")) {
		t.Fatalf("keep 0: %+v %v", res, err)
	}
	if !exists(j("layer1/2026-03")) {
		t.Fatal("a month directory still holding a note was removed")
	}
}

func TestCompactMonthAndExistingArchive(t *testing.T) {
	d := newDir(t)
	writeNote(t, d, Note{Tag: "api", Date: "2026-02-10", Body: "tenth"})
	writeNote(t, d, Note{Tag: "api", Date: "2026-02-20", Key: "r/s", Body: "twentieth"})
	writeNote(t, d, Note{Tag: "api", Date: "2026-03-01", Body: "march"})
	if _, _, err := d.WriteArchive(Note{Tag: "api", Date: "2026-02-15", Body: "by hand"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.WriteArchive(Note{Tag: "api", Date: "2026-02-25", Body: "by hand, later"}); err != nil {
		t.Fatal(err)
	}
	// A stray file in the month directory stays, and so does the directory.
	stray := filepath.Join(d.Root, "layer1", "2026-02", "README.md")
	if err := os.WriteFile(stray, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Text a person put before the first entry is archived too.
	p := filepath.Join(d.Root, "layer1", "2026-02", "api-2026-02-10.md")
	data := strings.Replace(mustRead(t, p), "# api: notes of 2026-02-10\n", "# api: notes of 2026-02-10\n\nwritten by hand\n", 1)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// The month's notes go whatever their age.
	res, err := d.Compact("2026-02", 10000, time.Date(2026, 2, 21, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Archived) != 2 || len(res.Archives) != 1 {
		t.Fatalf("%+v", res)
	}
	if got := archived(t, d, "layer3/2026-02-api-archive.md"); !reflect.DeepEqual(got, []string{
		"2026-02-10 written by hand", "2026-02-10 tenth", "2026-02-15 by hand", "2026-02-20 r/s twentieth", "2026-02-25 by hand, later",
	}) {
		t.Fatalf("archive: %q", got)
	}
	if !exists(stray) || !exists(filepath.Join(d.Root, "layer1", "2026-03", "api-2026-03-01.md")) {
		t.Fatal("compact removed what it should not")
	}
}

func TestCompactIsCrashSafe(t *testing.T) {
	d := newDir(t)
	notes := []Note{
		{Tag: "api", Date: "2026-01-05", Key: "run1/note", Body: "keyed"},
		{Tag: "api", Date: "2026-01-05", Body: "wip"},
		{Tag: "api", Date: "2026-01-05", Body: "wip"}, // the same text twice is two entries
		{Tag: "api", Date: "2026-01-06", Body: "sixth"},
		{Tag: "ui", Date: "2026-01-07", Body: "ui"},
	}
	for _, n := range notes {
		writeNote(t, d, n)
	}
	// An archive that already holds an entry of the month.
	if _, _, err := d.WriteArchive(Note{Tag: "api", Date: "2026-01-04", Body: "older"}); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	afterArchives = func() error { return crash }
	_, err := d.Compact("2026-01", 0, time.Now())
	afterArchives = nil
	if !errors.Is(err, crash) {
		t.Fatalf("got %v", err)
	}
	want := []string{"2026-01-04 older", "2026-01-05 run1/note keyed", "2026-01-05 wip", "2026-01-05 wip", "2026-01-06 sixth"}
	// The archive is complete while every note is still there.
	if got := archived(t, d, "layer3/2026-01-api-archive.md"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the crash: %q", got)
	}
	for _, n := range notes {
		if !exists(filepath.Join(d.Root, filepath.FromSlash(NotePath(n.Tag, n.Date)))) {
			t.Fatalf("note %s removed before the crash", NotePath(n.Tag, n.Date))
		}
	}
	// Between the crash and the next run, one note gets another entry: it
	// must not be lost either.
	writeNote(t, d, Note{Tag: "api", Date: "2026-01-06", Body: "after the crash"})
	for run := 0; run < 2; run++ {
		if _, err := d.Compact("2026-01", 0, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	want = []string{"2026-01-04 older", "2026-01-05 run1/note keyed", "2026-01-05 wip", "2026-01-05 wip", "2026-01-06 sixth", "2026-01-06 after the crash"}
	if got := archived(t, d, "layer3/2026-01-api-archive.md"); !reflect.DeepEqual(got, want) {
		t.Fatalf("after re-running: %q", got)
	}
	if got := archived(t, d, "layer3/2026-01-ui-archive.md"); !reflect.DeepEqual(got, []string{"2026-01-07 ui"}) {
		t.Fatalf("ui: %q", got)
	}
	if exists(filepath.Join(d.Root, "layer1", "2026-01")) {
		t.Fatal("notes left behind")
	}
}

func TestCompactWithoutMemory(t *testing.T) {
	d := newDir(t)
	res, err := d.Compact("", 30, time.Now())
	if err != nil || len(res.Archived) != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if exists(d.Root) {
		t.Fatal("Compact created the root")
	}
}

// TestConcurrentWriters has goroutines and processes append to the same
// note at once: every entry lands exactly once.
func TestConcurrentWriters(t *testing.T) {
	d := newDir(t)
	const goroutines, processes, each = 8, 3, 10
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, _, err := d.WriteNote(Note{Tag: "busy", Date: "2026-03-05", Key: fmt.Sprintf("g%d/%d", g, i), Body: fmt.Sprintf("goroutine %d note %d", g, i)})
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	var cmds []*exec.Cmd
	for p := range processes {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
		cmd.Env = append(os.Environ(), "MEMORY_HELPER_ROOT="+d.Root, "MEMORY_HELPER_ID="+strconv.Itoa(p), "MEMORY_HELPER_N="+strconv.Itoa(each))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	_, doc, err := d.Read(NotePath("busy", "2026-03-05"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range doc.Entries {
		seen[e.Key]++
	}
	if len(doc.Entries) != (goroutines+processes)*each || len(seen) != len(doc.Entries) {
		t.Fatalf("%d entries, %d keys", len(doc.Entries), len(seen))
	}
}

// TestHelperWriter is TestConcurrentWriters' other process.
func TestHelperWriter(t *testing.T) {
	root := os.Getenv("MEMORY_HELPER_ROOT")
	if root == "" {
		t.Skip("helper process for TestConcurrentWriters")
	}
	n, _ := strconv.Atoi(os.Getenv("MEMORY_HELPER_N"))
	id := os.Getenv("MEMORY_HELPER_ID")
	for i := range n {
		if _, _, err := (Dir{root}).WriteNote(Note{Tag: "busy", Date: "2026-03-05", Key: fmt.Sprintf("p%s/%d", id, i), Body: "process " + id}); err != nil {
			t.Fatal(err)
		}
	}
}
