package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// The hostile-input campaign (issue 9): every hostile input of the corpora
// goes through the CLI as a user would run it, and for each the campaign
// checks the exit code, that the one error line on stderr names the cause
// (and the file, where there is one), and that the store, the memory
// directory, the keys, trust store and configuration are byte for byte as
// they were. Inputs that are accepted by design (most hostile transcripts:
// lines are skipped, the rest is kept) are checked for what acceptance
// must still promise: no panic, bounded output, the outcome the capture
// package's own tests expect, and no secret in the store.
//
//	scripts/hostile.sh
//	go test ./cmd/session-handoff/ -run '^TestHostileCampaign$' -hostile -v
//
// The corpora: testdata/bundles/bad (bundles), internal/transcript/testdata/hostile and
// testdata/hostile/transcripts (transcripts), testdata/hostile/keys,
// testdata/hostile/trust and testdata/hostile/configs/{handover,redact,
// settings,memory}. Inputs that cannot be files in git (a directory, a
// symbolic link, a FIFO, a mode, a file of megabytes) are made by the
// campaign; each is an entry of the tables below.

// Kinds of hostile input, in the order the summary prints them.
const (
	kindBundles     = "bundles"
	kindTranscripts = "transcripts"
	kindKeys        = "keys"
	kindTrust       = "trust"
	kindConfigs     = "configs"
	kindRepos       = "repos"
	kindAgents      = "agents"
	kindChanges     = "changes"
	// kindWho: who counts as me, and whose handoff may brief my project.
	kindWho = "who"
	// kindRemotes: shared remotes armed or filled by whoever can write them.
	kindRemotes = "remotes"
)

var hostileKinds = []string{kindBundles, kindTranscripts, kindKeys, kindTrust, kindConfigs, kindRepos, kindAgents, kindChanges, kindWho,
	kindMergeDrivers, kindRecipientLinks, kindJournalReplay, kindRemotes, kindNative}

// hostileInput is one hostile input: where it comes from, how it is put in
// place, and the commands run on it with what each must do.
type hostileInput struct {
	kind, name string
	// file is the corpus file, if the input is one (every corpus file
	// must be the file of an input).
	file string
	// skip, when set, says why the input is not run (it is counted).
	skip string
	// place puts the input where the commands will find it.
	place func(e *hostileEnv) error
	runs  []hostileRun
	// after, when set, checks the state once every run is done (for
	// inputs whose runs change files on purpose and undo it).
	after func(e *hostileEnv, before map[string]treeState) error
}

// hostileRun is one command and what it must do. Arguments and wanted
// strings may hold {home}, {config}, {data}, {project}, {memory},
// {input}, {out}, {good}, {mallory}, {transcript}, {recipient}.
type hostileRun struct {
	args []string
	// dir, when set, is the directory the command runs in (launch
	// --native writes for the working directory).
	dir   string
	stdin string
	code  int
	// errHas: the one error line ("session-handoff: CMD: …", then at
	// most a hint) holds each. With code != 0 and no errHas, stderr must
	// be empty (verify's exit 3 and 4 say their answer on stdout).
	errHas []string
	// outHas, outNot: stdout holds each of outHas and none of outNot.
	outHas, outNot []string
	// warnHas: with code 0, a warning line holds each.
	warnHas []string
	// mayChange: the input is accepted and the command may write under
	// these places ("home:data/" for the store, "project:.claude/"): the
	// rest of both trees must stay as it was, and check says what must
	// hold of what changed.
	mayChange []string
	check     func(e *hostileEnv, r cliResult) error
}

// hostileEnv is the world of one input: a home with the store and the
// keys (alice@test's keys of the bundle corpus, a trust store with her
// key), a project in git with a memory directory, its own TMPDIR.
type hostileEnv struct {
	root, home, config, data, project, memory, staging string
	input, out                                         string
	template                                           *hostileTemplate
	env                                                map[string]string
	secrets                                            []string // values that must never be stored or printed
}

func (e *hostileEnv) expand(s string) string {
	return strings.NewReplacer("{home}", e.home, "{config}", e.config, "{data}", e.data, "{project}", e.project,
		"{memory}", e.memory, "{input}", e.input, "{out}", e.out, "{good}", e.template.good,
		"{mallory}", e.template.mallory, "{transcript}", e.template.transcript,
		"{recipient}", e.template.recipient).Replace(s)
}

// trees snapshots what must not change: the home (store, keys, trust,
// configuration) and the project (memory directory, settings,
// handover.toml) without its .git, which git itself may touch.
func (e *hostileEnv) trees() (map[string]treeState, error) {
	home, err := snapshotTree(e.home, nil)
	if err != nil {
		return nil, err
	}
	project, err := snapshotTree(e.project, func(rel string) bool { return rel == ".git" })
	if err != nil {
		return nil, err
	}
	return map[string]treeState{"home": home, "project": project}, nil
}

// hostileTemplate is the prepared state every input starts from, made once.
type hostileTemplate struct {
	dir        string
	good       string // a bundle signed by alice@test for the reader
	mallory    string // the same, signed by mallory@test
	transcript string // a small well-formed Claude Code transcript
	recipient  string // the reader's age recipient
}

const (
	aliceFingerprint   = "SHA256:iVoVN8x8naigXdqraEn/QEv/64Y9WQU6tinoxppcXk4"
	malloryFingerprint = "SHA256:JKoV2l70AfxpAaNo35/yEbzJUrs86l/12cDhYUyIUAc"
)

// hostileCorpus is the repository's testdata/hostile.
var hostileCorpus = filepath.Join("..", "..", "testdata", "hostile")

func campaignEnv(home string) map[string]string {
	return map[string]string{
		paths.HomeEnv: home,
		"HOME":        filepath.Join(filepath.Dir(home), "userhome"),
		// Agents' own directories, empty: nothing outside the case is read.
		"CLAUDE_CONFIG_DIR": filepath.Join(filepath.Dir(home), "none"),
		"CODEX_HOME":        filepath.Join(filepath.Dir(home), "none"),
		"GEMINI_DIR":        filepath.Join(filepath.Dir(home), "none"),
		"NO_COLOR":          "1",
	}
}

// newHostileTemplate makes the state every input starts from: keys, a
// store with one handoff, a project in git with memory notes of March 2026,
// the state and the identity files, and the bundles the runs read.
func newHostileTemplate(t *testing.T) *hostileTemplate {
	t.Helper()
	dir := t.TempDir()
	tp := &hostileTemplate{dir: dir}
	home, project, cfg, recipient := newCampaignCase(t, dir)
	keys := filepath.Join(hostileBundleCorpus, "keys")
	testsys.Check(t, os.Chmod(filepath.Join(cfg, "signing_key.pub"), 0o644))
	testsys.Check(t, os.Chmod(filepath.Join(cfg, "allowed_signers"), 0o644))
	tp.recipient = recipient
	env := campaignEnv(home)
	mem := filepath.Join(project, "memory")
	mustCLI(t, "template", env, "", "memory", "init", "--dir", mem, "--name", "Aria")
	mustCLI(t, "template", env, "fixed the login redirect\n", "memory", "write", "--dir", mem, "--layer", "1", "--tag", "api", "--date", "2026-03-01", "-")
	mustCLI(t, "template", env, "rate limiter next\n", "memory", "write", "--dir", mem, "--layer", "1", "--tag", "api", "--date", "2026-03-05", "-")
	mustCLI(t, "template", env, "where things stand\n", "memory", "write", "--dir", mem, "--layer", "2", "-")
	mustCLI(t, "template", env, "", "save", "--project", project, "--title", "Baseline", "--summary", "the state every hostile input starts from", "--next", "nothing")
	// A bundle signed by mallory@test for the reader, made with her key.
	mk := filepath.Join(dir, "mallory-keys")
	if err := os.MkdirAll(mk, 0o700); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join(keys, "stranger.key"), filepath.Join(mk, "signing_key"))
	copyFile(t, filepath.Join(keys, "stranger.pub"), filepath.Join(mk, "signing_key.pub"))
	tp.mallory = filepath.Join(dir, "mallory.handoff")
	mustCLI(t, "template", env, "", "export", "latest", "--keys", mk, "--to", tp.recipient, "-o", tp.mallory)
	tp.good, _ = filepath.Abs(filepath.Join(hostileBundleCorpus, "signed-encrypted.handoff"))
	tp.transcript = filepath.Join(dir, "good.jsonl")
	good := `{"type":"user","uuid":"u1","sessionId":"good","cwd":"/w","message":{"role":"user","content":"hello"}}` + "\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}` + "\n"
	if err := os.WriteFile(tp.transcript, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	return tp
}

// newEnv copies the template for one input.
func (tp *hostileTemplate) newEnv(t *testing.T) *hostileEnv {
	t.Helper()
	root := t.TempDir()
	if err := copyTree(filepath.Join(tp.dir, "case"), root); err != nil {
		t.Fatal(err)
	}
	e := &hostileEnv{root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project"),
		staging: filepath.Join(root, "tmp"), out: filepath.Join(root, "out.handoff"), template: tp}
	e.config, e.data, e.memory = filepath.Join(e.home, "config"), filepath.Join(e.home, "data"), filepath.Join(e.project, "memory")
	if err := os.Mkdir(e.staging, 0o700); err != nil {
		t.Fatal(err)
	}
	e.env = campaignEnv(e.home)
	return e
}

// TestHostileCampaign runs the campaign; see the comment at the top.
func TestHostileCampaign(t *testing.T) {
	requireCampaign(t, *hostileCampaign, "hostile")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	tp := newHostileTemplate(t)
	var inputs []hostileInput
	inputs = append(inputs, bundleInputs(t)...)
	inputs = append(inputs, exchangeInputs()...)
	inputs = append(inputs, transcriptInputs(t)...)
	inputs = append(inputs, keyInputs()...)
	inputs = append(inputs, trustInputs()...)
	inputs = append(inputs, configInputs()...)
	inputs = append(inputs, repoInputs()...)
	inputs = append(inputs, moreExchangeInputs()...)
	inputs = append(inputs, credentialInputs()...)
	inputs = append(inputs, fileTypeInputs()...)
	inputs = append(inputs, wordsInputs()...)
	inputs = append(inputs, whoInputs()...)
	inputs = append(inputs, remoteInputs()...)
	inputs = append(inputs, nativeInputs()...)
	more, err := changesInputs()
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, more...)
	more, err = applyInputs()
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, more...)
	checkCorpusCovered(t, inputs)

	type tally struct{ inputs, runs, passed, failed, skipped int }
	byKind := map[string]*tally{}
	for _, k := range hostileKinds {
		byKind[k] = &tally{}
	}
	var failed []string
	for _, in := range inputs {
		tl := byKind[in.kind]
		if in.skip != "" {
			tl.skipped++
			continue
		}
		ran := false
		ok := t.Run(in.kind+"/"+in.name, func(t *testing.T) {
			ran = true
			// Commands stage files under TMPDIR: each input has its own,
			// which must be empty again after every command.
			e := tp.newEnv(t)
			t.Setenv("TMPDIR", e.staging)
			runHostileInput(t, e, in)
		})
		if !ran {
			continue // not selected by -run
		}
		tl.inputs++
		tl.runs += len(in.runs)
		if ok {
			tl.passed++
		} else {
			tl.failed++
			failed = append(failed, in.kind+"/"+in.name)
		}
	}
	var total tally
	var b strings.Builder
	fmt.Fprintln(&b, "hostile-input campaign: inputs by kind")
	for _, k := range hostileKinds {
		tl := byKind[k]
		fmt.Fprintf(&b, "  %-12s %4d inputs, %4d runs", k, tl.inputs, tl.runs)
		if tl.skipped > 0 {
			fmt.Fprintf(&b, " (%d skipped: the CLI cannot set them up)", tl.skipped)
		}
		fmt.Fprintln(&b)
		total.inputs += tl.inputs
		total.runs += tl.runs
		total.passed += tl.passed
		total.failed += tl.failed
	}
	fmt.Fprintf(&b, "  %-12s %4d inputs, %4d runs\n", "total", total.inputs, total.runs)
	for _, f := range failed {
		fmt.Fprintf(&b, "FAILED %s\n", f)
	}
	fmt.Fprintf(&b, "%d passed, %d failed\n", total.passed, total.failed)
	fmt.Print(b.String())
	if total.inputs < 60 && !strings.Contains(flagValue("test.run"), "/") {
		t.Errorf("only %d hostile inputs ran; the campaign promises at least 60", total.inputs)
	}
}

// runHostileInput puts one input in place and checks every run.
func runHostileInput(t *testing.T, e *hostileEnv, in hostileInput) {
	if in.place != nil {
		if err := in.place(e); err != nil {
			t.Fatalf("placing the input: %v", err)
		}
	}
	start, err := e.trees()
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range in.runs {
		args := make([]string, len(run.args))
		for i, a := range run.args {
			args[i] = e.expand(a)
		}
		what := strings.Join(args, " ")
		before, err := e.trees()
		if err != nil {
			t.Fatal(err)
		}
		r := runInDir(t, e.expand(run.dir), func() cliResult { return runCLI(e.env, e.expand(run.stdin), args...) })
		if r.panicked != "" {
			t.Errorf("%s: panicked: %s", what, r.panicked)
			continue
		}
		for _, problem := range checkRun(e, run, commandPathOf(args), r) {
			t.Errorf("%s: %s", what, problem)
		}
		if len(r.stdout) > 4<<20 || len(r.stderr) > 64<<10 {
			t.Errorf("%s: unbounded output: %d bytes on stdout, %d on stderr", what, len(r.stdout), len(r.stderr))
		}
		for _, s := range e.secrets {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				t.Errorf("%s: a secret from the input was printed: %.12s…", what, s)
			}
		}
		if left, _ := os.ReadDir(e.staging); len(left) > 0 {
			t.Errorf("%s: left %d file(s) in TMPDIR, e.g. %s", what, len(left), left[0].Name())
		}
		if _, err := os.Lstat(e.out); err == nil && len(run.mayChange) == 0 {
			t.Errorf("%s: wrote %s though it failed", what, e.out)
		}
		after, err := e.trees()
		if err != nil {
			t.Fatal(err)
		}
		for name, st := range before {
			var changed []string
			for _, d := range st.diff(after[name]) {
				allowed := false
				for _, m := range run.mayChange {
					prefix, ok := strings.CutPrefix(m, name+":")
					allowed = allowed || ok && strings.HasPrefix(d[1:], prefix)
				}
				if !allowed {
					changed = append(changed, d)
				}
			}
			if len(changed) > 0 {
				t.Errorf("%s: changed the %s tree: %v", what, name, changed)
			}
		}
	}
	if in.after != nil {
		if err := in.after(e, start); err != nil {
			t.Error(err)
		}
	}
	if len(e.secrets) > 0 {
		if err := noSecretsUnder(e.root, e.secrets); err != nil {
			t.Error(err)
		}
	}
}

// checkRun says what is wrong with one command's result.
// commandPathOf is the command args run, as its errors name it ("memory
// show", "import").
func commandPathOf(args []string) string {
	root := newRootCmd(newTestApp(context.Background(), nil, io.Discard, io.Discard, nil))
	if c, _, err := root.Find(args); err == nil && c != root {
		return commandName(c)
	}
	return args[0]
}

func checkRun(e *hostileEnv, run hostileRun, cmd string, r cliResult) []string {
	var bad []string
	if r.code != run.code {
		bad = append(bad, fmt.Sprintf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, run.code, firstLines(r.stdout, 5), firstLines(r.stderr, 5)))
		return bad
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if r.stderr == "" {
		lines = nil
	}
	// "latest" resolved outside the handoff's project says which handoff
	// it took, on a line of its own before anything else.
	if len(lines) > 0 && strings.HasPrefix(lines[0], "session-handoff: latest: ") {
		lines = lines[1:]
		r.stderr = strings.Join(lines, "\n")
	}
	switch {
	case run.code != 0 && len(run.errHas) > 0:
		if len(lines) == 0 || len(lines) > 2 || (len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ")) {
			bad = append(bad, fmt.Sprintf("want one error line and at most a hint, got %q", r.stderr))
			break
		}
		prefix := "session-handoff: " + cmd + ": "
		if !strings.HasPrefix(lines[0], prefix) {
			bad = append(bad, fmt.Sprintf("error line does not start %q: %q", prefix, lines[0]))
		}
		for _, s := range run.errHas {
			if s = e.expand(s); !strings.Contains(lines[0], s) {
				bad = append(bad, fmt.Sprintf("error line does not say %q: %q", s, lines[0]))
			}
		}
	case run.code != 0:
		if r.stderr != "" {
			bad = append(bad, fmt.Sprintf("want nothing on stderr, got %q", r.stderr))
		}
	case len(run.warnHas) > 0:
		found := false
		for _, l := range lines {
			if !strings.HasPrefix(l, "session-handoff: warning: ") {
				continue
			}
			all := true
			for _, s := range run.warnHas {
				all = all && strings.Contains(l, e.expand(s))
			}
			found = found || all
		}
		if !found {
			bad = append(bad, fmt.Sprintf("no warning saying %q on stderr: %q", run.warnHas, r.stderr))
		}
	}
	for _, s := range run.outHas {
		if s = e.expand(s); !strings.Contains(r.stdout, s) {
			bad = append(bad, fmt.Sprintf("stdout does not say %q: %s", s, firstLines(r.stdout, 5)))
		}
	}
	for _, s := range run.outNot {
		if s = e.expand(s); strings.Contains(r.stdout, s) {
			bad = append(bad, fmt.Sprintf("stdout says %q: %s", s, firstLines(r.stdout, 5)))
		}
	}
	if run.check != nil {
		if err := run.check(e, r); err != nil {
			bad = append(bad, err.Error())
		}
	}
	return bad
}

// noSecretsUnder fails if any file under root holds one of the secrets.
func noSecretsUnder(root string, secrets []string) error {
	var found []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasSuffix(p, ".jsonl.in") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				rel, _ := filepath.Rel(root, p)
				found = append(found, fmt.Sprintf("%.12s… in %s", s, rel))
			}
		}
		return nil
	})
	if len(found) > 0 {
		return fmt.Errorf("secrets from the transcript reached files: %v", found)
	}
	return nil
}

// checkCorpusCovered fails when a corpus file has no input, so that a file
// added to testdata/hostile without its expected outcome is noticed.
func checkCorpusCovered(t *testing.T, inputs []hostileInput) {
	t.Helper()
	used := map[string]bool{}
	for _, in := range inputs {
		if in.file != "" {
			abs, _ := filepath.Abs(in.file)
			used[abs] = true
		}
	}
	var missing []string
	for _, dir := range []string{hostileCorpus, filepath.Join("..", "..", "internal", "transcript", "testdata", "hostile")} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == "README.md" {
				return nil
			}
			if abs, _ := filepath.Abs(p); !used[abs] {
				missing = append(missing, p)
			}
			return nil
		})
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("corpus files without an expected outcome in the campaign's tables: %v", missing)
	}
}

// ---------------------------------------------------------------- bundles

// bundleInputs is the hostile bundle corpus (hostile_test.go reads it):
// import must refuse each with exit 1 and an error naming the file and
// the cause its .err names; verify must answer with the exit code of the
// cause (5 invalid, 1 could not check, 3 untrusted, 4 unsigned).
func bundleInputs(t *testing.T) []hostileInput {
	var out []hostileInput
	for _, b := range loadHostileBundles(t) {
		in := hostileInput{kind: kindBundles, name: b.name, file: b.path, skip: b.skip}
		abs, _ := filepath.Abs(b.path)
		in.place = func(e *hostileEnv) error {
			for _, f := range []string{"age_identity.txt", "allowed_signers"} {
				if (f == "age_identity.txt" && b.noIdentity) || (f == "allowed_signers" && b.noTrust) {
					if err := os.Remove(filepath.Join(e.config, f)); err != nil {
						return err
					}
				}
			}
			if b.passphrase != "" {
				e.env[passphraseEnv] = b.passphrase
			} else {
				pass, err := os.ReadFile(filepath.Join(hostileBundleCorpus, "keys", "passphrase.txt"))
				if err != nil {
					return err
				}
				e.env[passphraseEnv] = strings.TrimSpace(string(pass))
			}
			return nil
		}
		imp := hostileRun{args: append([]string{"import", abs}, b.flags...), code: exitFailure, errHas: []string{abs + ": ", b.message}}
		if b.sentinel == "ErrUntrusted" {
			// import says it in its policy's words, with the key.
			imp.errHas = []string{abs + ": refused: signed by a key that is not in the trust store (SHA256:"}
		}
		ver := hostileRun{args: append([]string{"verify", abs}, b.flags...)}
		switch b.sentinel {
		case "ErrUntrusted":
			ver.code, ver.outHas = exitUntrusted, []string{"valid signature by an untrusted key"}
		case "ErrUnsigned":
			ver.code, ver.outHas = exitUnsigned, []string{"unsigned"}
		case "ErrNoIdentity", "ErrWrongPassphrase":
			ver.code, ver.errHas = exitFailure, []string{abs + ": ", b.message}
		default:
			ver.code, ver.errHas = exitInvalid, []string{abs + ": ", b.message}
		}
		in.runs = []hostileRun{imp, ver}
		out = append(out, in)
	}
	return out
}

// ------------------------------------------------------------ transcripts

// transcriptWant is what capture must do with one hostile transcript read
// as one agent's: refuse it (no valid record: exit 1 naming the file), or
// accept it, skipping what it cannot read, with these counts of lines and
// skipped records; check looks at the saved record as capture --json
// prints it. The counts and checks follow internal/capture/hostile_test.go.
type transcriptWant struct {
	refused        bool
	lines, skipped int
	check          func(out captureJSON) error
}

// captureJSON is the part of 'capture --json' the campaign looks at.
type captureJSON struct {
	Saved  bool `json:"saved"`
	Record struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Session struct {
			ID          string   `json:"id"`
			Requests    []string `json:"requests"`
			Skipped     int      `json:"skipped_records"`
			LastFailure *struct {
				Command  string `json:"command"`
				ExitCode *int   `json:"exit_code"`
			} `json:"last_failure"`
			Commands []struct {
				Command  string `json:"command"`
				Count    int    `json:"count"`
				ExitCode *int   `json:"exit_code"`
			} `json:"commands"`
			Tokens *struct {
				Input, Output, CacheRead int64
			} `json:"tokens"`
		} `json:"session"`
		Files []struct {
			Path   string `json:"path"`
			Action string `json:"action"`
			Edits  int    `json:"edits"`
		} `json:"files"`
		Redactions []struct {
			Kind  string `json:"kind"`
			Count int    `json:"count"`
		} `json:"redactions"`
		Attachments []struct {
			Name string `json:"name"`
		} `json:"attachments"`
	} `json:"record"`
	Stats struct {
		Lines     int `json:"lines"`
		Malformed int `json:"malformed"`
		TooLong   int `json:"too_long"`
		Unknown   int `json:"unknown"`
	} `json:"stats"`
}

func lastOf(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[len(list)-1]
}

// captureAgents are the --from values, in the order of the tables.
var captureAgents = []string{"claude-code", "codex", "gemini"}

// captureHostileWant: internal/transcript/testdata/hostile, by file, for claude-code,
// codex and gemini.
var captureHostileWant = map[string][3]transcriptWant{
	"blank.jsonl":       {{refused: true}, {refused: true}, {refused: true}},
	"empty.jsonl":       {{refused: true}, {refused: true}, {refused: true}},
	"garbage.bin":       {{refused: true}, {refused: true}, {refused: true}},
	"garbage_lines.bin": {{refused: true}, {refused: true}, {refused: true}},
	"only_null.jsonl":   {{refused: true}, {refused: true}, {refused: true}},
	"bom_crlf.jsonl": {
		{lines: 4, skipped: 2, check: func(o captureJSON) error {
			if lastOf(o.Record.Session.Requests) != "hello" || o.Stats.Malformed != 0 {
				return fmt.Errorf("requests %q, %d malformed: the BOM and CRLF must not break the first line", o.Record.Session.Requests, o.Stats.Malformed)
			}
			return nil
		}},
		{lines: 4, skipped: 3, check: func(o captureJSON) error {
			if o.Record.Session.ID != "c1" || o.Stats.Malformed != 0 {
				return fmt.Errorf("session %q, %d malformed", o.Record.Session.ID, o.Stats.Malformed)
			}
			return nil
		}},
		{lines: 4, skipped: 2, check: func(o captureJSON) error {
			if lastOf(o.Record.Session.Requests) != "crlf" || o.Record.Session.ID != "g1" {
				return fmt.Errorf("requests %q, session %q", o.Record.Session.Requests, o.Record.Session.ID)
			}
			return nil
		}},
	},
	"cycle.jsonl": {
		{lines: 6, skipped: 0, check: func(o captureJSON) error {
			if got := strings.Join(o.Record.Session.Requests, "|"); got != "in the cycle a|in the cycle c|leaf" {
				return fmt.Errorf("requests %q: a parent cycle must be cut, not followed", got)
			}
			return nil
		}},
		{lines: 6, skipped: 6}, {lines: 6, skipped: 6},
	},
	"deep_nesting.jsonl": {{lines: 8, skipped: 6}, {lines: 8, skipped: 6}, {lines: 8, skipped: 6}},
	"duplicate_ids.jsonl": {
		{lines: 65, skipped: 43, check: func(o captureJSON) error {
			for _, f := range o.Record.Files {
				if strings.HasSuffix(f.Path, "f") && f.Action == "created" && f.Edits == 1 {
					return nil
				}
			}
			return fmt.Errorf("files %+v: twenty copies of one message are one edit", o.Record.Files)
		}},
		{lines: 65, skipped: 44, check: func(o captureJSON) error {
			for _, c := range o.Record.Session.Commands {
				if c.Command == "ls" && c.Count == 20 {
					return nil
				}
			}
			return fmt.Errorf("commands %+v: want ls counted 20 times", o.Record.Session.Commands)
		}},
		{lines: 65, skipped: 42, check: func(o captureJSON) error {
			if got := strings.Join(o.Record.Session.Requests, "|"); got != "after rewind" || len(o.Record.Files) != 0 {
				return fmt.Errorf("requests %q files %+v: a rewind to an unknown id clears the conversation", got, o.Record.Files)
			}
			return nil
		}},
	},
	"huge_numbers.jsonl": {
		{lines: 16, skipped: 9, check: func(o captureJSON) error {
			tk := o.Record.Session.Tokens
			if tk == nil || tk.Input != 1<<63-1 || tk.Output != 1<<63-1 || tk.CacheRead != 0 {
				return fmt.Errorf("tokens %+v: want saturated sums, no negative counts", tk)
			}
			for _, c := range o.Record.Session.Commands {
				if c.Command == "x" && c.ExitCode != nil {
					return fmt.Errorf("command x has exit code %d: an exit code out of range is unknown", *c.ExitCode)
				}
			}
			return nil
		}},
		{lines: 16, skipped: 10}, {lines: 16, skipped: 13},
	},
	"invalid_utf8.jsonl": {
		{lines: 8, skipped: 4, check: func(o captureJSON) error {
			lf := o.Record.Session.LastFailure
			if lf == nil || !strings.HasPrefix(lf.Command, "echo ") || lf.ExitCode == nil || *lf.ExitCode != 1 {
				return fmt.Errorf("last failure %+v", lf)
			}
			return nil
		}},
		{lines: 8, skipped: 6}, {lines: 8, skipped: 5},
	},
	"legacy_broken.json": {{refused: true}, {refused: true}, {lines: 2, skipped: 1, check: func(o captureJSON) error {
		if lastOf(o.Record.Session.Requests) != "hi" || o.Record.Session.ID != "x" || o.Stats.Malformed == 0 {
			return fmt.Errorf("requests %q session %q stats %+v", o.Record.Session.Requests, o.Record.Session.ID, o.Stats)
		}
		return nil
	}}},
	"null.jsonl":        {{lines: 11, skipped: 10, check: malformed(7)}, {lines: 11, skipped: 10, check: malformed(7)}, {lines: 11, skipped: 10, check: malformed(7)}},
	"overlong.jsonl":    {{lines: 6, skipped: 2}, {lines: 6, skipped: 5}, {lines: 6, skipped: 4}},
	"truncated.jsonl":   {{lines: 4, skipped: 3, check: malformed(1)}, {lines: 4, skipped: 3, check: malformed(1)}, {lines: 4, skipped: 3, check: malformed(1)}},
	"wrong_types.jsonl": {{lines: 28, skipped: 22}, {lines: 28, skipped: 16}, {lines: 28, skipped: 22}},
}

func malformed(n int) func(captureJSON) error {
	return func(o captureJSON) error {
		if o.Stats.Malformed != n {
			return fmt.Errorf("%d malformed lines, want %d", o.Stats.Malformed, n)
		}
		return nil
	}
}

// secretTranscripts: testdata/hostile/transcripts, templates with secrets
// in hostile places (escaped, split by control characters, in broken and
// overlong lines, in titles, todos, failures and compaction summaries).
// Each is captured with and without --attach-transcript; no secret may
// reach the store, an attachment or the output. redacted says whether the
// record must report redactions (it must whenever a secret was readable).
var secretTranscripts = map[string]struct {
	agent    string
	redacted bool
	tooLong  int
}{
	"secrets-everywhere.claude.jsonl":      {"claude-code", true, 0},
	"secrets-escaped.claude.jsonl":         {"claude-code", true, 0},
	"secrets-in-broken-lines.claude.jsonl": {"claude-code", false, 0},
	"secrets-split.claude.jsonl":           {"claude-code", false, 0},
	"secrets-overlong.claude.jsonl":        {"claude-code", false, 1},
	"secrets.codex.jsonl":                  {"codex", true, 0},
	"secrets.gemini.jsonl":                 {"gemini", true, 0},
}

func transcriptInputs(t *testing.T) []hostileInput {
	var out []hostileInput
	dir := filepath.Join("..", "..", "internal", "transcript", "testdata", "hostile")
	names := make([]string, 0, len(captureHostileWant))
	for n := range captureHostileWant {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		want := captureHostileWant[name]
		file, _ := filepath.Abs(filepath.Join(dir, name))
		in := hostileInput{kind: kindTranscripts, name: name, file: file}
		for i, agent := range captureAgents {
			w := want[i]
			run := hostileRun{args: []string{"capture", "--from", agent, "--session", file, "--project", "{project}", "--json"}}
			switch det, got := detectedAs(t, file, capture.Agent(agent)); {
			case det.Foreign:
				run.code, run.errHas = exitFailure, []string{file, "not an agent session transcript"}
			case det.Agent != "" && det.Agent != capture.Agent(agent):
				// Another agent's file named with the wrong --from: an
				// error, never an empty handoff (issue 17, item 3).
				run.code, run.errHas = exitFailure, []string{file, "but it looks like"}
			case w.refused:
				run.code, run.errHas = exitFailure, []string{file, "no valid transcript record"}
			case got != nil && got.Empty():
				run.code, run.errHas = exitFailure, []string{file, "nothing to capture"}
			default:
				run.mayChange = []string{"home:data/"}
				run.check = acceptedCapture(w)
			}
			in.runs = append(in.runs, run)
		}
		out = append(out, in)
	}
	secretNames := make([]string, 0, len(secretTranscripts))
	for n := range secretTranscripts {
		secretNames = append(secretNames, n)
	}
	sort.Strings(secretNames)
	for i, name := range secretNames {
		st := secretTranscripts[name]
		tmpl := filepath.Join(hostileCorpus, "transcripts", name)
		seed := uint64(i + 1)
		in := hostileInput{kind: kindTranscripts, name: name, file: tmpl}
		in.place = func(e *hostileEnv) error {
			data, err := os.ReadFile(tmpl)
			if err != nil {
				return err
			}
			filled, secrets := fillSecrets(data, seed)
			e.input = filepath.Join(e.root, strings.TrimSuffix(name, ".jsonl")+".jsonl.in")
			e.secrets = secrets
			return os.WriteFile(e.input, filled, 0o600)
		}
		w := transcriptWant{check: func(o captureJSON) error {
			if st.redacted && len(o.Record.Redactions) == 0 {
				return fmt.Errorf("no redaction reported, though the transcript holds readable secrets")
			}
			if o.Stats.TooLong != st.tooLong {
				return fmt.Errorf("%d lines too long, want %d", o.Stats.TooLong, st.tooLong)
			}
			return nil
		}, lines: -1}
		for _, attach := range []bool{false, true} {
			args := []string{"capture", "--from", st.agent, "--session", "{input}", "--project", "{project}", "--json"}
			if attach {
				args = append(args, "--attach-transcript")
			}
			in.runs = append(in.runs, hostileRun{args: args, mayChange: []string{"home:data/"}, check: acceptedCapture(w)})
		}
		out = append(out, in)
	}
	return out
}

// detectedAs is what capture makes of file read as agent: what the file
// looks like, and its digest (nil when the reader refuses it).
func detectedAs(t *testing.T, file string, agent capture.Agent) (capture.Detected, *capture.Digest) {
	t.Helper()
	det, err := capture.DetectFile(file)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := capture.ReadTranscript(agent, file, capture.Limits{})
	return det, d
}

// acceptedCapture checks an accepted capture: its JSON, the counts, the
// record bounded, and a store that still checks clean.
func acceptedCapture(w transcriptWant) func(e *hostileEnv, r cliResult) error {
	return func(e *hostileEnv, r cliResult) error {
		if r.code != 0 {
			return fmt.Errorf("exit %d", r.code)
		}
		var o captureJSON
		if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
			return fmt.Errorf("capture --json printed no JSON: %v", err)
		}
		if !o.Saved || o.Record.ID == "" {
			return fmt.Errorf("not saved")
		}
		if w.lines >= 0 && (o.Stats.Lines != w.lines || o.Record.Session.Skipped != w.skipped) {
			return fmt.Errorf("%d lines, %d skipped; want %d, %d", o.Stats.Lines, o.Record.Session.Skipped, w.lines, w.skipped)
		}
		if w.check != nil {
			if err := w.check(o); err != nil {
				return err
			}
		}
		rec := filepath.Join(e.data, "records")
		var big []string
		filepath.WalkDir(rec, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil && info.Size() > 1<<20 {
					big = append(big, p)
				}
			}
			return nil
		})
		if len(big) > 0 {
			return fmt.Errorf("records over 1 MiB: %v", big)
		}
		if c := runCLI(e.env, "", "store", "check"); c.code != 0 {
			return fmt.Errorf("store check after the capture: exit %d: %s%s", c.code, c.stdout, c.stderr)
		}
		return nil
	}
}

// fillSecrets replaces the placeholders of a transcript template with
// fake secrets of real shapes, made from seed, and returns the text and
// the secrets that must never be stored. A placeholder is @@NAME@@ or
// @@NAME:HOW@@, HOW being how the secret is written in the JSON: json
// (escaped as a JSON string), u (every character as \u00XX), u2 (the same,
// escaped once more, for JSON inside a JSON string), nul, zw, esc, cr,
// bidi (split in two by a NUL, a zero-width space, an escape sequence, a
// carriage return, a right-to-left override). @@pad:N@@ is N bytes of
// padding and @@raw:HEX@@ raw bytes.
func fillSecrets(tmpl []byte, seed uint64) ([]byte, []string) {
	rng := rand.New(rand.NewPCG(seed, 9))
	pick := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	const (
		alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
		b64url = alnum + "-_"
		b64    = alnum + "+/"
	)
	keyLines := []string{pick(b64, 70), pick(b64, 70), pick(b64, 70)}
	values := map[string]string{
		"github":    "ghp_" + pick(alnum, 36),
		"aws":       "AKIA" + pick(upnum, 16),
		"anthropic": "sk-ant-api03-" + pick(b64url, 93) + "AA",
		"openai":    "sk-proj-" + pick(b64url, 120),
		"bearer":    pick(alnum, 40),
		"urlpw":     pick(alnum, 24),
		"privkey":   "-----BEGIN OPENSSH PRIVATE KEY-----\n" + strings.Join(keyLines, "\n") + "\n-----END OPENSSH PRIVATE KEY-----",
	}
	var secrets []string
	used := map[string]bool{}
	var b strings.Builder
	s := string(tmpl)
	for {
		i := strings.Index(s, "@@")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.Index(s[i+2:], "@@")
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		ph := s[i+2 : i+2+j]
		s = s[i+2+j+2:]
		name, how, _ := strings.Cut(ph, ":")
		switch name {
		case "pad":
			var n int
			fmt.Sscan(how, &n)
			b.WriteString(strings.Repeat("x", n))
			continue
		case "raw":
			var raw []byte
			fmt.Sscanf(how, "%x", &raw)
			b.Write(raw)
			continue
		}
		v, ok := values[name]
		if !ok {
			panic("unknown placeholder " + ph)
		}
		if !used[name] {
			used[name] = true
			if name == "privkey" {
				secrets = append(secrets, keyLines...)
			} else {
				secrets = append(secrets, v)
			}
		}
		half := len(v) / 2
		switch how {
		case "":
			b.WriteString(v)
		case "json":
			q, _ := json.Marshal(v)
			b.Write(q[1 : len(q)-1])
		case "u", "u2":
			esc := `\u`
			if how == "u2" {
				esc = `\\u`
			}
			for _, c := range []byte(v) {
				fmt.Fprintf(&b, "%s%04x", esc, c)
			}
		case "nul":
			b.WriteString(v[:half] + `\u0000` + v[half:])
		case "zw":
			b.WriteString(v[:half] + "\u200b" + v[half:])
		case "esc":
			b.WriteString(v[:half] + `\u001b[0m` + v[half:])
		case "cr":
			b.WriteString(v[:half] + `\r` + v[half:])
		case "bidi":
			b.WriteString(v[:half] + "\u202e" + v[half:])
		default:
			panic("unknown placeholder " + ph)
		}
	}
	return []byte(b.String()), secrets
}

// ------------------------------------------------------------------- keys

// keyInputs: damaged signing keys, public keys and age identities in the
// keys directory. export must refuse a bad signing key, import and
// 'key show' a bad identity, 'key show' a bad public key, each naming the
// file; none may hang on a FIFO or read a huge file whole.
func keyInputs() []hostileInput {
	dir := filepath.Join(hostileCorpus, "keys")
	exportRun := func(cause ...string) hostileRun {
		return hostileRun{args: []string{"export", "latest", "--to", "{recipient}", "-o", "{out}"}, code: exitFailure,
			errHas: append([]string{"{config}/signing_key"}, cause...)}
	}
	importRun := func(cause ...string) hostileRun {
		return hostileRun{args: []string{"import", "{good}"}, code: exitFailure, errHas: append([]string{"{config}/age_identity.txt"}, cause...)}
	}
	showRun := func(file string, cause ...string) hostileRun {
		return hostileRun{args: []string{"key", "show"}, code: exitFailure, errHas: append([]string{"{config}/" + file}, cause...)}
	}
	static := func(file, dst string, runs ...hostileRun) hostileInput {
		src := filepath.Join(dir, file)
		return hostileInput{kind: kindKeys, name: file, file: src, runs: runs,
			place: func(e *hostileEnv) error { return placeCopy(src, filepath.Join(e.config, dst), 0o600) }}
	}
	made := func(name, dst string, make func(path string) error, runs ...hostileRun) hostileInput {
		return hostileInput{kind: kindKeys, name: name, runs: runs,
			place: func(e *hostileEnv) error {
				p := filepath.Join(e.config, dst)
				if err := os.Remove(p); err != nil {
					return err
				}
				return make(p)
			}}
	}
	return []hostileInput{
		static("signing_key.truncated", "signing_key", exportRun("parse signing key")),
		static("signing_key.rsa", "signing_key", exportRun("ssh-rsa", "only ssh-ed25519 keys can sign")),
		static("signing_key.ecdsa", "signing_key", exportRun("ecdsa", "only ssh-ed25519 keys can sign")),
		static("signing_key.public", "signing_key", exportRun("parse signing key")),
		static("signing_key.garbage", "signing_key", exportRun("parse signing key")),
		static("signing_key.bad-base64", "signing_key", exportRun("parse signing key")),
		static("signing_key.mismatched", "signing_key", exportRun("public half does not match its seed")),
		made("signing_key.huge", "signing_key", hugeFile(1<<20, "-----BEGIN OPENSSH PRIVATE KEY-----\n"), exportRun("too large")),
		made("signing_key.directory", "signing_key", mkdir, exportRun("not a regular file")),
		made("signing_key.fifo", "signing_key", mkfifo, exportRun("not a regular file")),
		made("signing_key.link-to-dev-zero", "signing_key", symlinkTo("/dev/zero"), exportRun("not a regular file")),
		made("signing_key.link-loop", "signing_key", selfLink, exportRun("too many levels of symbolic links")),
		made("signing_key.world-readable", "signing_key", modeOf(filepath.Join(hostileBundleCorpus, "keys", "signing.key"), 0o644),
			hostileRun{args: []string{"export", "latest", "--to", "{recipient}", "-o", "{out}"}, code: exitFailure,
				errHas: []string{"{config}/signing_key", "mode 0644", "chmod 600"}}),
		static("signing_key_pub.bad-base64", "signing_key.pub", showRun("signing_key.pub", "not valid base64")),
		static("signing_key_pub.other-key", "signing_key.pub", showRun("signing_key.pub", "does not match", "{config}/signing_key")),
		static("signing_key_pub.escape-comment", "signing_key.pub", hostileRun{args: []string{"key", "show"}, code: exitOK,
			outHas: []string{aliceFingerprint}, outNot: []string{"\x1b", "\x07"}}),
		static("age_identity.truncated", "age_identity.txt", importRun("malformed age secret key"), showRun("age_identity.txt", "malformed age secret key")),
		static("age_identity.bad-checksum", "age_identity.txt", importRun("malformed age secret key"), showRun("age_identity.txt", "malformed age secret key")),
		static("age_identity.nul", "age_identity.txt", importRun("malformed age secret key"), showRun("age_identity.txt", "malformed age secret key")),
		static("age_identity.recipient", "age_identity.txt", importRun("not an age secret key"), showRun("age_identity.txt", "not an age secret key")),
		static("age_identity.plugin", "age_identity.txt", importRun("plugin identities are not supported"), showRun("age_identity.txt", "plugin")),
		static("age_identity.ssh-ed25519-other", "age_identity.txt", hostileRun{args: []string{"import", "{good}"}, code: exitFailure,
			errHas: []string{"{good}", "encrypted to someone else"}}),
		made("age_identity.huge", "age_identity.txt", hugeFile(2<<20, "AGE-SECRET-KEY-1"), importRun("too large"), showRun("age_identity.txt", "too large")),
		made("age_identity.directory", "age_identity.txt", mkdir, importRun("not a regular file"), showRun("age_identity.txt", "not a regular file")),
		made("age_identity.fifo", "age_identity.txt", mkfifo, importRun("not a regular file"), showRun("age_identity.txt", "not a regular file")),
		made("age_identity.link-to-dev-zero", "age_identity.txt", symlinkTo("/dev/zero"), importRun("not a regular file"), showRun("age_identity.txt", "not a regular file")),
		made("age_identity.world-readable", "age_identity.txt", modeOf(filepath.Join(hostileBundleCorpus, "keys", "age.txt"), 0o644),
			importRun("mode 0644", "chmod 600")),
	}
}

// ------------------------------------------------------------------ trust

// trustInputs: damaged or dangerous allowed_signers files. A file that
// cannot be read fails verify, import and 'trust list' with exit 1 and the
// line; a line with options we must not honour (cert-authority, command=,
// another namespace, outside its validity) makes the key untrusted:
// verify exits 3 and import refuses.
func trustInputs() []hostileInput {
	dir := filepath.Join(hostileCorpus, "trust")
	broken := func(cause ...string) []hostileRun {
		has := append([]string{"{config}/allowed_signers"}, cause...)
		return []hostileRun{
			{args: []string{"verify", "{good}"}, code: exitFailure, errHas: has},
			{args: []string{"import", "{good}"}, code: exitFailure, errHas: has},
			{args: []string{"trust", "list"}, code: exitFailure, errHas: has},
		}
	}
	untrusted := []hostileRun{
		{args: []string{"verify", "{good}"}, code: exitUntrusted, outHas: []string{"valid signature by an untrusted key " + aliceFingerprint}},
		{args: []string{"import", "{good}"}, code: exitFailure, errHas: []string{"{good}: refused: signed by a key that is not in the trust store (" + aliceFingerprint + ")"}},
		{args: []string{"trust", "list"}, code: exitOK, outHas: []string{aliceFingerprint, "not used for verification"}},
	}
	static := func(file string, runs []hostileRun) hostileInput {
		src := filepath.Join(dir, file+".allowed_signers")
		return hostileInput{kind: kindTrust, name: file, file: src, runs: runs,
			place: func(e *hostileEnv) error { return placeCopy(src, filepath.Join(e.config, "allowed_signers"), 0o644) }}
	}
	made := func(name string, make func(path string) error, runs []hostileRun) hostileInput {
		return hostileInput{kind: kindTrust, name: name, runs: runs, place: func(e *hostileEnv) error {
			p := filepath.Join(e.config, "allowed_signers")
			if err := os.Remove(p); err != nil {
				return err
			}
			return make(p)
		}}
	}
	aliceLine := "alice@test ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIkcoS8/w10b6MxVHVGNcB9r1yjVeIfJq7/rRLcvjsy9\n"
	return []hostileInput{
		static("bad-base64", broken(":1:", "not valid base64")),
		static("nul", broken(":2:", "NUL")),
		static("dsa", broken(":1:", "unsupported key type ssh-dss")),
		static("rsa-labelled-ed25519", broken(":1:", `contains a "ssh-rsa" key`)),
		static("short-key", broken(":1:", "parse public key")),
		static("unterminated-quote", broken(":1:", "unterminated quote")),
		static("no-principal", broken(":1:", "principals are missing")),
		static("option-without-value", broken(":1:", "namespaces needs a value")),
		static("bad-time", broken(":1:", "invalid time")),
		static("cert-authority", untrusted),
		static("command-option", untrusted),
		static("other-namespace", untrusted),
		static("expired", untrusted),
		static("not-yet-valid", untrusted),
		// alice@test twice, the second line with mallory's key: both keys
		// verify as alice@test (that is what the file says), and verify
		// names the key that signed, so the two are told apart.
		static("duplicate-principal", []hostileRun{
			{args: []string{"verify", "{good}"}, code: exitOK, outHas: []string{"verified: signed by alice@test (" + aliceFingerprint + ")"}},
			{args: []string{"verify", "{mallory}"}, code: exitOK, outHas: []string{"verified: signed by alice@test (" + malloryFingerprint + ")"}},
			{args: []string{"trust", "list"}, code: exitOK, outHas: []string{aliceFingerprint, malloryFingerprint}},
		}),
		// Principals and comments are printed without the control
		// characters, bidi controls and BOMs a hand-edited file may hold.
		static("escape-principal", []hostileRun{
			{args: []string{"verify", "{good}"}, code: exitOK, outHas: []string{aliceFingerprint}, outNot: []string{"\x1b", "\x07"}},
			{args: []string{"trust", "list"}, code: exitOK, outHas: []string{aliceFingerprint}, outNot: []string{"\x1b", "\x07"}},
		}),
		static("bom", []hostileRun{
			{args: []string{"verify", "{good}"}, code: exitOK, outHas: []string{"verified: signed by alice@test (" + aliceFingerprint + ")"}, outNot: []string{"\ufeff"}},
			{args: []string{"trust", "list"}, code: exitOK, outHas: []string{aliceFingerprint}, outNot: []string{"\ufeff"}},
		}),
		static("invalid-utf8", []hostileRun{
			{args: []string{"verify", "{good}"}, code: exitOK, outHas: []string{"verified: signed by alice@test (" + aliceFingerprint + ")"}},
			{args: []string{"trust", "list", "--json"}, code: exitOK, outHas: []string{aliceFingerprint}, check: validJSONOut},
		}),
		made("huge", hugeFile(2<<20, aliceLine), broken("too large")),
		made("too-many-entries", func(p string) error {
			return os.WriteFile(p, []byte(strings.Repeat(aliceLine, 10001)), 0o644)
		}, broken(":10001:", "more than 10000 entries")),
		made("long-line", func(p string) error {
			return os.WriteFile(p, []byte("alice@test ssh-ed25519 AAAA"+strings.Repeat("A", 900<<10)+"\n"), 0o644)
		}, broken(":1:")),
		made("directory", mkdir, broken("not a regular file")),
		made("fifo", mkfifo, broken("not a regular file")),
		made("link-to-dev-zero", symlinkTo("/dev/zero"), broken("not a regular file")),
	}
}

// flagValue is the value of a command-line flag, "" if there is none.
func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

func validJSONOut(_ *hostileEnv, r cliResult) error {
	if !json.Valid([]byte(r.stdout)) {
		return fmt.Errorf("--json printed invalid JSON: %q", firstLines(r.stdout, 3))
	}
	return nil
}

// ---------------------------------------------------------------- configs

// configInputs: hostile handover.toml (handover allow and run refuse them,
// naming the file and the cause, and nothing runs), redaction pattern
// files (capture refuses to run without the user's patterns), agents'
// settings files (integrate refuses, or, for files it can edit without
// understanding every byte, edits and undoes exactly), and memory files
// with damaged headers (show refuses the file and names the line, the
// listing warns, write and compact refuse to touch it).
func configInputs() []hostileInput {
	var out []hostileInput
	handoverCauses := map[string]string{
		"unknown-key":         `unknown key "steps.rn"`,
		"field-of-other-kind": `"run" does not apply to kind save`,
		"unknown-kind":        `kind "deploy"`,
		"duplicate-step":      "the name is used twice",
		"name-escapes":        `name "../x"`,
		"exec-without-run":    "an exec step needs run",
		"bad-timeout":         `duration "soon"`,
		"huge-timeout":        "timeout 48h0m0s",
		"memory-escapes":      "must stay inside the project",
		"memory-absolute":     "must be relative to the project",
		"output-absolute":     "must be relative to the project",
		"output-escapes":      "must stay inside the project",
		"bad-action":          `action "delete"`,
		"no-steps":            "no steps",
		"not-toml":            "toml: line 2",
		"wrong-type":          "incompatible types",
		"duplicate-key":       "already been defined",
		"nul":                 "control characters",
		"invalid-utf8":        "invalid UTF-8",
		"steps-not-array":     "incompatible types",
	}
	hdir := filepath.Join(hostileCorpus, "configs", "handover")
	for _, name := range sortedKeys(handoverCauses) {
		src := filepath.Join(hdir, name+".toml")
		cause := handoverCauses[name]
		out = append(out, hostileInput{kind: kindConfigs, name: "handover/" + name, file: src,
			place: func(e *hostileEnv) error { return placeCopy(src, filepath.Join(e.project, "handover.toml"), 0o644) },
			runs: []hostileRun{
				{args: []string{"handover", "allow", "--project", "{project}"}, code: exitFailure, errHas: []string{"{project}/handover.toml: ", cause}},
				{args: []string{"handover", "run", "--project", "{project}", "--config", "{project}/handover.toml"}, code: exitFailure, errHas: []string{"{project}/handover.toml: ", cause}},
			}})
	}
	handoverMade := func(name string, make func(p string) error, cause string) hostileInput {
		return hostileInput{kind: kindConfigs, name: "handover/" + name,
			place: func(e *hostileEnv) error { return make(filepath.Join(e.project, "handover.toml")) },
			runs: []hostileRun{
				{args: []string{"handover", "allow", "--project", "{project}"}, code: exitFailure, errHas: []string{"{project}/handover.toml", cause}},
				{args: []string{"handover", "run", "--project", "{project}"}, code: exitFailure, errHas: []string{"{project}/handover.toml", cause}},
			}}
	}
	out = append(out,
		handoverMade("huge", hugeFile(512<<10, "# "), "too large"),
		handoverMade("directory", mkdir, "not a regular file"),
		// A valid configuration that runs a command: never before
		// 'handover allow' approved it, so the command does not run.
		hostileInput{kind: kindConfigs, name: "handover/unapproved-exec", file: filepath.Join(hdir, "unapproved-exec.toml"),
			place: func(e *hostileEnv) error {
				return placeCopy(filepath.Join(hdir, "unapproved-exec.toml"), filepath.Join(e.project, "handover.toml"), 0o644)
			},
			runs: []hostileRun{{args: []string{"handover", "run", "--project", "{project}"}, code: exitFailure,
				errHas: []string{"{project}/handover.toml", "is not approved to run on this machine"}}}},
		// An approval of a crafted path that holds the configuration's
		// digest and path: approvals match whole lines, not substrings.
		hostileInput{kind: kindConfigs, name: "handover/approved-by-substring",
			place: func(e *hostileEnv) error {
				cfg := filepath.Join(e.project, "handover.toml")
				if err := placeCopy(filepath.Join(hdir, "unapproved-exec.toml"), cfg, 0o644); err != nil {
					return err
				}
				data, err := os.ReadFile(cfg)
				if err != nil {
					return err
				}
				line := fmt.Sprintf("%x /tmp/evil/%x %s\n", sha256.Sum256([]byte("# harmless\n")), sha256.Sum256(data), cfg)
				return os.WriteFile(filepath.Join(e.config, "handover-approved"), []byte(line), 0o600)
			},
			runs: []hostileRun{{args: []string{"handover", "run", "--project", "{project}"}, code: exitFailure,
				errHas: []string{"{project}/handover.toml", "is not approved to run on this machine"}}}},
		// A damaged approvals file approves nothing and names its line.
		hostileInput{kind: kindConfigs, name: "handover/approvals-malformed",
			place: func(e *hostileEnv) error {
				if err := placeCopy(filepath.Join(hdir, "unapproved-exec.toml"), filepath.Join(e.project, "handover.toml"), 0o644); err != nil {
					return err
				}
				return os.WriteFile(filepath.Join(e.config, "handover-approved"), []byte("approve everything\n"), 0o600)
			},
			runs: []hostileRun{{args: []string{"handover", "run", "--project", "{project}"}, code: exitFailure,
				errHas: []string{"{config}/handover-approved:1: want a sha256"}}}},
	)

	redactCauses := map[string]string{
		"bad-regexp":      "missing closing )",
		"no-regexp":       ":1: want 'KIND REGEXP'",
		"bad-kind":        "kind must be 1 to 40",
		"kind-too-long":   "kind must be 1 to 40",
		"matches-empty":   "matches the empty string",
		"huge-repeat":     "invalid repeat count",
		"invalid-utf8":    "invalid UTF-8",
		"unknown-class":   "invalid character class",
		"regexp-too-long": "longer than 4096 bytes",
		"third-line-bad":  ":3: want 'KIND REGEXP'",
	}
	rdir := filepath.Join(hostileCorpus, "configs", "redact")
	captureRun := func(cause ...string) hostileRun {
		return hostileRun{args: []string{"capture", "--from", "claude-code", "--session", "{transcript}", "--project", "{project}"},
			code: exitFailure, errHas: append([]string{"{config}/redact-patterns"}, cause...)}
	}
	for _, name := range sortedKeys(redactCauses) {
		src := filepath.Join(rdir, name+".patterns")
		out = append(out, hostileInput{kind: kindConfigs, name: "redact/" + name, file: src,
			place: func(e *hostileEnv) error { return placeCopy(src, filepath.Join(e.config, "redact-patterns"), 0o600) },
			runs:  []hostileRun{captureRun(redactCauses[name])}})
	}
	for name, make := range map[string]func(string) error{"huge": hugeFile(128<<10, "k x\n"), "directory": mkdir, "fifo": mkfifo} {
		cause := map[string]string{"huge": "over 65536 bytes", "directory": "not a regular file", "fifo": "not a regular file"}[name]
		out = append(out, hostileInput{kind: kindConfigs, name: "redact/" + name,
			place: func(e *hostileEnv) error { return make(filepath.Join(e.config, "redact-patterns")) },
			runs:  []hostileRun{captureRun(cause)}})
	}

	settingsCauses := map[string]string{
		"broken":               "unterminated array",
		"not-object":           "must be one JSON object",
		"hooks-not-object":     `"hooks": not a JSON object`,
		"event-not-array":      `"hooks"."SessionStart" is not an array`,
		"trailing-data":        "data after the object",
		"unterminated-comment": "unterminated comment",
		"deep-nesting":         "must be one JSON object",
	}
	sdir := filepath.Join(hostileCorpus, "configs", "settings")
	integrateWrites := []string{"project:.claude/settings.json", "home:data/integrations"}
	settingsPath := func(e *hostileEnv) string { return filepath.Join(e.project, ".claude", "settings.json") }
	integrateRun := func(cause ...string) hostileRun {
		return hostileRun{args: []string{"integrate", "claude-code", "--dir", "{project}"}, code: exitFailure,
			errHas: append([]string{"{project}/.claude/settings.json"}, cause...)}
	}
	for _, name := range sortedKeys(settingsCauses) {
		src := filepath.Join(sdir, name+".json")
		out = append(out, hostileInput{kind: kindConfigs, name: "settings/" + name, file: src,
			place: func(e *hostileEnv) error { return placeCopy(src, settingsPath(e), 0o644) },
			runs:  []hostileRun{integrateRun(settingsCauses[name])}})
	}
	// Files integrate edits by insertion without understanding every byte
	// (duplicate keys, bytes that are not UTF-8, a NUL in a string): the
	// hooks go in, and --remove gives back the file byte for byte.
	for _, name := range []string{"duplicate-hooks", "invalid-utf8", "nul"} {
		src := filepath.Join(sdir, name+".json")
		out = append(out, hostileInput{kind: kindConfigs, name: "settings/" + name, file: src,
			place: func(e *hostileEnv) error { return placeCopy(src, settingsPath(e), 0o644) },
			runs: []hostileRun{
				{args: []string{"integrate", "claude-code", "--dir", "{project}"}, code: exitOK, mayChange: integrateWrites, outHas: []string{"installed the session-handoff hooks"}},
				{args: []string{"integrate", "claude-code", "--dir", "{project}", "--remove"}, code: exitOK, mayChange: integrateWrites, outHas: []string{"restored"}},
			},
			after: func(e *hostileEnv, before map[string]treeState) error {
				now, err := snapshotTree(e.project, func(rel string) bool { return rel == ".git" })
				if err != nil {
					return err
				}
				if d := before["project"].diff(now); len(d) > 0 {
					return fmt.Errorf("integrate and --remove did not give the project back as it was: %v", d)
				}
				return nil
			}})
	}
	for name, make := range map[string]func(string) error{
		"huge":          hugeFile(2<<20, `{"a": "`),
		"directory":     mkdir,
		"fifo":          mkfifo,
		"link-outside":  symlinkTo("/etc/hostname"),
		"link-dangling": symlinkTo("/nonexistent/settings.json"),
	} {
		cause := map[string]string{"huge": "too large", "directory": "not a regular file", "fifo": "not a regular file",
			"link-outside": "is a symbolic link", "link-dangling": "is a symbolic link"}[name]
		out = append(out, hostileInput{kind: kindConfigs, name: "settings/" + name,
			place: func(e *hostileEnv) error {
				if err := os.MkdirAll(filepath.Dir(settingsPath(e)), 0o755); err != nil {
					return err
				}
				return make(settingsPath(e))
			},
			runs: []hostileRun{integrateRun(cause)}})
	}

	out = append(out, memoryInputs()...)
	return out
}

// memoryCauses: testdata/hostile/configs/memory, by file: where the file
// goes in the memory directory and the cause every reader must name.
var memoryCauses = map[string]struct{ dst, cause string }{
	"note-no-header":        {memNote, "line 1: no memory header"},
	"note-double-bom":       {memNote, "line 1: no memory header"},
	"note-version-2":        {memNote, `line 1: memory header: version "2"`},
	"note-wrong-tag":        {memNote, "does not match its name"},
	"note-wrong-date":       {memNote, "does not match its name"},
	"note-layer-2-header":   {memNote, "does not match its name"},
	"note-bad-marker":       {memNote, `line 4: entry marker: date "yesterday"`},
	"note-entry-other-day":  {memNote, "line 7: entry dated 2026-03-09 in the note of 2026-03-05"},
	"note-duplicate-field":  {memNote, `field "layer" given twice`},
	"note-unknown-field":    {memNote, `unknown field "owner"`},
	"note-unclosed-header":  {memNote, "not a whole comment line"},
	"note-control-char":     {memNote, "line 5: control character U+001B"},
	"note-invalid-utf8":     {memNote, "not valid UTF-8"},
	"state-layer-1-header":  {"layer2/current-state.md", "does not match its name"},
	"soul-wrong-tag":        {"SOUL.md", "does not match its name"},
	"archive-bad-marker":    {"layer3/2026-03-api-archive.md", "invalid handoff id"},
	"note-link-outside":     {memNote, "is a symbolic link"},
	"note-fifo":             {memNote, "not a regular file"},
	"note-directory":        {memNote, "not a regular file"},
	"note-huge":             {memNote, "over the 4 MiB limit"},
	"archive-link-outside":  {"layer3/2026-03-api-archive.md", "is a symbolic link"},
	"state-link-outside":    {"layer2/current-state.md", "is a symbolic link"},
	"layer1-month-dir-link": {"layer1/2026-03", "outside the memory root"},
}

// memNote is the note of 2026-03-05 the template wrote.
const memNote = "layer1/2026-03/api-2026-03-05.md"

func memoryInputs() []hostileInput {
	var out []hostileInput
	mdir := filepath.Join(hostileCorpus, "configs", "memory")
	made := map[string]func(string) error{
		"note-link-outside":     symlinkTo("/etc/hostname"),
		"note-fifo":             mkfifo,
		"note-directory":        mkdir,
		"note-huge":             hugeFile(5<<20, "<!-- session-handoff:memory v=1 layer=1 tag=api date=2026-03-05 -->\n"),
		"archive-link-outside":  symlinkTo("/etc/hostname"),
		"state-link-outside":    symlinkTo("/etc/hostname"),
		"layer1-month-dir-link": symlinkTo("/tmp"),
	}
	for _, name := range sortedKeys(memoryCauses) {
		mc := memoryCauses[name]
		in := hostileInput{kind: kindConfigs, name: "memory/" + name}
		if mk, ok := made[name]; ok {
			in.place = func(e *hostileEnv) error {
				p := filepath.Join(e.memory, filepath.FromSlash(mc.dst))
				if err := os.RemoveAll(p); err != nil {
					return err
				}
				return mk(p)
			}
		} else {
			src := filepath.Join(mdir, name+".md")
			in.file = src
			in.place = func(e *hostileEnv) error {
				return placeCopy(src, filepath.Join(e.memory, filepath.FromSlash(mc.dst)), 0o644)
			}
		}
		shown := "{memory}/" + mc.dst
		with := func(args ...string) []string {
			return append([]string{"memory", args[0], "--dir", "{memory}"}, args[1:]...)
		}
		switch {
		case name == "layer1-month-dir-link":
			// The month directory itself leads out of the memory root.
			in.runs = []hostileRun{
				{args: with("write", "--layer", "1", "--tag", "api", "--date", "2026-03-05", "-"), stdin: "new note\n", code: exitFailure, errHas: []string{shown, mc.cause}},
				{args: with("compact", "--month", "2026-03"), code: exitFailure, errHas: []string{shown, mc.cause}},
			}
		default:
			in.runs = []hostileRun{
				{args: with("show", mc.dst), code: exitFailure, errHas: []string{shown, mc.cause}},
				{args: with("show"), code: exitOK, warnHas: []string{shown, mc.cause}},
			}
		}
		switch {
		case strings.HasPrefix(name, "note-"):
			// A damaged note is neither appended to nor compacted away.
			in.runs = append(in.runs,
				hostileRun{args: with("write", "--layer", "1", "--tag", "api", "--date", "2026-03-05", "-"), stdin: "new note\n", code: exitFailure, errHas: []string{shown, mc.cause}},
				hostileRun{args: with("compact", "--month", "2026-03"), code: exitFailure, errHas: []string{shown, mc.cause}})
		case strings.HasPrefix(name, "archive-"):
			// Compaction into a damaged archive stops before any note goes.
			in.runs = append(in.runs, hostileRun{args: with("compact", "--month", "2026-03"), code: exitFailure, errHas: []string{shown, mc.cause}})
		case strings.HasPrefix(name, "state-"):
			in.runs = append(in.runs, hostileRun{args: with("show", "--layer", "2"), code: exitFailure, errHas: []string{shown, mc.cause}})
		}
		out = append(out, in)
	}
	return out
}

// ---------------------------------------------------------------- helpers

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// placeCopy copies a corpus file into place with the given mode,
// replacing what is there.
func placeCopy(src, dst string, mode os.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	os.Remove(dst)
	if err := os.WriteFile(dst, data, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

func hugeFile(size int, prefix string) func(string) error {
	return func(p string) error {
		data := []byte(prefix + strings.Repeat("A", size))
		return os.WriteFile(p, data, 0o600)
	}
}

func mkdir(p string) error  { return os.Mkdir(p, 0o700) }
func mkfifo(p string) error { return testsys.MkfifoFile(p) }

func symlinkTo(target string) func(string) error {
	return func(p string) error { return os.Symlink(target, p) }
}

func selfLink(p string) error { return os.Symlink(filepath.Base(p), p) }

// modeOf puts a copy of src at the path with the given mode.
func modeOf(src string, mode os.FileMode) func(string) error {
	return func(p string) error { return placeCopy(src, p, mode) }
}
