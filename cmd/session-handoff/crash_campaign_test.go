//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/store"
)

// The crash campaign (issue 9): save, import, memory compact, handover run,
// receive, apply (crash_apply_test.go), sync push and sync pull
// (crash_sync_test.go), launch --native (crash_native_test.go), each SIGKILLed (with the git processes it started) at
// random points a few hundred times in all, then the state checked: the
// store by 'list' (no repair) and 'store check', handover runs by
// 'handover check', the memory directory by 'memory show' (no damaged
// file), and each command's own promise (a save or an import is all or
// nothing; every compacted note is a note or in its archive, and exactly
// once in the archive when compaction is run again; an interrupted run
// resumes to completion with one handoff; receive again imports exactly
// what was left, and finishes removing what it delivered from the inbox,
// whose writes are kill points too).
//
//	scripts/crash.sh          # CRASH_RUNS=300 CRASH_SEED=1 [CRASH_COMMANDS=receive,save] [CRASH_KEEP=DIR]
//	go test ./cmd/session-handoff/ -run '^TestCrashCampaign$' -crash -v
//
// Kill points are steps, not times: a seeded random N, and the process
// group is killed when the Nth file-system event (inotify: a file created,
// written, renamed, removed) happens under the directories the command
// writes. N ranges over the events of an uninterrupted run of the same
// command, so the kills spread over the whole write phase, blob writes
// included (every write() of a blob is an event). Nothing here sleeps or
// looks at a clock.

// crashWorld is the prepared state every run starts from.
type crashWorld struct {
	dir       string // root/case is copied for each run
	bin       string // directory of the session-handoff link to the test binary
	bundle    string // a bundle with two attachments, signed by bob@desk for me
	recipient string
	inboxSize int    // bundles for me in the git inbox
	records   int    // handoffs in the store
	notes     int    // entries in the memory notes
	changesID string // the handoff that carries the desk's changes
	nextID    string // another handoff of the desk's, applied after a killed apply
}

// crashCase is one run's copy of the world.
type crashCase struct {
	w                                                 *crashWorld
	root, home, data, config, project, memory, tmpdir string
	env                                               map[string]string
}

func (w *crashWorld) newCase(t *testing.T) *crashCase {
	t.Helper()
	root := t.TempDir()
	if err := copyTree(filepath.Join(w.dir, "case"), root); err != nil {
		t.Fatal(err)
	}
	c := &crashCase{w: w, root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project"), tmpdir: filepath.Join(root, "tmp")}
	c.data, c.config, c.memory = filepath.Join(c.home, "data"), filepath.Join(c.home, "config"), filepath.Join(c.project, "memory")
	if err := os.MkdirAll(c.tmpdir, 0o700); err != nil {
		t.Fatal(err)
	}
	c.env = campaignEnv(c.home)
	// The remote is the copy's own inbox.
	remotes := filepath.Join(c.config, "remotes")
	conf, err := os.ReadFile(remotes)
	if err != nil {
		t.Fatal(err)
	}
	conf = bytes.ReplaceAll(conf, []byte("file://"+filepath.Join(w.dir, "case")), []byte("file://"+root))
	if err := os.WriteFile(remotes, conf, 0o600); err != nil {
		t.Fatal(err)
	}
	rewriteSyncRemotes(t, w, root)
	// Approvals are by path: the copy's handover.toml is approved anew.
	if r := c.cli("handover", "allow", "--project", c.project); r.code != 0 {
		t.Fatalf("handover allow: %s", r.stderr)
	}
	return c
}

// procEnv is the environment of the command run as a process.
func (c *crashCase) procEnv() []string {
	env := os.Environ()
	for k, v := range c.env {
		env = append(env, k+"="+v)
	}
	return append(env, "XDG_DATA_HOME=", "XDG_CONFIG_HOME=", "TMPDIR="+c.tmpdir,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
}

// cli runs a command in-process (for checks and recovery).
func (c *crashCase) cli(args ...string) cliResult { return runCLI(c.env, "", args...) }

// proc runs a command as a process to its end (for recovery steps that
// run programs of their own, as handover's exec steps do).
func (c *crashCase) proc(args ...string) (int, string) {
	cmd := exec.Command(filepath.Join(c.w.bin, "session-handoff"), args...)
	cmd.Dir, cmd.Env = c.project, c.procEnv()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, string(out)
}

// crashScenario is one command of the campaign.
type crashScenario struct {
	name  string
	args  []string // {project}, {memory}, {bundle} expanded
	watch func(c *crashCase) []string
	// check says what is wrong with the state a killed (or finished) run
	// left; it may run recovery steps, which must then succeed.
	check func(c *crashCase) []string
	// prepare, when set, readies the copy before the command runs.
	prepare func(c *crashCase) error
}

func (c *crashCase) expand(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.NewReplacer("{root}", c.root, "{project}", c.project, "{memory}", c.memory, "{bundle}", c.w.bundle,
			"{desk}", filepath.Join(c.root, "desk"), "{changes}", c.w.changesID).Replace(a)
	}
	return out
}

// crashOutcome is what happened to one run.
type crashOutcome struct {
	killed bool
	code   int // exit code when not killed
	events int // file-system events seen
	output string
}

// runKilled runs the scenario's command and kills its process group when
// the killAt-th file-system event under its directories happens (never
// when killAt is 0).
func (c *crashCase) runKilled(s crashScenario, killAt int) (crashOutcome, error) {
	var out crashOutcome
	if s.prepare != nil {
		if err := s.prepare(c); err != nil {
			return out, err
		}
	}
	wakeDir := filepath.Join(c.root, "wake")
	if err := os.Mkdir(wakeDir, 0o700); err != nil {
		return out, err
	}
	w, err := newFSWatcher(append([]string{wakeDir}, s.watch(c)...))
	if err != nil {
		return out, err
	}
	cmd := exec.Command(filepath.Join(c.w.bin, "session-handoff"), c.expand(s.args)...)
	cmd.Dir, cmd.Env = c.project, c.procEnv()
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	// Its own process group, so that the git processes it starts die
	// with it, as in a power cut.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.close()
		return out, err
	}
	var mu sync.Mutex
	done := false
	watched := make(chan int)
	go func() {
		n := 0
		w.run(func(dir string) bool {
			mu.Lock()
			defer mu.Unlock()
			if done {
				return false
			}
			if dir == wakeDir {
				return true
			}
			n++
			if n == killAt {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
			return true
		})
		watched <- n
	}()
	err = cmd.Wait()
	// Wake the watcher with an event of our own and stop it.
	mu.Lock()
	done = true
	mu.Unlock()
	os.WriteFile(filepath.Join(wakeDir, "wake"), nil, 0o600)
	out.events = <-watched
	w.close()
	os.RemoveAll(wakeDir)
	out.output = output.String()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			out.killed = true
		} else {
			out.code = ee.ExitCode()
		}
	case err != nil:
		return out, err
	}
	return out, nil
}

// TestCrashCampaign runs the campaign; see the comment at the top.
func TestCrashCampaign(t *testing.T) {
	requireCampaign(t, *crashCampaign, "crash")
	runs, seed := 300, uint64(1)
	if v := os.Getenv("CRASH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("CRASH_RUNS=%q: want a positive number", v)
		}
		runs = n
	}
	if v := os.Getenv("CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CRASH_SEED=%q: want a number", v)
		}
		seed = n
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	w := newCrashWorld(t)
	scenarios := crashScenarios(w)
	if only := os.Getenv("CRASH_COMMANDS"); only != "" {
		var keep []crashScenario
		for _, s := range scenarios {
			for _, name := range strings.Split(only, ",") {
				// "apply" selects "apply then another" too.
				if name = strings.TrimSpace(name); name == s.name || strings.HasPrefix(s.name, name+" ") {
					keep = append(keep, s)
				}
			}
		}
		if len(keep) == 0 {
			t.Fatalf("CRASH_COMMANDS=%q names none of the commands", only)
		}
		scenarios = keep
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))

	type tally struct{ runs, killed, finished, inconsistent, steps int }
	tallies := make([]tally, len(scenarios))
	// Each command once without a kill: how many events it makes, and
	// that its uninterrupted result passes the same checks.
	for i, s := range scenarios {
		c := w.newCase(t)
		out, err := c.runKilled(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if out.killed || out.code != 0 {
			t.Fatalf("%s without a kill: exit %d\n%s", s.name, out.code, out.output)
		}
		if p := s.check(c); len(p) > 0 {
			t.Fatalf("%s without a kill fails its own checks: %v", s.name, p)
		}
		if out.events < 2 {
			t.Fatalf("%s: only %d file-system events; the watched directories are wrong", s.name, out.events)
		}
		tallies[i].steps = out.events
	}
	var failures []string
	for n := range runs {
		i := n % len(scenarios)
		s := scenarios[i]
		tl := &tallies[i]
		// One event more than an uninterrupted run makes: now and then
		// the command finishes first, which must be fine too.
		killAt := 1 + rng.IntN(tl.steps+1)
		c := w.newCase(t)
		out, err := c.runKilled(s, killAt)
		if err != nil {
			t.Fatal(err)
		}
		tl.runs++
		problems := []string{}
		switch {
		case out.killed:
			tl.killed++
		case out.code == 0:
			tl.finished++
		default:
			problems = append(problems, fmt.Sprintf("exit %d without being killed: %s", out.code, firstLines(out.output, 3)))
		}
		problems = append(problems, s.check(c)...)
		if len(problems) > 0 {
			tl.inconsistent++
			failures = append(failures, fmt.Sprintf("%s run %d (killed at event %d of %d, killed=%v): %s", s.name, n, killAt, tl.steps, out.killed, strings.Join(problems, "; ")))
			// CRASH_KEEP=DIR keeps the state of failed runs for a
			// post-mortem (TempDir removes it at the end).
			if keep := os.Getenv("CRASH_KEEP"); keep != "" {
				dst := filepath.Join(keep, fmt.Sprintf("run-%d-%s", n, strings.ReplaceAll(s.name, " ", "-")))
				if err := copyTree(c.root, dst); err != nil {
					t.Logf("keeping %s: %v", dst, err)
				}
			}
		}
		// Each run's copy is removed by its TempDir at the end; remove
		// it now so hundreds of runs do not pile up on disk.
		if len(problems) == 0 {
			os.RemoveAll(c.root)
		}
	}
	var b strings.Builder
	var total tally
	fmt.Fprintf(&b, "crash campaign (seed %d): SIGKILL at a random file-system event of the command\n", seed)
	for i, s := range scenarios {
		tl := tallies[i]
		fmt.Fprintf(&b, "  %-14s %4d runs, %4d killed, %3d finished first, %d inconsistent (kill points 1-%d)\n",
			s.name, tl.runs, tl.killed, tl.finished, tl.inconsistent, tl.steps+1)
		total.runs += tl.runs
		total.killed += tl.killed
		total.finished += tl.finished
		total.inconsistent += tl.inconsistent
	}
	fmt.Fprintf(&b, "%d runs, %d killed, %d finished before their kill point, %d left an inconsistent state\n",
		total.runs, total.killed, total.finished, total.inconsistent)
	fmt.Print(b.String())
	for _, f := range failures {
		t.Error(f)
	}
}

// newCrashWorld makes the state every run starts from: my keys (alice's
// of the bundle corpus) trusting bob@desk, a store with handoffs, a
// project in git with an approved handover.toml and memory notes of 2025
// to compact, a git inbox with bundles from bob for me, and a bundle from
// bob with two attachments to import.
func newCrashWorld(t *testing.T) *crashWorld {
	t.Helper()
	dir := t.TempDir()
	w := &crashWorld{dir: dir, bin: filepath.Join(dir, "bin")}
	linkSelf(t, w.bin, "session-handoff")
	home, project, _, recipient := newCampaignCase(t, dir)
	w.recipient = recipient
	me := campaignEnv(home)

	// Bob, who sends: his own home, a remote inbox, three handoffs sent
	// to me, and a bundle with attachments for import.
	// The inbox is part of each run's copy: receive removes from it.
	inbox := filepath.Join(dir, "case", "inbox.git")
	gitIn(t, dir, "init", "-q", "--bare", inbox)
	bobHome := filepath.Join(dir, "bob")
	bob := campaignEnv(bobHome)
	mustCLI(t, "world", bob, "", "keygen", "--name", "bob@desk", "--no-passphrase")
	bobKey := strings.TrimSpace(mustCLI(t, "world", bob, "", "key", "show", "--signing-key").stdout)
	mustCLI(t, "world", bob, "", "remote", "add", "team", "file://"+inbox)
	for i := range 3 {
		mustCLI(t, "world", bob, "", "save", "--no-git", "--project", project, "--title", fmt.Sprintf("From bob %d", i), "--summary", strings.Repeat("all the state of it ", 200))
		mustCLI(t, "world", bob, "", "send", "latest", "--to", w.recipient)
	}
	w.inboxSize = 3
	mustCLI(t, "world", bob, "", "save", "--no-git", "--project", project, "--title", "With attachments")
	rng := rand.New(rand.NewPCG(7, 7))
	var attach []string
	for i := range 2 {
		data := make([]byte, 256<<10)
		for j := range data {
			data[j] = "abcdefghijklmnopqrstuvwxyz \n"[rng.IntN(28)]
		}
		p := filepath.Join(dir, fmt.Sprintf("attachment-%d.txt", i))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		attach = append(attach, "--attach", p)
	}
	w.bundle = filepath.Join(dir, "import.handoff")
	mustCLI(t, "world", bob, "", append([]string{"export", "latest", "--to", w.recipient, "-o", w.bundle}, attach...)...)

	// Me: bob trusted, the inbox as a remote, three handoffs, the
	// handover configuration approved, notes of 2025 to compact.
	mustCLI(t, "world", me, "", "trust", "add", bobKey, "--principal", "bob@desk")
	mustCLI(t, "world", me, "", "remote", "add", "team", "file://"+inbox)
	for i := range 3 {
		mustCLI(t, "world", me, "", "save", "--no-git", "--project", project, "--title", fmt.Sprintf("Mine %d", i))
	}
	w.records = 3
	crashSyncWorld(t, dir)
	w.changesID, w.nextID = crashApplyWorld(t, dir, me)
	w.records += 2
	if err := os.WriteFile(filepath.Join(project, "handover.toml"), []byte(crashConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "world", me, "", "handover", "allow", "--project", project)
	mem := filepath.Join(project, "memory")
	mustCLI(t, "world", me, "", "memory", "init", "--dir", mem, "--name", "Aria")
	for month := 1; month <= 3; month++ {
		for _, tag := range []string{"api", "web"} {
			for day := 1; day <= 4; day++ {
				date := fmt.Sprintf("2025-%02d-%02d", month, day*5)
				args := []string{"memory", "write", "--dir", mem, "--layer", "1", "--tag", tag, "--date", date}
				mustCLI(t, "world", me, fmt.Sprintf("%s on %s: %s\n", tag, date, strings.Repeat("notes ", 40)), append(args, "-")...)
				w.notes++
				if day%2 == 0 {
					mustCLI(t, "world", me, fmt.Sprintf("%s on %s, later\n", tag, date), append(args, "--key", "later-"+date, "-")...)
					w.notes++
				}
			}
		}
	}
	return w
}

func crashScenarios(w *crashWorld) []crashScenario {
	data := func(c *crashCase) []string { return []string{c.data} }
	list := []crashScenario{
		{name: "save", args: []string{"save", "--no-git", "--project", "{project}", "--title", "Saved in a crash",
			"--summary", strings.Repeat("where things stand ", 400), "--next", "check the store"},
			watch: data, check: checkAllOrNothing("Saved in a crash", "")},
		{name: "import", args: []string{"import", "{bundle}"}, watch: data,
			check: checkAllOrNothing("With attachments", "import")},
		{name: "memory compact", args: []string{"memory", "compact", "--dir", "{memory}", "--keep-days", "30"},
			watch: func(c *crashCase) []string { return []string{c.memory} }, check: checkCompaction},
		{name: "handover run", args: []string{"handover", "run", "--project", "{project}"},
			watch: func(c *crashCase) []string { return []string{c.data, c.project} }, check: checkHandoverRun},
		{name: "receive", args: []string{"receive"}, watch: func(c *crashCase) []string { return []string{c.data, filepath.Join(c.root, "inbox.git")} },
			check: checkReceive},
		{name: "apply", args: []string{"apply", "{changes}", "--project", "{desk}"},
			watch: func(c *crashCase) []string { return []string{filepath.Join(c.root, "desk")} }, check: checkApply},
		{name: "apply then another", args: []string{"apply", "{changes}", "--project", "{desk}"},
			watch: func(c *crashCase) []string { return []string{filepath.Join(c.root, "desk")} }, check: checkApplyNext},
		{name: "search", args: []string{"search", "--reindex"}, watch: data, check: checkSearchIndex},
	}
	list = append(list, crashNativeScenarios()...)
	return append(list, crashSyncScenarios()...)
}

// checkSearchIndex: a killed indexer leaves an index that answers without
// a lie (store check finds it sound; what it finds is in the store), and
// the next search repairs it to the whole truth.
func checkSearchIndex(c *crashCase) []string {
	bad := checkCommon(c)
	titles, _, err := storeTitles(c)
	if err != nil {
		return append(bad, "reading the store: "+err.Error())
	}
	found := func(update bool) ([]string, bool) {
		args := []string{"search", "mine", "--json", "--limit", "50"}
		if !update {
			args = append(args, "--no-update")
		}
		r := c.cli(args...)
		if r.code != 0 {
			bad = append(bad, fmt.Sprintf("search (update %v): exit %d: %s", update, r.code, firstLines(r.stderr, 2)))
			return nil, false
		}
		var out struct {
			Results []struct{ Type, Title string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			bad = append(bad, "search --json: "+err.Error())
			return nil, false
		}
		var got []string
		for _, h := range out.Results {
			got = append(got, h.Title)
			if h.Type != "handoff" || !slices.Contains(titles, h.Title) {
				bad = append(bad, fmt.Sprintf("search found %s %q, which the store does not hold", h.Type, h.Title))
			}
		}
		return got, true
	}
	found(false)
	if got, ok := found(true); ok && len(got) != 3 {
		bad = append(bad, fmt.Sprintf("after the next search: %d handoffs found for mine, want 3: %q", len(got), got))
	}
	return bad
}

// checkCommon is what every killed run must leave: a store that lists
// without repair and checks clean, a handover check with an answer, and a
// memory directory without a damaged file.
func checkCommon(c *crashCase) []string {
	var bad []string
	if r := c.cli("list", "--json"); r.code != 0 {
		bad = append(bad, fmt.Sprintf("list: exit %d: %s", r.code, firstLines(r.stderr, 2)))
	}
	if r := c.cli("store", "check", "--json"); r.code != 0 {
		bad = append(bad, fmt.Sprintf("store check: exit %d: %s%s", r.code, firstLines(r.stdout, 8), firstLines(r.stderr, 2)))
	}
	if r := c.cli("handover", "check", "--project", c.project); r.code > 2 || r.code < 0 || r.stderr != "" {
		bad = append(bad, fmt.Sprintf("handover check: exit %d: %s", r.code, firstLines(r.stderr, 2)))
	}
	bad = append(bad, checkMemoryShow(c)...)
	return bad
}

func checkMemoryShow(c *crashCase) []string {
	r := c.cli("memory", "show", "--dir", c.memory, "--json")
	if r.code != 0 {
		return []string{fmt.Sprintf("memory show: exit %d: %s", r.code, firstLines(r.stderr, 2))}
	}
	var files []memory.File
	if err := json.Unmarshal([]byte(r.stdout), &files); err != nil {
		return []string{"memory show --json: " + err.Error()}
	}
	var bad []string
	for _, f := range files {
		if f.Problem != "" {
			bad = append(bad, "memory show reports a damaged file: "+f.Problem)
		}
	}
	return bad
}

// storeTitles lists the titles in the store (through the library, which
// also proves each record reads).
func storeTitles(c *crashCase) ([]string, []*handoff.Record, error) {
	s, err := store.Open(c.data)
	if err != nil {
		return nil, nil, err
	}
	entries, err := s.List(store.Filter{})
	if err != nil {
		return nil, nil, err
	}
	var titles []string
	var recs []*handoff.Record
	for _, e := range entries {
		rec, err := s.Get(e.ID)
		if err != nil {
			return nil, nil, err
		}
		titles = append(titles, rec.Title)
		recs = append(recs, rec)
	}
	return titles, recs, nil
}

// checkBlobs reads every attachment of rec back and checks its hash.
func checkBlobs(c *crashCase, rec *handoff.Record) []string {
	s, err := store.Open(c.data)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	for _, a := range rec.Attachments {
		f, _, err := s.OpenBlob(a.SHA256)
		if err != nil {
			bad = append(bad, fmt.Sprintf("attachment %s: %v", a.Name, err))
			continue
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil || hex.EncodeToString(h.Sum(nil)) != a.SHA256 {
			bad = append(bad, fmt.Sprintf("attachment %s: content does not match its hash (%v)", a.Name, err))
		}
	}
	return bad
}

// checkAllOrNothing: the new handoff is there whole, or not at all; and
// when the command was import, importing again gets it whole.
func checkAllOrNothing(title, rerun string) func(c *crashCase) []string {
	return func(c *crashCase) []string {
		bad := checkCommon(c)
		titles, recs, err := storeTitles(c)
		if err != nil {
			return append(bad, "reading the store: "+err.Error())
		}
		count := func() (n int, rec *handoff.Record) {
			for i, t := range titles {
				if t == title {
					n, rec = n+1, recs[i]
				}
			}
			return n, rec
		}
		n, rec := count()
		switch {
		case len(titles) != c.w.records+n || n > 1:
			bad = append(bad, fmt.Sprintf("%d handoffs (%d new): want %d or %d", len(titles), n, c.w.records, c.w.records+1))
		case rec != nil:
			bad = append(bad, checkBlobs(c, rec)...)
		}
		if rerun == "import" {
			if r := c.cli("import", c.w.bundle); r.code != 0 {
				return append(bad, fmt.Sprintf("import again: exit %d: %s", r.code, firstLines(r.stderr, 2)))
			}
			if titles, recs, err = storeTitles(c); err != nil {
				return append(bad, "reading the store: "+err.Error())
			}
			if n, rec = count(); n != 1 || len(titles) != c.w.records+1 {
				bad = append(bad, fmt.Sprintf("after importing again: %d handoffs, %d imported", len(titles), n))
			} else {
				bad = append(bad, checkBlobs(c, rec)...)
				if len(rec.Attachments) != 2 {
					bad = append(bad, fmt.Sprintf("the import has %d attachments, want 2", len(rec.Attachments)))
				}
			}
		}
		return bad
	}
}

// memoryEntries counts the entries of the layer-1 notes and the layer-3
// archives by their identity (tag, date, and key or text), as compaction
// tells entries apart.
func memoryEntries(c *crashCase) (notes, archived map[string]int, err error) {
	d := memory.Dir{Root: c.memory}
	files, err := d.List(0, "")
	if err != nil {
		return nil, nil, err
	}
	notes, archived = map[string]int{}, map[string]int{}
	for _, f := range files {
		if f.Layer != 1 && f.Layer != 3 {
			continue
		}
		_, doc, err := d.Read(f.Path)
		if err != nil {
			return nil, nil, err
		}
		for _, e := range doc.Entries {
			id := f.Tag + " " + e.Date + " "
			if e.Key != "" {
				id += "key " + e.Key
			} else {
				id += strings.TrimSpace(e.Body)
			}
			if f.Layer == 1 {
				notes[id]++
			} else {
				archived[id]++
			}
		}
	}
	return notes, archived, nil
}

// checkCompaction: every note entry is still a note or archived (once at
// most), and compacting again leaves each exactly once, in its archive.
func checkCompaction(c *crashCase) []string {
	bad := checkCommon(c)
	notes, archived, err := memoryEntries(c)
	if err != nil {
		return append(bad, "reading the memory: "+err.Error())
	}
	total := 0
	all := map[string]bool{}
	for id, n := range notes {
		all[id] = true
		total += n
		if n > 1 {
			bad = append(bad, fmt.Sprintf("note entry %.40q %d times", id, n))
		}
	}
	for id, n := range archived {
		all[id] = true
		if n > 1 {
			bad = append(bad, fmt.Sprintf("entry %.40q archived %d times", id, n))
		}
	}
	if len(all) != c.w.notes {
		bad = append(bad, fmt.Sprintf("%d distinct entries in notes and archives, want %d: an entry was lost", len(all), c.w.notes))
	}
	if r := c.cli("memory", "compact", "--dir", c.memory, "--keep-days", "30"); r.code != 0 {
		return append(bad, fmt.Sprintf("compact again: exit %d: %s", r.code, firstLines(r.stderr, 2)))
	}
	notes, archived, err = memoryEntries(c)
	if err != nil {
		return append(bad, "reading the memory: "+err.Error())
	}
	if len(notes) != 0 || len(archived) != c.w.notes {
		bad = append(bad, fmt.Sprintf("after compacting again: %d note entries, %d archived, want 0 and %d", len(notes), len(archived), c.w.notes))
	}
	for id, n := range archived {
		if n != 1 {
			bad = append(bad, fmt.Sprintf("after compacting again: entry %.40q archived %d times", id, n))
		}
	}
	return append(bad, checkMemoryShow(c)...)
}

// checkHandoverRun: check answers; the next run resumes (or starts) and
// completes; the run saved exactly one handoff and each step's effect is
// there once (the exec step at least once, as documented).
func checkHandoverRun(c *crashCase) []string {
	bad := checkCommon(c)
	// 0: killed before the run began; 1: interrupted; 2: it completed
	// before the kill landed. Only a completed run is not run again.
	if r := c.cli("handover", "check", "--project", c.project); r.code != 2 {
		if code, out := c.proc("handover", "run"); code != 0 {
			return append(bad, fmt.Sprintf("handover run after the kill (check said %d): exit %d: %s", r.code, code, firstLines(out, 3)))
		}
	}
	if r := c.cli("handover", "check", "--project", c.project); r.code != 2 {
		bad = append(bad, fmt.Sprintf("handover check after the resume: exit %d, want 2 (completed): %s", r.code, r.stdout))
	}
	titles, _, err := storeTitles(c)
	if err != nil {
		return append(bad, "reading the store: "+err.Error())
	}
	if len(titles) != c.w.records+1 {
		bad = append(bad, fmt.Sprintf("%d handoffs after the run, want %d: a run saves exactly one", len(titles), c.w.records+1))
	}
	count, _ := os.ReadFile(filepath.Join(c.project, "count.txt"))
	if n := strings.Count(string(count), "ran\n"); n < 1 || n > 2 {
		bad = append(bad, fmt.Sprintf("the exec step ran %d times, want once (twice if killed between its command and its checkpoint)", n))
	}
	notes, archived, err := memoryEntries(c)
	if err != nil {
		return append(bad, "reading the memory: "+err.Error())
	}
	for id, n := range archived {
		if n != 1 || notes[id] != 0 {
			bad = append(bad, fmt.Sprintf("entry %.40q: %d archived, %d in notes", id, n, notes[id]))
		}
	}
	return append(bad, checkCommon(c)...)
}

// checkReceive: receiving again imports what is left, every bundle of the
// inbox exactly once, and a third receive has nothing new; then the inbox
// holds nothing for me any more (the removal of delivered bundles, killed
// or not, is finished by the next receive).
func checkReceive(c *crashCase) []string {
	bad := checkCommon(c)
	titles, _, err := storeTitles(c)
	if err != nil {
		return append(bad, "reading the store: "+err.Error())
	}
	if n := len(titles); n < c.w.records || n > c.w.records+c.w.inboxSize {
		bad = append(bad, fmt.Sprintf("%d handoffs after the kill, want %d to %d", n, c.w.records, c.w.records+c.w.inboxSize))
	}
	lastOut := ""
	for range 2 {
		code, out := c.proc("receive")
		if code != 0 {
			return append(bad, fmt.Sprintf("receive after the kill: exit %d: %s", code, firstLines(out, 4)))
		}
		lastOut = out
		titles, _, err := storeTitles(c)
		if err != nil {
			return append(bad, "reading the store: "+err.Error())
		}
		seen := map[string]int{}
		for _, t := range titles {
			seen[t]++
		}
		for i := range c.w.inboxSize {
			if n := seen[fmt.Sprintf("From bob %d", i)]; n != 1 {
				bad = append(bad, fmt.Sprintf("after receiving again: %q stored %d times", fmt.Sprintf("From bob %d", i), n))
			}
		}
		if len(titles) != c.w.records+c.w.inboxSize {
			bad = append(bad, fmt.Sprintf("after receiving again: %d handoffs, want %d", len(titles), c.w.records+c.w.inboxSize))
		}
	}
	inbox := filepath.Join(c.root, "inbox.git")
	out, err := exec.Command("git", "-C", inbox, "for-each-ref", "--format=%(refname)", "refs/heads/inbox/").Output()
	if err != nil || len(bytes.Fields(out)) != 1 {
		return append(bad, fmt.Sprintf("the inbox's refs: %q, %v", out, err))
	}
	mine := strings.TrimSpace(string(out))
	left, err := exec.Command("git", "-C", inbox, "ls-tree", "--name-only", mine).Output()
	if err == nil && len(left) > 0 {
		// A kill inside the inbox's receive-pack (a file:// remote runs
		// it as our child) leaves its ref lock, as it would under git
		// push; git refuses the ref until someone removes it. The
		// receive must say so, and finish once it is gone.
		lock := filepath.Join(inbox, filepath.FromSlash(mine)+".lock")
		if _, lerr := os.Stat(lock); lerr != nil || !strings.Contains(lastOut, "delivered bundles stay on the remote") {
			return append(bad, fmt.Sprintf("after receiving again the inbox still holds %q, without a stale lock or a warning (%s)", left, firstLines(lastOut, 4)))
		}
		os.Remove(lock)
		if code, out := c.proc("receive"); code != 0 {
			return append(bad, fmt.Sprintf("receive after removing the stale lock: exit %d: %s", code, firstLines(out, 4)))
		}
		left, err = exec.Command("git", "-C", inbox, "ls-tree", "--name-only", mine).Output()
	}
	if err != nil || len(left) > 0 {
		bad = append(bad, fmt.Sprintf("after receiving again the inbox still holds %q (%v)", left, err))
	}
	return append(bad, checkCommon(c)...)
}

// fsWatcher reports file-system events under directory trees (inotify),
// adding the directories created under them as they appear.
type fsWatcher struct {
	fd   int
	mu   sync.Mutex
	dirs map[int32]string
}

const watchMask = syscall.IN_CREATE | syscall.IN_MODIFY | syscall.IN_CLOSE_WRITE | syscall.IN_MOVED_FROM |
	syscall.IN_MOVED_TO | syscall.IN_DELETE | syscall.IN_ONLYDIR

func newFSWatcher(roots []string) (*fsWatcher, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &fsWatcher{fd: fd, dirs: map[int32]string{}}
	for _, r := range roots {
		if err := w.addTree(r); err != nil {
			w.close()
			return nil, err
		}
	}
	return w, nil
}

// addTree watches dir and the directories under it, but not .git: git's
// own writes are git's business.
func (w *fsWatcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // gone already
		}
		if !d.IsDir() {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		wd, err := syscall.InotifyAddWatch(w.fd, p, watchMask)
		if err != nil {
			return nil // removed between the walk and the watch
		}
		w.mu.Lock()
		w.dirs[int32(wd)] = p
		w.mu.Unlock()
		return nil
	})
}

// run reads events and calls fn with the directory of each until fn
// returns false.
func (w *fsWatcher) run(fn func(dir string) bool) {
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(w.fd, buf)
		if err != nil || n <= 0 {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			wd := int32(binary.NativeEndian.Uint32(buf[off:]))
			mask := binary.NativeEndian.Uint32(buf[off+4:])
			size := int(binary.NativeEndian.Uint32(buf[off+12:]))
			name := strings.TrimRight(string(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+size]), "\x00")
			off += syscall.SizeofInotifyEvent + size
			w.mu.Lock()
			dir := w.dirs[wd]
			w.mu.Unlock()
			if mask&syscall.IN_ISDIR != 0 && mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 && dir != "" && name != ".git" {
				w.addTree(filepath.Join(dir, name))
			}
			if mask&syscall.IN_Q_OVERFLOW != 0 || dir == "" {
				continue
			}
			if !fn(dir) {
				return
			}
		}
	}
}

func (w *fsWatcher) close() { syscall.Close(w.fd) }
