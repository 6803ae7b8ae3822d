package testsys

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMkfifoMakesANamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	Mkfifo(t, p)
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is %v, want a named pipe", p, fi.Mode())
	}
}

func TestMissingFailsUnderCI(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		rec := &recorder{TB: t}
		func() {
			defer func() { _ = recover() }() // Skip and Fatal end the goroutine's test; the recorder panics instead
			Missing(rec, "a %s", "tool")
		}()
		if ci == "" && (!rec.skipped || rec.failed) {
			t.Errorf("CI unset: skipped %v, failed %v; want a skip", rec.skipped, rec.failed)
		}
		if ci != "" && (!rec.failed || rec.skipped || rec.msg != "missing (CI is set, so this fails instead of skipping): a tool") {
			t.Errorf("CI set: skipped %v, failed %v (%q); want a failure naming what is missing", rec.skipped, rec.failed, rec.msg)
		}
	}
}

func TestLookPathFindsAndMisses(t *testing.T) {
	t.Setenv("CI", "1")
	if p := LookPath(t, "sh"); p == "" {
		t.Error("LookPath(sh) is empty")
	}
	rec := &recorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		LookPath(rec, "no-such-program-session-handoff")
	}()
	if !rec.failed || !strings.Contains(rec.msg, "no-such-program-session-handoff is not on PATH") {
		t.Errorf("failed %v, %q; want a failure naming the program", rec.failed, rec.msg)
	}
}

// recorder records Skip and Fatal instead of ending the test.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	panic("skip")
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
	panic("fatal")
}
