package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/session-handoff/session-handoff"

// public is the library surface by design: everything else is under
// internal/ (or is a command).
var public = []string{"bundle", "crypto", "handoff", "render", "schema", "store", "targets"}

// eachGoFile calls fn for every non-test Go file under root, with its
// path and its path relative to root, skipping testdata and hidden or
// underscored directories, as go list does.
func eachGoFile(root string, fn func(path, rel string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		return fn(path, rel)
	})
}

// deps lists each package of the module with the module's packages it
// depends on, directly or not, by path relative to the module. It reads
// the import lines itself (test files left out, as go list does) rather
// than run go list, so that go's test cache notices a changed import.
func deps(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	direct := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := eachGoFile(root, func(path, rel string) error {
		pkg := filepath.ToSlash(filepath.Dir(rel))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if direct[pkg] == nil {
			direct[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			if dep, ok := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), module+"/"); ok {
				direct[pkg][dep] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]string{}
	for pkg := range direct {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for d := range direct[p] {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(pkg)
		m[pkg] = []string{}
		for d := range seen {
			m[pkg] = append(m[pkg], d)
		}
		slices.Sort(m[pkg])
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
			// testsys imports "testing", oldtools writes the earlier
			// tools' files for fixtures, fences reads renderings and
			// transcript/expect compares digests for tests: only tests
			// may use them.
			if d == "internal/testsys" || d == "internal/legacy/oldtools" || d == "internal/fences" || d == "internal/transcript/expect" {
				t.Errorf("%s depends on %s outside its tests: it is for tests only", pkg, d)
			}
		}
	}
	// Leaf packages that import nothing of ours may be used by every
	// package, the lowest ones included.
	leaves := []string{"internal/untrusted", "internal/sqlitefile"}
	for _, leaf := range leaves {
		if ds := m[leaf]; len(ds) > 0 {
			t.Errorf("%s depends on %v: a leaf imports nothing of ours", leaf, ds)
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
				if slices.Contains(leaves, d) {
					continue
				}
				if bad == "" || d == bad || strings.HasPrefix(d, bad+"/") {
					t.Errorf("%s depends on %s: %s", r.pkg, d, r.because)
				}
			}
		}
	}
}
