package capture

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// gitAt runs git in dir with the commit dates set to when.
func gitAt(t *testing.T, dir string, when time.Time, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	date := when.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestReconcile(t *testing.T) {
	testsys.LookPath(t, "git")
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	before := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	during := start.Add(time.Hour)
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	gitAt(t, repo, before, "init", "-q", "-b", "main")
	for _, f := range []string{"committed.go", "staged.go", "unstaged.go", "clean.go", "sub/inner.go", "old.go", "deleted.go", "other.go", "staged-other.go"} {
		write(t, filepath.Join(repo, f), "package x\n")
	}
	write(t, filepath.Join(repo, ".gitignore"), ".env\n")
	gitAt(t, repo, before, "add", ".")
	gitAt(t, repo, before, "commit", "-q", "-m", "before the session")
	// During the session: a commit, then changes left in the worktree.
	write(t, filepath.Join(repo, "committed.go"), "package x // changed\n")
	if err := os.Remove(filepath.Join(repo, "deleted.go")); err != nil {
		t.Fatal(err)
	}
	gitAt(t, repo, during, "add", "-A")
	gitAt(t, repo, during, "commit", "-q", "-m", "during the session")
	write(t, filepath.Join(repo, "staged.go"), "package x // staged\n")
	gitAt(t, repo, during, "add", "staged.go")
	write(t, filepath.Join(repo, "unstaged.go"), "package x // unstaged\n")
	gitAt(t, repo, during, "mv", "old.go", "renamed.go")
	write(t, filepath.Join(repo, "new", "made.go"), "package x\n")
	write(t, filepath.Join(repo, ".env"), "SECRET=1\n")
	// Changes the agent did not make.
	write(t, filepath.Join(repo, "other.go"), "package x // by hand\n")
	write(t, filepath.Join(repo, "staged-other.go"), "package x // by hand\n")
	gitAt(t, repo, during, "add", "staged-other.go")
	write(t, filepath.Join(repo, "staged-other.go"), "package x // and again\n")

	st, err := State(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	// The session ran in repo/sub, reached through a link.
	link := filepath.Join(base, "link")
	if err := os.Symlink(repo, link); err != nil {
		testsys.Missing(t, "symbolic links: %v", err)
	}
	cwd := filepath.Join(link, "sub")
	files := []handoff.FileTouched{
		{Path: filepath.Join(repo, "committed.go"), Action: "edited", Edits: 2},
		{Path: "../staged.go", Action: "edited", Edits: 1},
		{Path: filepath.Join(link, "unstaged.go"), Action: "edited", Edits: 1},
		{Path: "inner.go", Action: "edited", Edits: 1},
		{Path: filepath.Join(repo, "clean.go"), Action: "edited", Edits: 1},
		{Path: "../new/made.go", Action: "created", Edits: 1},
		{Path: "../.env", Action: "created", Edits: 1},
		{Path: "../old.go", Action: "deleted"},
		{Path: "../deleted.go", Action: "deleted"},
		{Path: "/etc/hosts", Action: "edited", Edits: 1},
		{Path: "../../outside.txt", Action: "created", Edits: 1},
		{Path: filepath.Join(repo, "sub", "inner.go"), Action: "edited", Edits: 3},
	}
	orig := slices.Clone(files)
	got, err := ReconcileWithGit(context.Background(), files, st, cwd, start)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(files, orig) {
		t.Error("the input was modified")
	}
	// inner.go is touched as sub/inner.go by two paths, merged; clean.go
	// was edited back to what is committed.
	want := []handoff.FileTouched{
		{Path: "committed.go", Action: "edited", Edits: 2, Git: GitCommitted},
		{Path: "staged.go", Action: "edited", Edits: 1, Git: GitDirty},
		{Path: "unstaged.go", Action: "edited", Edits: 1, Git: GitDirty},
		{Path: "sub/inner.go", Action: "edited", Edits: 4, Git: GitClean},
		{Path: "clean.go", Action: "edited", Edits: 1, Git: GitClean},
		{Path: "new/made.go", Action: "created", Edits: 1, Git: GitUntracked},
		{Path: ".env", Action: "created", Edits: 1, Git: ""}, // ignored
		{Path: "old.go", Action: "deleted", Git: GitDirty},   // renamed, staged
		{Path: "deleted.go", Action: "deleted", Git: GitCommitted},
		{Path: "/etc/hosts", Action: "edited", Edits: 1, Git: ""},
		{Path: "../../outside.txt", Action: "created", Edits: 1, Git: ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("reconciled:\n got %+v\nwant %+v", got, want)
	}
	wantDirty := []handoff.FileStatus{{Path: "staged-other.go", Status: "M"}, {Path: "other.go", Status: "M"}}
	if u := UntouchedDirty(got, st); !slices.Equal(u, wantDirty) {
		t.Errorf("untouched dirty %+v, want %+v", u, wantDirty)
	}

	// Without history every tracked-looking path that is not dirty or
	// untracked reads as clean.
	plain := Reconcile(files[:1], st, cwd, nil)
	if plain[0].Git != GitClean || plain[0].Path != "committed.go" {
		t.Errorf("without history: %+v", plain)
	}
	// A session that started after every commit saw none.
	later, err := ReconcileWithGit(context.Background(), files[:1], st, cwd, time.Now().Add(time.Hour))
	if err != nil || later[0].Git != GitClean {
		t.Errorf("later session: %+v %v", later, err)
	}
	changed, truncated, err := ChangedSince(context.Background(), repo, start)
	slices.Sort(changed)
	if err != nil || truncated || !slices.Equal(changed, []string{"committed.go", "deleted.go"}) {
		t.Errorf("changed since: %q %v %v", changed, truncated, err)
	}
}

func TestReconcilePaths(t *testing.T) {
	st := &handoff.GitState{Root: "/r/repo", Untracked: []string{"gen/", "n.txt"}}
	for _, tc := range []struct {
		cwd, in, out string
		inside       bool
	}{
		{"/r/repo", "a.go", "a.go", true},
		{"/r/repo/x", "a.go", "x/a.go", true},
		{"/r/repo/x", "../a.go", "a.go", true},
		{"/r/repo/x", "../../a.go", "", false},
		{"", "a/b.go", "a/b.go", true},
		{"/elsewhere", "a.go", "", false},
		{"/elsewhere", "/r/repo/gen/z.go", "gen/z.go", true},
		{"/r/repo", "/r/repository/a.go", "", false},
		{"/r/repo", "/r/repo", "", false},
		{"/r/repo", `a\b.go`, "", runtime.GOOS == "windows"},
	} {
		n := newPathNorm(st.Root, tc.cwd)
		out, inside := n.rel(tc.in)
		if runtime.GOOS == "windows" {
			continue
		}
		if out != tc.out || inside != tc.inside {
			t.Errorf("cwd %q path %q: %q %v, want %q %v", tc.cwd, tc.in, out, inside, tc.out, tc.inside)
		}
	}
	got := Reconcile([]handoff.FileTouched{{Path: "/r/repo/gen/z.go"}, {Path: "n.txt"}, {Path: "n.txt/x"}}, st, "/r/repo", nil)
	if got[0].Git != GitUntracked || got[1].Git != GitUntracked || got[2].Git != GitClean {
		t.Errorf("untracked: %+v", got)
	}
	if got := Reconcile([]handoff.FileTouched{{Path: "a"}}, nil, "", nil); got[0].Git != "" {
		t.Errorf("no git state: %+v", got)
	}
}

// A file the session created and that is gone (git knows nothing of it,
// and the worktree has no such file) is not reported; one that exists but
// git ignores stays, and so does a deletion.
func TestDropVanished(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "ignored.log"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := []handoff.FileTouched{
		{Path: "gone.tmp", Action: "created", Edits: 1},
		{Path: "ignored.log", Action: "created", Edits: 1},
		{Path: "new.go", Action: "created", Edits: 1, Git: GitUntracked},
		{Path: "old.go", Action: "deleted"},
		{Path: "../outside.txt", Action: "created", Edits: 1},
	}
	got := dropVanished(files, root)
	var paths []string
	for _, f := range got {
		paths = append(paths, f.Path)
	}
	if want := []string{"ignored.log", "new.go", "old.go", "../outside.txt"}; !slices.Equal(paths, want) {
		t.Errorf("kept %q, want %q", paths, want)
	}
}
