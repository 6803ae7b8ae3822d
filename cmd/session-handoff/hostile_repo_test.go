package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Inputs of the hostile campaign that are repositories (issue 16, class 1):
// the project the commands read is a git worktree whose configuration,
// attributes or hooks name a program, one mechanism per input so that no
// mechanism hides behind another. The program appends to a marker file;
// save, resume and the session-start hook read the worktree's git state,
// and the marker must never appear. internal/capture's
// TestHostileRepositoryRunsNoProgram holds the same promise for all the
// mechanisms at once, below the CLI.

// repoMechanism is one way a repository can name a program git would run.
type repoMechanism struct {
	name string
	// config lines for .git/config; {prog} is the program (run by a
	// shell, with the mechanism's name as its argument; {quick} is one
	// that does not read its input).
	config []string
	// attributes for .gitattributes (the files "dirty.txt" and "conv.txt"
	// exist, committed, then made stat-dirty with the same bytes).
	attributes []string
	// hook, when set, is installed under that name in .git/hooks.
	hook string
	// include, when set, is a file of configuration an include names.
	include string
	// control is a git command that, run plainly (without our
	// hardening) after the campaign's runs, does run the program: proof
	// that the input was armed. None for packObjectsHook, which git
	// honours only from protected (not repository) configuration, and for
	// the pager, which git starts only when its output is a terminal (ours
	// never is): those inputs hold that we never rely on either.
	control []string
}

func repoMechanisms() []repoMechanism {
	return []repoMechanism{
		{name: "filter-clean", config: []string{`[filter "evil"]`, "\tclean = {prog} filter.clean", "\tsmudge = cat"}, attributes: []string{"dirty.txt filter=evil"}, control: []string{"status"}},
		{name: "filter-process", config: []string{`[filter "proc"]`, "\tprocess = {prog} filter.process"}, attributes: []string{"dirty.txt filter=proc"}, control: []string{"status"}},
		{name: "filter-required", config: []string{`[filter "req"]`, "\tclean = {prog} filter.required", "\trequired = true"}, attributes: []string{"* filter=req"}, control: []string{"status"}},
		{name: "core-fsmonitor", config: []string{"[core]", "\tfsmonitor = {prog} core.fsmonitor"}, control: []string{"status"}},
		{name: "diff-external", config: []string{"[diff]", "\texternal = {prog} diff.external"}, control: []string{"diff"}},
		{name: "diff-textconv", config: []string{`[diff "conv"]`, "\ttextconv = {prog} diff.textconv"}, attributes: []string{"conv.txt diff=conv"}, control: []string{"diff"}},
		{name: "diff-driver-command", config: []string{`[diff "cmd"]`, "\tcommand = {prog} diff.command"}, attributes: []string{"conv.txt diff=cmd"}, control: []string{"diff"}},
		{name: "core-pager", config: []string{"[core]", "\tpager = {prog} core.pager", "[pager]", "\tstatus = {prog} pager.status", "\tdiff = {prog} pager.diff", "\tlog = {prog} pager.log"}},
		{name: "core-sshCommand", config: []string{"[core]", "\tsshCommand = {quick} core.sshCommand"}, control: []string{"ls-remote", "ssh://example.invalid/x"}},
		{name: "core-hooksPath", config: []string{"[core]", "\thooksPath = {hooks}"}, control: []string{"update-index", "--refresh"}},
		{name: "git-hooks-post-index-change", hook: "post-index-change", control: []string{"update-index", "--refresh"}},
		{name: "include-path", config: []string{"[include]", "\tpath = {include}"}, include: "[core]\n\tfsmonitor = {prog} include.path\n", control: []string{"status"}},
		{name: "includeIf-gitdir", config: []string{`[includeIf "gitdir:{gitdir}"]`, "\tpath = {include}"}, include: "[filter \"inc\"]\n\tclean = {prog} includeIf\n", attributes: []string{"dirty.txt filter=inc"}, control: []string{"status"}},
		{name: "uploadpack-packObjectsHook", config: []string{"[uploadpack]", "\tpackObjectsHook = {prog} uploadpack.packObjectsHook"}},
	}
}

// timeAhead is a fixed modification time unlike any the index recorded.
func timeAhead() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) }

func gitRun(dir string, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// placeHostileRepo makes e.project a repository armed with m; the marker
// is e.root/ran. layout, when set, first lays the repository out another
// way (see repoLayouts).
func placeHostileRepo(m repoMechanism, layout func(e *hostileEnv) error) func(e *hostileEnv) error {
	return func(e *hostileEnv) error {
		if layout != nil {
			if err := layout(e); err != nil {
				return err
			}
		}
		marker := filepath.Join(e.root, "ran")
		prog := filepath.Join(e.root, "prog.sh")
		script := "#!/bin/sh\necho \"$1\" >> '" + marker + "'\ncat 2>/dev/null\nexit 0\n"
		if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
			return err
		}
		// ssh talks both ways: a fake ssh that read its input would wait
		// for git for ever.
		quick := filepath.Join(e.root, "quick.sh")
		if err := os.WriteFile(quick, []byte("#!/bin/sh\necho \"$1\" >> '"+marker+"'\nexit 1\n"), 0o755); err != nil {
			return err
		}
		hooks := filepath.Join(e.root, "hooks")
		if err := os.MkdirAll(hooks, 0o700); err != nil {
			return err
		}
		hookScript := "#!/bin/sh\necho hook >> '" + marker + "'\n"
		for _, h := range []string{"post-index-change", "reference-transaction", "post-checkout", "fsmonitor-watchman"} {
			if err := os.WriteFile(filepath.Join(hooks, h), []byte(hookScript), 0o755); err != nil {
				return err
			}
		}
		for _, f := range []string{"dirty.txt", "conv.txt"} {
			if err := os.WriteFile(filepath.Join(e.project, f), []byte("same bytes "+f+"\n"), 0o644); err != nil {
				return err
			}
		}
		if err := gitRun(e.project, "add", "dirty.txt", "conv.txt"); err != nil {
			return err
		}
		if err := gitRun(e.project, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files"); err != nil {
			return err
		}
		if err := armRepo(e, m, prog, quick, hooks); err != nil {
			return err
		}
		// Stat-dirty: the same bytes, a new mtime, so git must look again.
		for _, f := range []string{"dirty.txt", "conv.txt"} {
			p := filepath.Join(e.project, f)
			if err := os.WriteFile(p, []byte("same bytes "+f+"\n"), 0o644); err != nil {
				return err
			}
			if err := os.Chtimes(p, timeAhead(), timeAhead()); err != nil {
				return err
			}
		}
		// One real change, so that diffs have work.
		return os.WriteFile(filepath.Join(e.project, "conv.txt"), []byte("changed\n"), 0o644)
	}
}

// armRepo writes m's configuration, attributes, include file and hook,
// into the git directory git itself uses for e.project.
func armRepo(e *hostileEnv, m repoMechanism, prog, quick, hooks string) error {
	cmd := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir")
	cmd.Dir = e.project
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git rev-parse --git-common-dir: %v", err)
	}
	gitDir := strings.TrimSpace(string(out))
	// includeIf matches the real path of the repository.
	real, err := filepath.EvalSymlinks(e.project)
	if err != nil {
		return err
	}
	include := filepath.Join(e.root, "included.conf")
	r := strings.NewReplacer("{prog}", prog, "{quick}", quick, "{hooks}", hooks, "{include}", include, "{gitdir}", real+"/")
	if m.include != "" {
		if err := os.WriteFile(include, []byte(r.Replace(m.include)), 0o600); err != nil {
			return err
		}
	}
	if len(m.config) > 0 {
		f, err := os.OpenFile(filepath.Join(gitDir, "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, werr := f.WriteString(r.Replace(strings.Join(m.config, "\n")) + "\n")
		if err := errors.Join(werr, f.Close()); err != nil {
			return err
		}
	}
	if len(m.attributes) > 0 {
		if err := os.WriteFile(filepath.Join(e.project, ".gitattributes"), []byte(strings.Join(m.attributes, "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	if m.hook != "" {
		data, err := os.ReadFile(filepath.Join(hooks, m.hook))
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(gitDir, "hooks", m.hook), data, 0o755)
	}
	return nil
}

// noMarker checks that no program of the repository ran.
func noMarker(e *hostileEnv, _ cliResult) error {
	if data, err := os.ReadFile(filepath.Join(e.root, "ran")); err == nil {
		return fmt.Errorf("the repository ran a program: %q", strings.TrimSpace(string(data)))
	}
	return nil
}

// repoLayouts are repositories laid out so that a path's text and the
// disk disagree (issue 28, class 1): git resolves a link before the ".."
// after it, so "link/.." is the parent of wherever link points, while a
// reader that cleans the text reads a decoy. Each arms the git directory
// git really uses (armRepo asks git where it is) and leaves a clean decoy
// where the text points; internal/git's
// TestUntrustedQuickAgreesWithGitOnLayouts generates many more.
func repoLayouts() map[string]func(e *hostileEnv) error {
	return map[string]func(e *hostileEnv) error{
		// .git is a file, "gitdir: s/../gd", and s a link to
		// outside/deeper: git's git directory is outside/gd, the text's
		// project/gd.
		"gitfile-link-dotdot": func(e *hostileEnv) error {
			outside := filepath.Join(e.root, "outside")
			if err := os.MkdirAll(filepath.Join(outside, "deeper"), 0o700); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(e.project, ".git"), filepath.Join(outside, "gd")); err != nil {
				return err
			}
			if err := os.Symlink(filepath.Join(outside, "deeper"), filepath.Join(e.project, "s")); err != nil {
				return err
			}
			if err := cleanGitDir(e, filepath.Join(e.project, "gd")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(e.project, ".git"), []byte("gitdir: s/../gd\n"), 0o644)
		},
		// .git/commondir says "l/../../common", and .git/l is a link to
		// x/y: git's common directory is .git/common (.git/x/y/../..),
		// the text's project/common.
		"commondir-link-dotdot": func(e *hostileEnv) error {
			g := filepath.Join(e.project, ".git")
			orig := filepath.Join(e.root, "orig-git")
			if err := os.Rename(g, orig); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(g, "x", "y"), 0o700); err != nil {
				return err
			}
			if err := os.Rename(orig, filepath.Join(g, "common")); err != nil {
				return err
			}
			for _, f := range []string{"HEAD", "index"} {
				if err := os.Rename(filepath.Join(g, "common", f), filepath.Join(g, f)); err != nil {
					return err
				}
			}
			if err := os.Symlink("x/y", filepath.Join(g, "l")); err != nil {
				return err
			}
			if err := cleanGitDir(e, filepath.Join(e.project, "common")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(g, "commondir"), []byte("l/../../common\n"), 0o644)
		},
		// The project is a linked worktree (git worktree add) of a
		// repository beside it, whose configuration is armed.
		"linked-worktree": func(e *hostileEnv) error {
			main := filepath.Join(e.root, "main")
			if err := os.Mkdir(main, 0o700); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(e.project, ".git"), filepath.Join(main, ".git")); err != nil {
				return err
			}
			wt := filepath.Join(e.root, "wt")
			if err := gitRun(main, "worktree", "add", "-q", "--detach", wt); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(wt, ".git"), filepath.Join(e.project, ".git")); err != nil {
				return err
			}
			return os.RemoveAll(wt)
		},
	}
}

// cleanGitDir makes a git directory with no driver at path: the decoy.
func cleanGitDir(e *hostileEnv, path string) error {
	tmp := filepath.Join(e.root, "decoy")
	if err := gitRun(e.root, "init", "-q", tmp); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(tmp, ".git"), path); err != nil {
		return err
	}
	return os.RemoveAll(tmp)
}

func repoInputs() []hostileInput {
	runs := []hostileRun{
		{args: []string{"save", "--project", "{project}", "--title", "probe", "--next", "n"}, mayChange: []string{"home:data/"},
			outHas: []string{"saved"}, check: noMarker},
		{args: []string{"resume", "--project", "{project}"}, outHas: []string{"probe"}, check: noMarker},
		{args: []string{"hook", "claude-code", "session-start"}, stdin: `{"cwd": "{project}", "hook_event_name": "SessionStart", "session_id": "s1"}`,
			mayChange: []string{"home:data/hooks.log"}, outHas: []string{"additionalContext"}, check: noMarker},
	}
	var out []hostileInput
	for _, m := range repoMechanisms() {
		out = append(out, hostileInput{kind: kindRepos, name: m.name, place: placeHostileRepo(m, nil), after: armed(m), runs: runs})
	}
	// A filter driver .gitattributes applies to every file, in each
	// layout.
	var filter repoMechanism
	for _, m := range repoMechanisms() {
		if m.name == "filter-required" {
			filter = m
		}
	}
	layouts := repoLayouts()
	for _, name := range sortedKeys(layouts) {
		out = append(out, hostileInput{kind: kindRepos, name: name + "/" + filter.name, place: placeHostileRepo(filter, layouts[name]), after: armed(filter), runs: runs})
	}
	return out
}

// armed runs m's control command with plain git and wants the marker: an
// input whose program git itself would not run proves nothing.
func armed(m repoMechanism) func(e *hostileEnv, _ map[string]treeState) error {
	return func(e *hostileEnv, _ map[string]treeState) error {
		if m.control == nil {
			return nil
		}
		cmd := exec.Command("git", m.control...)
		cmd.Dir = e.project
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GIT_PAGER=") && !strings.HasPrefix(kv, "PAGER=") {
				cmd.Env = append(cmd.Env, kv) // the repository's pager, not the caller's
			}
		}
		_ = cmd.Run() // ls-remote fails after the fake ssh; the marker is what counts
		if _, err := os.Stat(filepath.Join(e.root, "ran")); err != nil {
			return fmt.Errorf("control: plain 'git %s' ran no program either: the input is not armed", strings.Join(m.control, " "))
		}
		return nil
	}
}
