package testsys

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the environment variable CI is set, as .ci/run and
// the GitHub workflow set it. There every tool the tests use is installed
// (.ci/run installs them) and every fixture is in the repository, so a
// test that finds one missing fails instead of skipping.
func InCI() bool { return os.Getenv("CI") != "" }

// Missing says that a fixture or tool the test needs is missing: it skips
// the test with that reason, or, when CI is set, fails it naming what is
// missing, so that no test vanishes from a CI run in silence.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("missing (CI is set, so this fails instead of skipping): %s", what)
	}
	t.Skip(what)
}

// LookPath returns the path of the program name on PATH, or calls Missing.
func LookPath(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s is not on PATH: %v", name, err)
	}
	return p
}

// Check fails the test when err, from a step that sets the test up (a
// file written, a directory made, a link made), is not nil: a setup that
// silently failed makes the test check something else.
func Check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Absent removes the file path if it is there, and fails the test when it
// cannot.
func Absent(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
}
