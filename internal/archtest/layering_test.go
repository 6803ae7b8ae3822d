package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/session-handoff/session-handoff"

// public is the library surface by design: everything else is under
// internal/ (or is a command).
var public = []string{"bundle", "crypto", "handoff", "render", "schema", "store", "targets"}

// deps lists each package of the module with the module's packages it
// depends on, directly or not, by path relative to the module.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Skipf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue
		}
		for _, d := range f[1:] {
			if rel, ok := strings.CutPrefix(d, module+"/"); ok {
				m[pkg] = append(m[pkg], rel)
			}
		}
		if m[pkg] == nil {
			m[pkg] = []string{}
		}
	}
	return m
}

func TestLayering(t *testing.T) {
	m := deps(t)
	for pkg, ds := range m {
		top, _, _ := strings.Cut(pkg, "/")
		// The public set, and nothing else outside internal/, cmd/ and
		// bench/ (the benchmark programs).
		if !slices.Contains(public, pkg) && top != "internal" && top != "cmd" && top != "bench" {
			t.Errorf("%s is public API by accident: move it under internal/ or add it to the public set in docs/ARCHITECTURE.md", pkg)
		}
		for _, d := range ds {
			// Arrows point down: no package depends on a command.
			if strings.HasPrefix(d, "cmd/") {
				t.Errorf("%s depends on %s: packages never import a command", pkg, d)
			}
		}
	}
	rules := []struct {
		pkg     string
		mayNot  []string
		because string
	}{
		{"handoff", []string{""}, "the record imports nothing of ours"}, // "": any package of ours
		{"schema", []string{""}, "the schemas import nothing of ours"},
		{"render", []string{"crypto", "store", "bundle", "internal/capture", "internal/exchange"}, "rendering works on a record in memory: it reads no store, key or transcript"},
		{"targets", []string{"crypto", "store", "bundle", "internal/capture", "internal/exchange"}, "agent profiles are data"},
		{"store", []string{"crypto", "bundle", "render", "internal/capture"}, "the store keeps records; it neither signs nor renders"},
		{"crypto", []string{"store", "render", "bundle", "handoff"}, "the cryptography knows no record"},
	}
	for _, r := range rules {
		ds, ok := m[r.pkg]
		if !ok {
			t.Errorf("package %s not found", r.pkg)
			continue
		}
		for _, d := range ds {
			for _, bad := range r.mayNot {
				if bad == "" || d == bad || strings.HasPrefix(d, bad+"/") {
					t.Errorf("%s depends on %s: %s", r.pkg, d, r.because)
				}
			}
		}
	}
}
