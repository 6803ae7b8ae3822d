package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// initBudgetBytes bounds what the program's own packages may allocate at
// init, all together. Package-level work runs in every process, before
// any command; the start-up goal (issue 19: --help within 2 ms of a hello
// world) leaves room for constants and small tables only. Regular
// expressions are compiled on first use (sync.OnceValue): one with a
// counted repeat like {0,127} alone allocated 170 KB at init; the
// transcript shapes, word sets and redaction triggers are built on first
// use too (30 KB in all at init, 2026-11-27).
const initBudgetBytes = 48 << 10

// TestInitAllocatesLittle builds the binary and reads Go's own init trace
// (GODEBUG=inittrace=1) of a --help: bytes allocated are exact, unlike
// times, so the test does not depend on the machine's load.
func TestInitAllocatesLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "session-handoff")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--help")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	total, n := 0, 0
	var report []string
	for _, line := range strings.Split(string(out), "\n") {
		// init PKG @0.1 ms, 0.02 ms clock, 1234 bytes, 5 allocs
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/session-handoff/") {
			continue
		}
		b, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("unexpected init trace line %q", line)
		}
		if strings.HasSuffix(f[1], "/internal/search") {
			// Issue 46: a command that does not search pays nothing for
			// search; docs/SEARCH.md says the package has no init.
			t.Errorf("internal/search has a package init (%s bytes): make its state on first use", f[7])
		}
		n++
		total += b
		report = append(report, f[1]+": "+f[7]+" bytes")
	}
	if n == 0 {
		t.Fatalf("no init trace of our packages in:\n%s", out)
	}
	if total > initBudgetBytes {
		t.Fatalf("our packages allocate %d bytes at init, over %d:\n%s", total, initBudgetBytes, strings.Join(report, "\n"))
	}
}

// TestNoReflectMethodCall builds the binary with the linker's dependency
// dump and fails when any function reached calls a method by reflection
// (reflect.Value.Method, MethodByName, as text/template does): the
// linker must then keep every exported method of every type in the
// binary. cobra's version template did, and cost 3.5 MB of binary and
// part of every start (bench/v075.sh).
func TestNoReflectMethodCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out, err := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", os.DevNull, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%.2000s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "<ReflectMethod>") {
			t.Fatalf("a function reached calls a method by reflection, which keeps every exported method in the binary:\n%s", line)
		}
	}
}
