package capture

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// hostileRepo builds a repository whose configuration and attributes name
// a program for every mechanism by which git can run one while reading:
// filter drivers (clean, and process; defined in .git/config, in a file
// include.path names and in one includeIf "gitdir:" names), diff drivers
// (textconv, command), diff.external, core.fsmonitor, core.pager and
// pager.*, core.hooksPath and .git/hooks, core.sshCommand,
// uploadpack.packObjectsHook, and log.showSignature with gpg.program on a
// signed HEAD. Each program appends its name to the returned marker file
// (and passes its input through). Every filtered file is committed
// before its filter exists and then made stat-dirty with the same bytes;
// one other file is really modified.
func hostileRepo(t *testing.T) (repo, marker string) {
	t.Helper()
	repo = sinceRepo(t)
	dir := t.TempDir()
	marker = filepath.Join(dir, "ran")
	prog := filepath.Join(dir, "prog.sh")
	write(t, prog, "#!/bin/sh\necho \"$1\" >> '"+marker+"'\ncat 2>/dev/null\nexit 0\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(name string) string { return prog + " " + name }
	// gpg.program is run without a shell: a script of its own.
	gpg := filepath.Join(dir, "gpg.sh")
	write(t, gpg, "#!/bin/sh\necho gpg.program >> '"+marker+"'\n")
	if err := os.Chmod(gpg, 0o755); err != nil {
		t.Fatal(err)
	}

	for _, f := range []string{"clean.txt", "process.txt", "inc.txt", "cond.txt", "conv.txt", "cmd.txt"} {
		write(t, filepath.Join(repo, f), "same bytes "+f+"\n")
	}
	write(t, filepath.Join(repo, ".gitattributes"), strings.Join([]string{
		"clean.txt filter=evil", "process.txt filter=proc", "inc.txt filter=inc",
		"cond.txt filter=cond", "conv.txt diff=conv", "cmd.txt diff=cmd", ""}, "\n"))
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "files")

	// A commit with a signature, so that log.showSignature has work.
	tree := gitOutput(t, repo, "rev-parse", "HEAD^{tree}")
	parent := gitOutput(t, repo, "rev-parse", "HEAD")
	obj := "tree " + tree + "\nparent " + parent + "\nauthor T <t@example.com> 1700000000 +0000\ncommitter T <t@example.com> 1700000000 +0000\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQ==\n -----END PGP SIGNATURE-----\n\nsigned\n"
	write(t, filepath.Join(dir, "commit"), obj)
	signed := gitOutput(t, repo, "hash-object", "-t", "commit", "-w", filepath.Join(dir, "commit"))
	gitCmd(t, repo, "update-ref", "HEAD", signed)

	inc := filepath.Join(dir, "inc.conf")
	write(t, inc, "[filter \"inc\"]\n\tclean = "+run("include.path")+"\n\tsmudge = cat\n")
	cond := filepath.Join(dir, "cond.conf")
	write(t, cond, "[filter \"cond\"]\n\tclean = "+run("includeIf")+"\n")
	real, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(dir, "hooks")
	for _, h := range []string{"post-index-change", "pre-commit", "post-checkout", "reference-transaction", "fsmonitor-watchman"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\necho hooksPath:"+h+" >> '"+marker+"'\n")
		write(t, filepath.Join(repo, ".git", "hooks", h), "#!/bin/sh\necho hooks:"+h+" >> '"+marker+"'\n")
		for _, p := range []string{filepath.Join(hooks, h), filepath.Join(repo, ".git", "hooks", h)} {
			if err := os.Chmod(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, kv := range [][2]string{
		{"filter.evil.clean", run("filter.clean")},
		{"filter.evil.smudge", run("filter.smudge")},
		{"filter.evil.required", "true"},
		{"filter.proc.process", run("filter.process")},
		{"diff.conv.textconv", run("diff.textconv")},
		{"diff.cmd.command", run("diff.command")},
		{"diff.external", run("diff.external")},
		{"core.fsmonitor", run("core.fsmonitor")},
		{"core.pager", run("core.pager")},
		{"pager.status", run("pager.status")},
		{"pager.log", run("pager.log")},
		{"pager.diff", run("pager.diff")},
		{"core.hooksPath", hooks},
		{"core.sshCommand", run("core.sshCommand")},
		{"uploadpack.packObjectsHook", run("packObjectsHook")},
		{"log.showSignature", "true"},
		{"gpg.program", gpg},
		{"include.path", inc},
		{"includeIf.gitdir:" + real + "/.path", cond},
		{"remote.origin.url", "ssh://example.invalid/r.git"},
	} {
		gitCmd(t, repo, "config", kv[0], kv[1])
	}
	// Stat-dirty, same bytes: git must hash them, through the filter if
	// it has one. And one real change.
	later := time.Now().Add(time.Hour)
	for _, f := range []string{"clean.txt", "process.txt", "inc.txt", "cond.txt", "conv.txt", "cmd.txt"} {
		if err := os.Chtimes(filepath.Join(repo, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(repo, "a.txt"), "changed\n")
	return repo, marker
}

// ran returns what the marker file says ran.
func ran(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile(marker)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHostileRepositoryRunsNoProgram: reading a repository whose
// configuration and attributes name a program for every mechanism git has
// (see hostileRepo) runs none of them, in everything save, capture,
// resume and the session-start hook read: State, Remote, Since, Root,
// ReconcileWithGit (ChangedSince, Tracked). The state is still read
// right: with the filters off, the stat-dirty filtered files hold the
// bytes that were committed, so they are not modified (as git says
// without the filter), and a.txt, really changed, is.
func TestHostileRepositoryRunsNoProgram(t *testing.T) {
	repo, marker := hostileRepo(t)

	// The repository is armed: plain git runs the programs.
	for _, args := range [][]string{{"status"}, {"diff", "HEAD"}, {"log", "-1"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Run() // it may fail too (the process filter speaks no protocol)
	}
	armed := ran(t, marker)
	for _, want := range []string{"filter.clean", "filter.process", "include.path", "includeIf", "core.fsmonitor", "diff.external", "gpg.program", "hooksPath:post-index-change"} {
		if !strings.Contains(armed, want) {
			t.Fatalf("the test repository does not run %s under plain git (ran: %q)", want, armed)
		}
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	st, err := State(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Unstaged) != 1 || st.Unstaged[0] != (handoff.FileStatus{Path: "a.txt", Status: "M"}) || len(st.Staged) != 0 || len(st.Untracked) != 0 {
		t.Errorf("state: staged %+v unstaged %+v untracked %+v; want only a.txt modified", st.Staged, st.Unstaged, st.Untracked)
	}
	if len(st.RecentCommits) == 0 || st.RecentCommits[0].Subject != "signed" {
		t.Errorf("commits: %+v", st.RecentCommits)
	}
	if got := Remote(ctx, repo); got != "ssh://example.invalid/r.git" {
		t.Errorf("remote = %q", got)
	}
	if root, err := Root(ctx, repo); err != nil || root != st.Root {
		t.Errorf("root = %q, %v", root, err)
	}
	then := &handoff.GitState{Root: repo, Head: gitOutput(t, repo, "rev-parse", "HEAD~2"), Branch: "main"}
	d, err := Since(ctx, repo, then)
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, c := range d.Changed {
		changed = append(changed, c.Status+" "+c.Path)
	}
	// Since the first commit: the six files and .gitattributes added, a.txt
	// modified; the filtered ones compared by their raw bytes.
	want := "M a.txt|A .gitattributes|A clean.txt|A cmd.txt|A cond.txt|A conv.txt|A inc.txt|A process.txt"
	got := strings.Join(changed, "|")
	if d.Relation != handoff.DriftAhead || d.NewCommitCount != 2 || !sameSet(got, want) {
		t.Errorf("drift: %s +%d, changed %q; want ahead +2, %q", d.Relation, d.NewCommitCount, got, want)
	}
	files := []handoff.FileTouched{{Path: "clean.txt", Action: "edited"}, {Path: "a.txt", Action: "edited"}}
	if _, err := ReconcileWithGit(ctx, files, st, repo, time.Unix(1600000000, 0)); err != nil {
		t.Fatal(err)
	}
	if got := ran(t, marker); got != "" {
		t.Fatalf("reading the repository ran: %q", got)
	}
}

// sameSet reports whether two |-separated lists hold the same entries.
func sameSet(a, b string) bool {
	x, y := strings.Split(a, "|"), strings.Split(b, "|")
	if len(x) != len(y) {
		return false
	}
	m := map[string]int{}
	for _, s := range x {
		m[s]++
	}
	for _, s := range y {
		if m[s]--; m[s] < 0 {
			return false
		}
	}
	return true
}

// TestUnsafeDriverNameRefused: a driver whose name git's -c cannot carry
// (it holds "=") cannot be switched off, so the worktree is not read.
func TestUnsafeDriverNameRefused(t *testing.T) {
	repo, marker := hostileRepo(t)
	gitCmd(t, repo, "config", "filter.a=b.clean", "x")
	if _, err := State(context.Background(), repo); err == nil || !strings.Contains(err.Error(), "cannot be made safe") {
		t.Fatalf("State = %v, want a refusal", err)
	}
	if got := ran(t, marker); got != "" {
		t.Fatalf("ran: %q", got)
	}
}
