package capture

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// SessionRoots names the directories FindSessions reads: a session put
// under each root is found. Each agent's folder lays one out, as under
// its first session root, in testdata/findable.
func TestSessionRootsAreWhereFindSessionsLooks(t *testing.T) {
	home := t.TempDir()
	env := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	trees := findableTrees(t)
	for _, agent := range Agents {
		roots, err := SessionRoots(agent, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(roots) == 0 || !slices.ContainsFunc(roots, func(r string) bool { return filepath.IsAbs(r) }) {
			t.Fatalf("%s: roots %q", agent, roots)
		}
		tree, ok := trees[agent]
		if !ok {
			t.Errorf("%s: its folder has no testdata/findable", agent)
			continue
		}
		p, err := copyTree(tree, roots[0])
		if err != nil {
			t.Fatal(err)
		}
		found, err := FindSessions(agent, env)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || found[0].Path != p {
			t.Errorf("%s: FindSessions found %v, want %s", agent, found, p)
		}
	}
	if _, err := SessionRoots("vim", env); err == nil {
		t.Error("unknown agent: no error")
	}
}

// findableTrees are the agents' testdata/findable directories, by agent
// (a folder is named by the agent's name or one of its aliases).
func findableTrees(t *testing.T) map[Agent]string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "agents", "*", "testdata", "findable"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[Agent]string{}
	for _, d := range dirs {
		a, err := ParseAgent(filepath.Base(filepath.Dir(filepath.Dir(d))))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		out[a] = d
	}
	return out
}

// copyTree copies the one file under tree to the same place under root,
// returning where it went.
func copyTree(tree, root string) (string, error) {
	var dst string
	err := filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(tree, path)
		if err != nil {
			return err
		}
		if dst != "" {
			return fmt.Errorf("%s holds more than one file", tree)
		}
		dst = filepath.Join(root, rel)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	return dst, err
}
