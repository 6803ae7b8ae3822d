package proc

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// callSites is every place session-handoff starts another program, and
// how: Command (waited for, bound to a context, its group killed at the
// deadline) or Detached (started by a hook and never waited for). A new
// one must be listed here (TestEveryProgramStartIsListed), so that it is
// decided which it is.
var callSites = []struct{ file, how, what string }{
	{"internal/git/git.go", "Command", "every git call (internal/git.Runner)"},
	{"internal/handover/steps.go", "Command", "a handover.toml exec step, under its timeout"},
	{"internal/doctor/doctor.go", "Command", "git --version"},
	{"internal/native/version.go", "Command", "the installed target agent's --version, before launch --native writes its session"},
	{"cmd/session-handoff/demo.go", "Command", "the demo's git init, add and commit"},
	{"cmd/session-handoff/hookcmd.go", "Detached", "Copilot CLI's late capture, and the handover run a session end starts"},
	{"cmd/session-handoff/synccmd.go", "Detached", "the sync push or pull a hook starts"},
	{"cmd/session-handoff/searchcmd.go", "Detached", "the search index's update a hook starts"},
}

// TestEveryProgramStartIsListed scans the module's source: every program
// it starts goes through this package, at a place callSites lists, and
// nothing else calls os/exec's Command (tests, the real-agent suite and
// the benchmarks aside).
func TestEveryProgramStartIsListed(t *testing.T) {
	root := filepath.Join("..", "..")
	use := regexp.MustCompile(`\bproc\.(Command|Detached)\(`)
	raw := regexp.MustCompile(`\bexec\.(Command|CommandContext)\(|\bexec\.Cmd\{`)
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || rel == "internal/e2e" || rel == "bench" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "internal/proc/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if raw.Match(src) {
			t.Errorf("%s starts a program with os/exec: use internal/proc (Command or Detached) and list it in callSites", rel)
		}
		for _, m := range use.FindAllSubmatch(src, -1) {
			if !slices.Contains(found[rel], string(m[1])) {
				found[rel] = append(found[rel], string(m[1]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, c := range callSites {
		listed[c.file+" "+c.how] = true
		if !slices.Contains(found[c.file], c.how) {
			t.Errorf("callSites lists %s (%s) in %s, which no longer does it", c.how, c.what, c.file)
		}
	}
	for file, hows := range found {
		for _, how := range hows {
			if !listed[file+" "+how] {
				t.Errorf("%s starts a program with proc.%s: list it in callSites", file, how)
			}
		}
	}
}
