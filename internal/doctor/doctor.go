// Package doctor checks a session-handoff setup: git, the store, keys and
// trust, the agents' session directories and hooks, PAUSE files and
// handover runs. Each check says what it found and, when something is
// wrong, the command that fixes it. Checks only read: nothing is repaired,
// created or changed.
package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/buildinfo"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/handover"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/legacy"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/proc"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// Status is a check's verdict.
type Status string

// The verdicts, from good to bad.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Check is one line of the report.
type Check struct {
	// Name identifies the check: version, git, store, keys, trust,
	// sessions:AGENT, hooks:AGENT, mcp:AGENT, pause, sync, handover,
	// handover-config.
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Detail says what was found, in one line.
	Detail string `json:"detail"`
	// Fix is the command or action that fixes a warning or failure.
	Fix string `json:"fix,omitempty"`
}

// Setup is what to check.
type Setup struct {
	// DataDir is the store's directory.
	DataDir string
	// ConfigDir holds keys, trust, approvals and the global PAUSE file.
	ConfigDir string
	// Project is the project's root directory; "" checks no project.
	Project string
	// ProjectFlag is added to fix commands that act on the project, such
	// as " --project DIR" when the project is not the working directory.
	ProjectFlag string
	// Env looks up environment variables (HOME, where agents keep their
	// sessions); os.Getenv when nil.
	Env func(string) string
	// LookPath finds a program; exec.LookPath when nil.
	LookPath func(string) (string, error)
}

// gitTimeout bounds 'git --version'.
const gitTimeout = 10 * time.Second

// Run runs every check, in a fixed order.
func Run(ctx context.Context, s Setup) []Check {
	if s.Env == nil {
		s.Env = os.Getenv
	}
	if s.LookPath == nil {
		s.LookPath = exec.LookPath
	}
	var out []Check
	out = append(out, checkVersion(), checkGit(ctx, s), checkStore(s), checkKeys(s), checkTrust(s))
	sessions, used := checkSessions(s)
	out = append(out, sessions...)
	out = append(out, checkHooks(s, used)...)
	out = append(out, checkMCP(s)...)
	out = append(out, checkPause(s))
	if c, ok := checkSync(s); ok {
		out = append(out, c)
	}
	if s.Project != "" {
		out = append(out, checkHandover(s))
		if c, ok := checkOlderCheckpoint(s); ok {
			out = append(out, c)
		}
	}
	if c, ok := checkOldStore(s); ok {
		out = append(out, c)
	}
	out = append(out, checkHandoverConfig(s)...)
	for i := range out {
		out[i].Detail = untrusted.OneLine(out[i].Detail, maxLine)
		out[i].Fix = untrusted.OneLine(out[i].Fix, maxLine)
	}
	return out
}

// checkVersion names the running build, so a pasted report says which
// version it came from. It never fails.
func checkVersion() Check {
	return Check{Name: "version", Status: OK, Detail: buildinfo.Get().String()}
}

// Worst is the worst status among checks (OK for none).
func Worst(checks []Check) Status {
	w := OK
	for _, c := range checks {
		switch {
		case c.Status == Fail:
			return Fail
		case c.Status == Warn:
			w = Warn
		}
	}
	return w
}

// maxLine bounds a check's detail and fix, which can quote paths and
// file contents.
const maxLine = 1 << 10

// count says "1 key", "2 keys".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func checkGit(ctx context.Context, s Setup) Check {
	c := Check{Name: "git"}
	path, err := s.LookPath("git")
	if err != nil {
		c.Status, c.Detail = Warn, "git is not on PATH: handoffs get no git state, and remotes and publish steps cannot work"
		c.Fix = "install git"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	out, err := proc.Command(ctx, path, "--version").Output()
	if err = proc.Result(err); err != nil {
		c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("%s --version: %v", path, err), "reinstall git"
		return c
	}
	c.Status, c.Detail = OK, strings.TrimSpace(string(firstLine(out)))
	return c
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

func checkStore(s Setup) Check {
	c := Check{Name: "store"}
	st, err := store.Open(s.DataDir)
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("open store %s: %v", s.DataDir, err)
		c.Fix = "move what is at " + s.DataDir + " aside, or pass --store"
		return c
	}
	// Without repair, Check changes nothing.
	rep, err := st.Check(false)
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, fmt.Sprintf("check store %s: %v", st.Dir(), err), "session-handoff store check"
		return c
	}
	switch {
	case len(rep.Bad) > 0:
		c.Status = Fail
		c.Detail = fmt.Sprintf("%s: %s, first %v", st.Dir(), count(len(rep.Bad), "damaged record"), rep.Bad[0].Err)
		c.Fix = "session-handoff store check, then move the records it names out of the store"
	case rep.IndexWasStale:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s: %s, but the index is stale: %s", st.Dir(), count(rep.Records, "handoff"), rep.IndexProblem)
		c.Fix = "session-handoff store check (rebuilds the index)"
	case rep.PendingFound || rep.TempFound > 0:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s: %s; a crashed writer left files behind", st.Dir(), count(rep.Records, "handoff"))
		c.Fix = "session-handoff store check (cleans up)"
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%s: %s", st.Dir(), count(rep.Records, "handoff"))
	}
	return c
}

func checkKeys(s Setup) Check {
	c := Check{Name: "keys"}
	kr := exchange.Keyring{Dir: s.ConfigDir}
	private := []string{kr.SigningKeyPath(), kr.AgeIdentityPath()}
	var missing []string
	for _, p := range []string{kr.SigningKeyPath(), kr.Files().SigningPublicKey(), kr.AgeIdentityPath()} {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
		}
	}
	switch {
	case len(missing) == 3:
		// Keys are needed only for bundles (export, import, send,
		// receive): capture, memory and handover work without them.
		c.Status, c.Detail, c.Fix = Warn, "no signing key or age identity in "+s.ConfigDir+" (needed only to export, import, send or receive bundles)", "session-handoff keygen"
		return c
	case len(missing) > 0:
		c.Status, c.Detail = Fail, strings.Join(missing, " and ")+" missing"
		c.Fix = "session-handoff keygen --force (a new key: whoever trusts the old one must trust the new one)"
		return c
	}
	for _, p := range private {
		info, err := os.Lstat(p)
		if err != nil {
			c.Status, c.Detail, c.Fix = Fail, err.Error(), "session-handoff keygen --force"
			return c
		}
		if !info.Mode().IsRegular() {
			c.Status, c.Detail = Fail, p+" is not a regular file"
			c.Fix = "replace it with the key file itself"
			return c
		}
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			c.Status, c.Detail = Fail, fmt.Sprintf("%s has mode %04o: other users can read the private key", p, perm)
			c.Fix = "chmod 600 " + shellQuote(p)
			return c
		}
	}
	info, err := kr.Info()
	if err != nil {
		c.Status, c.Detail, c.Fix = Fail, err.Error(), "session-handoff keygen --force"
		return c
	}
	prot := "not passphrase-protected"
	if info.Encrypted {
		prot = "passphrase-protected"
	}
	c.Status = OK
	c.Detail = fmt.Sprintf("signing key %s (%s, %s), age recipient %s", info.Fingerprint, info.Name, prot, info.AgeRecipient)
	return c
}

func checkTrust(s Setup) Check {
	c := Check{Name: "trust"}
	kr := exchange.Keyring{Dir: s.ConfigDir}
	path := kr.TrustPath()
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o022 != 0 {
		c.Status, c.Detail = Fail, fmt.Sprintf("%s has mode %04o: other users could add a key you trust", path, info.Mode().Perm())
		c.Fix = "chmod 644 " + shellQuote(path)
		return c
	}
	ts, err := kr.TrustStore()
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		c.Fix = "correct or delete the line named in " + path + " ('session-handoff trust list' shows the rest)"
		return c
	}
	principals := map[string]bool{}
	keys := map[string]bool{}
	unusable := 0
	for _, e := range ts.Entries() {
		for _, p := range e.Principals {
			principals[p] = true
		}
		keys[e.Fingerprint] = true
		if !e.Usable {
			unusable++
		}
	}
	c.Status = OK
	if len(keys) == 0 {
		c.Detail = "no trusted signers yet (bundles from others verify as untrusted until 'session-handoff trust add')"
		return c
	}
	c.Detail = fmt.Sprintf("%s: %s, %s", path, count(len(principals), "principal"), count(len(keys), "key"))
	if unusable > 0 {
		c.Detail += fmt.Sprintf(", %s that cannot verify (another key type, an option or an expiry)", count(unusable, "line"))
	}
	return c
}

// checkSessions counts each agent's sessions, and those of the project;
// used says which agents have a sessions directory on this machine.
func checkSessions(s Setup) ([]Check, map[capture.Agent]bool) {
	used := map[capture.Agent]bool{}
	var out []Check
	for _, agent := range capture.Agents {
		c := Check{Name: "sessions:" + string(agent)}
		roots, err := capture.SessionRoots(agent, s.Env)
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, err.Error(), "set HOME"
			out = append(out, c)
			continue
		}
		var found []string
		for _, r := range roots {
			if info, err := os.Stat(r); err == nil && info.IsDir() {
				found = append(found, r)
			}
		}
		if len(found) == 0 {
			c.Status, c.Detail = OK, "not used on this machine (no "+strings.Join(roots, " or ")+")"
			out = append(out, c)
			continue
		}
		used[agent] = true
		sessions, err := capture.FindSessions(agent, s.Env)
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, err.Error(), "check the permissions of "+strings.Join(found, " and ")
			out = append(out, c)
			continue
		}
		c.Status = OK
		c.Detail = fmt.Sprintf("%s in %s", count(len(sessions), "session"), strings.Join(found, " and "))
		if s.Project != "" {
			c.Detail += fmt.Sprintf(", %d for this project", len(transcript.MatchProject(sessions, s.Project)))
		}
		out = append(out, c)
	}
	return out, used
}

// checkHooks looks for our hooks in each agent's project and user
// settings. Missing hooks are a warning only for an agent in use here.
func checkHooks(s Setup, used map[capture.Agent]bool) []Check {
	home, _ := paths.Home(s.Env)
	var out []Check
	for _, ia := range integrate.Agents {
		c := Check{Name: "hooks:" + ia.Name}
		var files, installed, problems, broken []string
		if s.Project != "" {
			files = append(files, ia.SettingsPath(s.Project, home, false, s.Env))
			if local, err := ia.ScopePath(integrate.ScopeLocal, s.Project, home, s.Env); err == nil {
				files = append(files, local)
			}
		}
		if home != "" {
			files = append(files, ia.SettingsPath("", home, true, s.Env))
		}
		for _, f := range files {
			text, err := readSettings(f)
			switch {
			case err != nil:
				problems = append(problems, err.Error())
			case text != nil && integrate.Installed(text, ia.Name):
				installed = append(installed, f)
				for _, prog := range integrate.InstalledPrograms(text, ia.Name) {
					if err := integrate.CheckProgram(prog, exec.LookPath); err != nil {
						broken = append(broken, fmt.Sprintf("%v (in %s)", err, f))
					}
				}
			}
		}
		var distrust *agent.Distrust
		if info, ok := agents.Find(ia.Name); ok && info.HookTrust != nil && len(broken) == 0 && len(problems) == 0 {
			var err error
			distrust, err = info.HookTrust(agent.TrustCheck{Project: s.Project, ProjectSettings: ia.SettingsPath(s.Project, home, false, s.Env),
				Installed: installed, Dirs: info.Dirs(home, s.Env), Env: s.Env, Read: readSettings})
			if err != nil {
				problems = append(problems, err.Error())
			}
		}
		switch {
		case len(broken) > 0:
			// A hook whose command does not run fails at every session
			// start and end of the agent.
			c.Status, c.Detail = Fail, "the hooks cannot run: "+strings.Join(broken, "; ")
			c.Fix = "session-handoff integrate " + ia.Name + " --remove, then integrate again (it writes this binary's path)"
		case len(problems) > 0:
			c.Status, c.Detail, c.Fix = Warn, strings.Join(problems, "; "), "fix the file, or pass the agent its settings another way"
		case distrust != nil:
			c.Status, c.Detail, c.Fix = Warn, distrust.Detail, distrust.Fix
		case len(installed) > 0:
			c.Status, c.Detail = OK, "installed in "+strings.Join(installed, " and ")
		case used[capture.Agent(ia.Name)]:
			c.Status, c.Detail = Warn, "no session-handoff hooks in "+strings.Join(files, " or ")+": sessions are not briefed or captured by themselves"
			c.Fix = "session-handoff integrate " + ia.Name
		default:
			c.Status, c.Detail = OK, "not installed (the agent is not used on this machine)"
		}
		out = append(out, c)
	}
	return out
}

// checkMCP checks, for each agent with our MCP server registered, that
// the registration runs a program that resolves: the agent starts it
// without a shell, with its own PATH, so a bare name works only where
// that PATH has it, and a path that is gone never works.
func checkMCP(s Setup) []Check {
	home, _ := paths.Home(s.Env)
	var out []Check
	// Every agent integrate --mcp registers with, hooks or not (Crush
	// has none).
	for _, name := range agents.MCPNames() {
		var files []string
		for _, user := range []bool{false, true} {
			if (!user && s.Project == "") || (user && home == "") {
				continue
			}
			if p, _, err := integrate.MCPPath(name, s.Project, home, user, s.Env); err == nil {
				files = append(files, p)
			}
		}
		c := Check{Name: "mcp:" + name, Status: OK}
		var found []string
		for _, f := range files {
			text, err := readSettings(f)
			if err != nil || text == nil {
				continue
			}
			prog, ok, err := integrate.RegisteredCommand(f, text)
			switch {
			case err != nil:
				c.Status, c.Detail, c.Fix = Warn, err.Error(), "fix the file"
			case !ok:
				continue
			case !filepath.IsAbs(prog):
				c.Status = Warn
				c.Detail = fmt.Sprintf("the MCP server registered in %s runs %q from PATH: an agent started without it on PATH cannot start the server", f, prog)
				c.Fix = "session-handoff integrate " + name + " --mcp --remove, then integrate " + name + " --mcp (it writes this binary's path)"
			default:
				if err := integrate.CheckProgram(prog, s.LookPath); err != nil {
					c.Status = Fail
					c.Detail = fmt.Sprintf("the MCP server registered in %s cannot start: %v", f, err)
					c.Fix = "session-handoff integrate " + name + " --mcp --remove, then integrate " + name + " --mcp"
				}
			}
			found = append(found, f)
			if c.Status != OK {
				break
			}
		}
		if len(found) == 0 {
			continue // not registered: nothing to say
		}
		if c.Status == OK {
			c.Detail = "registered in " + strings.Join(found, " and ")
		}
		out = append(out, c)
	}
	return out
}

// readSettings reads an agent's settings file, bounded; nil when missing.
func readSettings(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := safefile.ReadFile(path, integrate.MaxSettings)
	if err != nil {
		return nil, safefile.Wrap("read", path, err)
	}
	return data, nil
}

func checkPause(s Setup) Check {
	c := Check{Name: "pause"}
	var paused, fixes []string
	for _, f := range handover.PauseFiles(s.ConfigDir, s.Project) {
		var pe *handover.PausedError
		if errors.As(handover.CheckPause([]string{f}), &pe) {
			msg := pe.Path
			if pe.Reason != "" {
				msg += " (" + pe.Reason + ")"
			}
			paused = append(paused, msg)
			if filepath.Dir(f) == filepath.Clean(s.ConfigDir) {
				fixes = append(fixes, "session-handoff unpause --global")
			} else if f == handover.OlderPauseFile(s.Env) {
				paused[len(paused)-1] += " (agent-handover's kill switch, honoured as a global PAUSE)"
				fixes = append(fixes, "rm "+shellQuote(f))
			} else {
				fixes = append(fixes, "session-handoff unpause"+s.ProjectFlag)
			}
		}
	}
	if len(paused) == 0 {
		c.Status, c.Detail = OK, "no PAUSE file"
		return c
	}
	c.Status = Warn
	c.Detail = "paused by " + strings.Join(paused, " and ") + ": handover runs and hooks write nothing"
	c.Fix = strings.Join(fixes, " && ")
	return c
}

func checkHandover(s Setup) Check {
	c := Check{Name: "handover"}
	stateDir := handover.StateDir(filepath.Clean(s.DataDir), s.Project)
	st, cp, err := handover.Check(stateDir)
	switch {
	case err != nil:
		c.Status, c.Detail = Warn, "the checkpoint cannot be read: "+err.Error()
		c.Fix = "session-handoff handover run --restart" + s.ProjectFlag
	case st == handover.StatusNone:
		c.Status, c.Detail = OK, "no handover run has started for this project"
	case st == handover.StatusCompleted:
		c.Status, c.Detail = OK, fmt.Sprintf("the last run (%s) completed", cp.RunID)
		if cp.FinishedAt != nil {
			c.Detail += " at " + cp.FinishedAt.Local().Format(time.RFC3339)
		}
	case handover.Running(stateDir):
		c.Status, c.Detail = OK, fmt.Sprintf("run %s is running now", cp.RunID)
	default:
		c.Status = Warn
		c.Detail = fmt.Sprintf("run %s was interrupted; steps left: %s", cp.RunID, strings.Join(cp.Pending(), ", "))
		c.Fix = "session-handoff handover run" + s.ProjectFlag
	}
	return c
}

// checkOlderCheckpoint reports the earlier agent-handover's checkpoint in
// the project, when there is one.
func checkOlderCheckpoint(s Setup) (Check, bool) {
	c := Check{Name: "agent-handover"}
	cp, err := handover.ReadOlderCheckpoint(s.Project)
	switch {
	case err != nil:
		c.Status, c.Detail = Warn, err.Error()
		c.Fix = "rm " + shellQuote(filepath.Join(s.Project, handover.OlderCheckpointPath))
	case cp == nil:
		return c, false
	case cp.ResumeCode() == 1:
		c.Status, c.Detail = Warn, cp.Advice()
		c.Fix = "session-handoff handover run" + s.ProjectFlag
	default:
		c.Status, c.Detail = OK, cp.Advice()
	}
	return c, true
}

// checkOldStore tells about the store of session-handoff v0.7.5 and
// earlier (handoffs.json) when one is where that version kept it, with
// the import that brings it in.
func checkOldStore(s Setup) (Check, bool) {
	found := legacy.FindOldStore(paths.OldStores(s.Env))
	if found == "" {
		return Check{}, false
	}
	c := Check{Name: "legacy-store", Status: Warn, Fix: "session-handoff import --legacy " + shellQuote(found)}
	missing, total, err := notImported(found, s.DataDir)
	switch {
	case err != nil:
		c.Detail = found + " is session-handoff v0.7.5's store, but: " + err.Error()
	case missing == 0:
		c.Status, c.Fix = OK, ""
		c.Detail = fmt.Sprintf("%s (session-handoff v0.7.5's store): its %s are imported", found, count(total, "handoff"))
	default:
		c.Detail = fmt.Sprintf("%s holds %s of session-handoff v0.7.5 or earlier, %d not imported yet", found, count(total, "handoff"), missing)
	}
	return c, true
}

// notImported counts the records of the old store at path that the store
// in dataDir does not hold yet.
func notImported(path, dataDir string) (missing, total int, err error) {
	data, err := safefile.ReadFile(path, legacy.MaxInput)
	if err != nil {
		return 0, 0, err
	}
	res, err := legacy.Read(data, filepath.Base(path), nil)
	if err != nil {
		return 0, 0, err
	}
	st, err := store.Open(dataDir)
	if err != nil {
		return 0, 0, err
	}
	for _, r := range res.Records {
		if _, err := st.Get(r.ID); err != nil {
			missing++
		}
	}
	return missing, len(res.Records), nil
}

// checkHandoverConfig checks the handover.toml files a run would use: the
// project's (which runs only once approved) and the user's.
func checkHandoverConfig(s Setup) []Check {
	var out []Check
	if s.Project != "" {
		path := filepath.Join(s.Project, handover.ConfigFile)
		if _, err := os.Lstat(path); err == nil {
			// Whether it may run is what a run decides, through the same
			// function; a file that does not parse fails either way.
			c := Check{Name: "handover-config"}
			_, _, rerr := handover.ResolveConfig("", s.Project, s.ConfigDir)
			var notApproved *handover.NotApprovedError
			if _, err := handover.LoadConfig(path); err != nil {
				c.Status, c.Detail, c.Fix = Fail, err.Error(), "correct "+path
			} else if errors.As(rerr, &notApproved) {
				c.Status, c.Detail = Warn, notApproved.Error()
				c.Fix = "read it, then session-handoff handover allow" + s.ProjectFlag
			} else if rerr != nil {
				c.Status, c.Detail, c.Fix = Warn, rerr.Error(), "session-handoff handover allow"+s.ProjectFlag
			} else {
				c.Status, c.Detail = OK, path+" is approved"
			}
			out = append(out, c)
		}
	}
	path := filepath.Join(s.ConfigDir, handover.ConfigFile)
	if _, err := os.Lstat(path); err == nil {
		c := Check{Name: "handover-config", Status: OK, Detail: path + " parses"}
		if _, err := handover.LoadConfig(path); err != nil {
			c.Status, c.Detail, c.Fix = Fail, err.Error(), "correct "+path
		}
		out = append(out, c)
	}
	return out
}

// shellQuote quotes a path for a fix command when it needs it.
func shellQuote(s string) string { return targets.ShellJoin([]string{s}) }
