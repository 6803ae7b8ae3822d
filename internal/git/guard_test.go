package git

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// trustedFiles are the files that run git with a Runner of their own,
// not the untrusted one, and why; every other file that runs git reads
// or writes a worktree session-handoff did not create (capture, changes,
// render) and does it only through Untrusted.
var trustedFiles = map[string]string{
	// internal/remote's private clone, which session-handoff creates
	// itself (no template, its own hooks directory, its own
	// configuration); the remote's rules are internal/remote's.
	"internal/remote/clone.go":   "the private clone",
	"internal/remote/refs.go":    "the private clone",
	"internal/remote/send.go":    "the private clone",
	"internal/remote/view.go":    "the private clone",
	"internal/remote/migrate.go": "the private clone",
	// handover's publish step commits and pushes the user's memory
	// directory in their own project at their request, as their own git
	// commit and push would (their hooks, signing, credential helper).
	"internal/handover/steps.go": "the user's own publish step",
}

// guardTable lists every git subcommand session-handoff runs and the
// files that run it (trustedFiles says which do it without Untrusted).
// Each row's runs are run on an armed
// repository through the untrusted Runner, which must start none of the
// armed programs; armed names a marker a plain git run of the same row
// leaves, which shows the row is armed. TestEveryGitCallIsListed fails
// when a call site is missing here, or a row names a file that no longer
// runs it.
var guardTable = []struct {
	sub   string
	files []string
	runs  [][]string
	armed string
}{
	{"add", []string{"internal/changes/apply.go", "internal/changes/make.go", "internal/handover/steps.go"},
		[][]string{{"add", "--", "f.txt"}, {"add", "--intent-to-add", "--", "new.txt"}}, "filter"},
	{"apply", []string{"internal/changes/apply.go"},
		[][]string{{"apply", "--check", "@PATCH"}, {"add", "--", "f.txt"}, {"apply", "--3way", "--whitespace=nowarn", "@PATCH"}}, "merge"},
	{"branch", []string{"internal/changes/journal.go"},
		[][]string{{"branch", "-D", "--end-of-options", "other"}}, "reference-transaction"},
	{"cat-file", []string{"internal/changes/apply.go", "internal/remote/view.go"},
		[][]string{{"cat-file", "-e", "--end-of-options", "HEAD^{commit}"}}, ""},
	{"check-ref-format", []string{"internal/changes/apply.go"},
		[][]string{{"check-ref-format", "--branch", "x"}}, ""},
	{"commit", []string{"internal/handover/steps.go"},
		[][]string{{"commit", "--quiet", "-m", "m", "--", "f.txt"}}, "pre-commit"},
	{"commit-tree", []string{"internal/remote/refs.go"},
		[][]string{{"commit-tree", "--no-gpg-sign", "-m", "m", "HEAD^{tree}"}}, ""},
	{"config", []string{"internal/capture/git.go", "internal/git/untrusted.go", "internal/remote/clone.go"},
		[][]string{{"config", "--null", "--name-only", "--get-regexp", `^core\.`}}, ""},
	{"diff", []string{"internal/capture/since.go", "internal/changes/apply.go", "internal/changes/make.go"},
		[][]string{{"diff", "--name-only", "-z", "--diff-filter=U"}, {"diff", "--binary", "HEAD", "--"}, {"diff", "HEAD~1"}}, "diff-command"},
	{"fetch", []string{"internal/remote/refs.go"},
		[][]string{{"fetch", "origin"}}, "ssh"},
	{"for-each-ref", []string{"internal/remote/refs.go"},
		[][]string{{"for-each-ref", "--format=%(objectname) %(refname)"}}, ""},
	{"gc", []string{"internal/remote/migrate.go"},
		[][]string{{"gc", "--quiet", "--prune=now"}}, ""},
	{"hash-object", []string{"internal/remote/migrate.go", "internal/remote/send.go"},
		[][]string{{"hash-object", "-w", "--no-filters", "--", "f.txt"}, {"hash-object", "--", "f.txt"}}, "filter"},
	{"init", []string{"internal/remote/clone.go"},
		[][]string{{"init", "--quiet", "--template="}}, ""},
	{"log", []string{"internal/capture/git.go", "internal/capture/reconcile.go", "internal/capture/since.go"},
		[][]string{{"log", "-p", "-2"}}, "textconv"},
	{"ls-files", []string{"internal/capture/reconcile.go", "internal/changes/make.go", "internal/git/tracked.go"},
		[][]string{{"ls-files", "-z", "--others", "--exclude-standard"}, {"ls-files", "-z", "--cached", "--", "f.txt"}}, ""},
	{"ls-remote", []string{"internal/remote/refs.go"},
		[][]string{{"ls-remote", "--refs", "origin"}}, "ssh"},
	{"ls-tree", []string{"internal/changes/disk.go", "internal/remote/clone.go", "internal/remote/refs.go"},
		[][]string{{"ls-tree", "-z", "--full-tree", "HEAD"}}, ""},
	{"mktree", []string{"internal/remote/refs.go"},
		[][]string{{"mktree", "-z"}}, ""},
	{"push", []string{"internal/handover/steps.go", "internal/remote/refs.go"},
		[][]string{{"push", "origin", "HEAD:refs/heads/x"}}, "ssh"},
	{"read-tree", []string{"internal/changes/apply.go"},
		[][]string{{"read-tree", "--end-of-options", "HEAD"}}, ""},
	{"reflog", []string{"internal/remote/migrate.go"},
		[][]string{{"reflog", "expire", "--expire=now", "--all"}}, ""},
	{"remote", []string{"internal/capture/git.go", "internal/handover/steps.go"},
		[][]string{{"remote"}, {"remote", "get-url", "--", "origin"}}, ""},
	{"reset", []string{"internal/changes/journal.go"},
		[][]string{{"reset", "-q", "--hard", "HEAD"}}, "filter"},
	{"restore", []string{"internal/remote/clone.go"},
		[][]string{{"restore", "--source=HEAD~1", "--worktree", "--", "f.txt"}}, "filter"},
	{"rev-list", []string{"internal/capture/git.go", "internal/capture/since.go"},
		[][]string{{"rev-list", "--max-parents=0", "HEAD", "--"}, {"rev-list", "--count", "HEAD"}}, ""},
	{"rev-parse", []string{"internal/capture/git.go", "internal/changes/apply.go", "internal/changes/journal.go",
		"internal/changes/make.go", "internal/git/exclude.go", "internal/handover/steps.go"},
		[][]string{{"rev-parse", "--show-toplevel", "--git-common-dir"}, {"rev-parse", "--verify", "-q", "HEAD^{commit}"}}, ""},
	{"stash", []string{"internal/changes/apply.go", "internal/changes/journal.go"},
		[][]string{{"stash", "create", "m"}, {"reset", "-q", "--hard"}, {"stash", "apply", "--index", "stash@{0}"}}, "merge"},
	{"status", []string{"internal/capture/git.go", "internal/changes/apply.go", "internal/handover/steps.go"},
		[][]string{{"status", "--porcelain=v1", "-z", "--untracked-files=all"}}, "fsmonitor"},
	{"switch", []string{"internal/changes/apply.go", "internal/changes/journal.go"},
		[][]string{{"switch", "--no-guess", "-c", "nb", "--end-of-options", "HEAD"}, {"switch", "-f", "--no-guess", "other"}}, "post-checkout"},
	{"symbolic-ref", []string{"internal/changes/apply.go", "internal/changes/journal.go", "internal/changes/make.go",
		"internal/handover/steps.go"},
		[][]string{{"symbolic-ref", "-q", "HEAD"}}, ""},
	{"update-ref", []string{"internal/remote/refs.go"},
		[][]string{{"update-ref", "refs/heads/y", "HEAD"}}, "reference-transaction"},
}

// execAllowed are the files that start git themselves, outside this
// package, and why.
var execAllowed = map[string]string{
	"cmd/session-handoff/demo.go": "the demo's own repository, made in a temporary directory",
	"bench/genstore/main.go":      "a benchmark's generator, not part of the tool",
}

// notGit are files whose string lists callSites takes for git's
// arguments and are not, with what they are.
var notGit = map[string]string{
	"internal/handover/config.go": "the fields of each step kind",
}

// TestEveryGitCallIsListed: every git subcommand the source names is a
// row of guardTable, with the file that names it; every row is still
// named by each file it lists; and only execAllowed start git without a
// Runner.
func TestEveryGitCallIsListed(t *testing.T) {
	sites, execs := callSites(t)
	listed := map[string]map[string]bool{}
	for _, row := range guardTable {
		listed[row.sub] = map[string]bool{}
		for _, f := range row.files {
			listed[row.sub][f] = true
		}
	}
	found := map[[2]string]bool{}
	for _, s := range sites {
		if notGit[s.file] != "" {
			continue
		}
		found[[2]string{s.sub, s.file}] = true
		if !listed[s.sub][s.file] {
			t.Errorf("%s:%d runs git %s, which guardTable does not list for that file: add it, and say how it is guarded", s.file, s.line, s.sub)
		}
	}
	for _, row := range guardTable {
		for _, f := range row.files {
			if !found[[2]string{row.sub, f}] {
				t.Errorf("guardTable lists git %s for %s, which no longer runs it", row.sub, f)
			}
		}
	}
	for _, e := range execs {
		if execAllowed[e.file] == "" {
			t.Errorf("%s:%d starts git itself: run it through internal/git", e.file, e.line)
		}
	}
}

// TestWorktreeRunnersAreUntrusted: outside the private clone and the
// publish step, every Runner the source makes is made untrusted at once
// (Runner{…}.Untrusted, UntrustedQuick or UntrustedBeside).
func TestWorktreeRunnersAreUntrusted(t *testing.T) {
	root, err := filepath.Abs("../..")
	testsys.Check(t, err)
	fset := token.NewFileSet()
	var files []string
	for _, dir := range []string{"internal", "cmd"} {
		testsys.Check(t, filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				files = append(files, path)
			}
			return err
		}))
	}
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, 0)
		testsys.Check(t, err)
		made := map[*ast.CompositeLit]bool{} // literals made untrusted at once
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Untrusted") {
				x := sel.X
				if p, ok := x.(*ast.ParenExpr); ok {
					x = p.X
				}
				if lit, ok := x.(*ast.CompositeLit); ok {
					made[lit] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok || !isRunnerType(lit.Type, strings.HasPrefix(rel, "internal/git/")) || made[lit] || len(lit.Elts) == 0 {
				return true
			}
			if trustedFiles[rel] == "" {
				t.Errorf("%s:%d makes a git Runner that is not untrusted: a worktree is read and written only through Untrusted", rel, fset.Position(lit.Pos()).Line)
			}
			return true
		})
	}
}

func isRunnerType(e ast.Expr, inPackage bool) bool {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && x.Name == "git" && e.Sel.Name == "Runner"
	case *ast.Ident:
		return inPackage && e.Name == "Runner"
	}
	return false
}

// armedRepo makes a repository in which every mechanism git has for
// running a program of the repository's choosing is armed: each writes
// a file named after itself into marks. It holds two commits, a branch
// "other" at the first, a stash entry that conflicts with the second, a
// staged local change (stat-dirty in the worktree), a remote reached
// over ssh, and a patch (written to patch) that conflicts with the local
// change.
func armedRepo(t *testing.T) (repo, marks, patch string) {
	t.Helper()
	testsys.LookPath(t, "git")
	base := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo, marks, patch = filepath.Join(base, "repo"), filepath.Join(base, "marks"), filepath.Join(base, "p.patch")
	testsys.Check(t, os.Mkdir(marks, 0o700))
	gitIn(t, base, "init", "-q", "-b", "main", repo)
	w := func(name, text string) {
		testsys.Check(t, os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644))
	}
	w("f.txt", "a\nb\nc\n")
	w(".gitattributes", "* filter=arm diff=arm merge=arm\n")
	gitIn(t, repo, "add", ".")
	gitIn(t, repo, "commit", "-q", "-m", "one")
	gitIn(t, repo, "branch", "other")
	w("f.txt", "P\nb\nc\n")
	patchText := gitIn(t, repo, "diff", "--full-index")
	testsys.Check(t, os.WriteFile(patch, []byte(patchText+"\n"), 0o600))
	w("f.txt", "S\nb\nc\n")
	gitIn(t, repo, "stash", "-q")
	w("f.txt", "H\nb\nc\n")
	gitIn(t, repo, "commit", "-q", "-am", "two")
	w("f.txt", "L\nb\nc\n")
	w("new.txt", "new\n")
	gitIn(t, repo, "add", "f.txt")
	// Stat-dirty: hashing it again is what runs a clean filter.
	later := time.Now().Add(time.Hour)
	testsys.Check(t, os.Chtimes(filepath.Join(repo, "f.txt"), later, later))

	mark := func(name string) string { return "touch '" + filepath.Join(marks, name) + "'" }
	script := func(name, body string) string {
		p := filepath.Join(base, "bin", name)
		testsys.Check(t, os.MkdirAll(filepath.Dir(p), 0o755))
		testsys.Check(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
		return p
	}
	hooks := filepath.Join(base, "hooks")
	for _, h := range []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "post-checkout",
		"post-merge", "pre-push", "post-rewrite", "reference-transaction", "post-index-change", "pre-auto-gc",
		"pre-applypatch", "post-applypatch", "applypatch-msg", "fsmonitor-watchman"} {
		p := filepath.Join(hooks, h)
		testsys.Check(t, os.MkdirAll(hooks, 0o755))
		testsys.Check(t, os.WriteFile(p, []byte("#!/bin/sh\n"+mark(h)+"\ncat >/dev/null\nexit 0\n"), 0o755))
		testsys.Check(t, os.WriteFile(filepath.Join(repo, ".git", "hooks", h), []byte("#!/bin/sh\n"+mark(h)+"\nexit 0\n"), 0o755))
	}
	testsys.Check(t, os.WriteFile(filepath.Join(repo, ".git", "info", "attributes"), []byte("* filter=arm diff=arm merge=arm\n"), 0o644))
	for _, kv := range [][2]string{
		{"user.name", "T"}, {"user.email", "t@e"},
		{"filter.arm.clean", mark("filter") + "; cat"},
		{"filter.arm.smudge", mark("filter") + "; cat"},
		{"diff.arm.textconv", script("textconv", mark("textconv")+"; cat \"$1\"")},
		{"diff.arm.command", script("diffcmd", mark("diff-command"))},
		{"diff.external", script("external", mark("external-diff"))},
		{"merge.arm.driver", mark("merge") + "; false"},
		{"merge.default", "arm"},
		{"core.fsmonitor", script("fsmonitor", mark("fsmonitor"))},
		{"core.hooksPath", hooks},
		{"core.pager", mark("pager") + "; cat"},
		{"core.editor", mark("editor")},
		{"sequence.editor", mark("editor")},
		{"core.askPass", script("askpass", mark("askpass"))},
		{"core.sshCommand", mark("ssh") + "; false"},
		{"credential.helper", "!" + mark("credential")},
		{"gpg.program", script("gpg", mark("gpg")+"; exit 1")},
		{"commit.gpgSign", "true"},
		{"log.showSignature", "true"},
		{"submodule.recurse", "true"},
		{"status.submoduleSummary", "true"},
		{"remote.origin.url", "ssh://example.invalid/r.git"},
		{"remote.origin.uploadpack", mark("uploadpack")},
		{"remote.origin.receivepack", mark("receivepack")},
		{"protocol.allow", "always"},
		// Git 2.54 and later run configured hooks whatever
		// core.hooksPath says; an older git reads none of these.
		{"hook.armed.command", mark("config-hook")},
		{"hook.armed.event", "post-checkout"},
		{"hook.armed2.command", mark("config-hook")},
		{"hook.armed2.event", "reference-transaction"},
	} {
		// One section per setting (git reads repeated sections as one),
		// written as text: forty git config calls are most of a row's time.
		name, key := kv[0][:strings.LastIndexByte(kv[0], '.')], kv[0][strings.LastIndexByte(kv[0], '.')+1:]
		section, sub, hasSub := strings.Cut(name, ".")
		if hasSub {
			section += " \"" + sub + "\""
		}
		appendFile(t, filepath.Join(repo, ".git", "config"), "["+section+"]\n\t"+key+" = \""+kv[1]+"\"\n")
	}
	return repo, marks, patch
}

// ran lists the markers in marks, and empties it.
func ran(t *testing.T, marks string) []string {
	t.Helper()
	entries, err := os.ReadDir(marks)
	testsys.Check(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
		testsys.Check(t, os.Remove(filepath.Join(marks, e.Name())))
	}
	sort.Strings(out)
	return out
}

// TestGuardRunsNoProgramOfTheRepository runs every row of guardTable on
// an armed repository through the untrusted Runner: no armed program
// runs. Each row is run by plain git too, whose markers show the row
// arms what its armed column names.
func TestGuardRunsNoProgramOfTheRepository(t *testing.T) {
	ctx := context.Background()
	for _, row := range guardTable {
		t.Run(row.sub, func(t *testing.T) {
			repo, marks, patch := armedRepo(t)
			plain := filepath.Join(filepath.Dir(repo), "plain")
			testsys.Check(t, os.CopyFS(plain, os.DirFS(repo)))
			ran(t, marks)
			g, err := Runner{Dir: repo, Timeout: time.Minute}.Untrusted(ctx)
			testsys.Check(t, err)
			for _, args := range row.runs {
				args = withPatch(args, patch)
				_, err := g.Run(ctx, args...)
				if got := ran(t, marks); len(got) > 0 {
					t.Errorf("git %q through the untrusted Runner ran %v (%v)", args, got, err)
				}
			}
			if row.armed == "" {
				return
			}
			var seen []string
			for _, args := range row.runs {
				cmd := exec.Command("git", append([]string{"-C", plain}, withPatch(args, patch)...)...)
				cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
				cmd.Stdin = strings.NewReader("")
				cmd.Run()
				seen = append(seen, ran(t, marks)...)
			}
			if !slices.Contains(seen, row.armed) {
				t.Errorf("plain git of this row ran %v, not %s: the row is not armed", seen, row.armed)
			}
		})
	}
}

func withPatch(args []string, patch string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		if a == "@PATCH" {
			out[i] = patch
		}
	}
	return out
}

// TestUntrustedTurnsOffConfiguredHooks: a hook the configuration names
// (git 2.54 and later run it whatever core.hooksPath says) is turned off
// by its name, dots and all; the git here may be older than the feature,
// so the option itself is what is checked.
func TestUntrustedTurnsOffConfiguredHooks(t *testing.T) {
	repo, _ := quickRepo(t)
	appendFile(t, filepath.Join(repo, ".git", "config"), "[hook \"lint.v2\"]\n\tcommand = x\n\tevent = post-checkout\n")
	if _, _, ok := (Runner{Dir: repo}).UntrustedQuick(); ok {
		t.Fatal("the quick read took a configured hook for nothing")
	}
	g, err := Runner{Dir: repo}.Untrusted(context.Background())
	testsys.Check(t, err)
	if !slices.Contains(g.guard, "hook.lint.v2.enabled=false") {
		t.Fatalf("guard %q does not turn the hook off", g.guard)
	}
	if _, err := g.Run(context.Background(), "status"); err != nil {
		t.Fatalf("git refuses the guard: %v", err)
	}
}
