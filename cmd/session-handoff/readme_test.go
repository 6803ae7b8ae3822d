package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// The README is the test (issue 15): every command of README.md's tour,
// between its tour:begin and tour:end markers, runs here in order, as a
// user would type it, on two throwaway machines (alice's, and bob's
// "desk"), each a home of its own with the default directories. alice's
// project is ~/src/app, a git repository with a real Claude Code session
// and a real Codex session moved to it, and both machines work in it (a
// file exported there is a file handed over). Fake `claude`, `codex`,
// `pbcopy` and `ssh` programs on PATH record what they receive; `ssh desk
// CMD` runs CMD on bob's machine. A README change that breaks a command
// breaks this test.
//
// What the README cannot spell literally is a placeholder, replaced here
// and nowhere else: `age1…` and `"ssh-ed25519 AAAA… NAME"` (the keys of
// the machine named, or the other one's), an id prefix, and the team's
// remote (a bare repository). Commands after a comment line saying "on
// the other side", or with a comment saying "on bob's machine", run as
// bob until the block ends.

// tourCommand is one command line of the tour.
type tourCommand struct {
	line string
	bob  bool // run on bob's machine
	// terminal: the README says the command wants a terminal; here,
	// without one and with nothing on stdin, it must fall back to its
	// script mode (a numbered list, a number read from stdin) and fail
	// cleanly for want of a number (scripts/select-tmux.sh runs it in a
	// real terminal).
	terminal bool
}

// tourCommands extracts the tour's commands from README.md.
func tourCommands(t *testing.T) []tourCommand {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- tour:begin")
	tour, _, ok2 := strings.Cut(rest, "<!-- tour:end -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no tour:begin and tour:end markers")
	}
	var out []tourCommand
	blocks := strings.Split(tour, "```sh\n")[1:]
	for _, b := range blocks {
		body, _, _ := strings.Cut(b, "```")
		body = strings.ReplaceAll(body, "\\\n", " ")
		bob := false
		for _, line := range strings.Split(body, "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "#") {
				bob = bob || strings.Contains(trimmed, "on the other side")
				continue
			}
			if trimmed == "" {
				continue
			}
			cmd, comment := splitComment(trimmed)
			if strings.Contains(comment, "on bob's machine") {
				bob = true
			}
			out = append(out, tourCommand{line: cmd, bob: bob, terminal: strings.Contains(comment, "on a terminal")})
		}
	}
	return out
}

// splitComment cuts a trailing "  # comment" off a command line.
func splitComment(line string) (cmd, comment string) {
	if i := strings.Index(line, "  #"); i >= 0 {
		return strings.TrimSpace(line[:i]), line[i:]
	}
	return line, ""
}

// tourMachine is one of the two homes.
type tourMachine struct {
	name, home string
}

func (m tourMachine) env(bin string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", name == "PATH", strings.HasPrefix(name, "SESSION_HANDOFF_"), strings.HasPrefix(name, "XDG_"),
			strings.HasPrefix(name, "GIT_"), name == "CLAUDE_CONFIG_DIR", name == "CODEX_HOME", name == "GEMINI_DIR":
			continue
		}
		env = append(env, kv)
	}
	// alice types her key's passphrase at the prompt; here it comes
	// from the variable the prompt falls back to.
	if m.name == "alice" {
		env = append(env, "SESSION_HANDOFF_KEY_PASSPHRASE=correct horse battery staple")
	}
	return append(env, "HOME="+m.home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=Tour", "GIT_AUTHOR_EMAIL=tour@example.com",
		"GIT_COMMITTER_NAME=Tour", "GIT_COMMITTER_EMAIL=tour@example.com", "NO_COLOR=1")
}

func (m tourMachine) file(rel string) string { return filepath.Join(m.home, filepath.FromSlash(rel)) }

// keyLine is the machine's signing public key, as 'key show' gives it.
func (m tourMachine) keyLine(t *testing.T) string {
	data, err := os.ReadFile(m.file(".config/session-handoff/signing_key.pub"))
	if err != nil {
		t.Fatalf("%s has no signing key yet: %v", m.name, err)
	}
	return strings.TrimSpace(string(data))
}

var ageRecipient = regexp.MustCompile(`age1[0-9a-z]{58}`)

// age is the machine's age recipient.
func (m tourMachine) age(t *testing.T) string {
	data, err := os.ReadFile(m.file(".config/session-handoff/age_identity.txt"))
	if err != nil {
		t.Fatalf("%s has no age identity yet: %v", m.name, err)
	}
	r := ageRecipient.FindString(string(data))
	if r == "" {
		t.Fatalf("%s: no recipient in age_identity.txt", m.name)
	}
	return r
}

func TestReadmeTour(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the tour is a POSIX shell session")
	}
	if testing.Short() {
		t.Skip("builds the binary and runs the whole tour")
	}
	cmds := tourCommands(t)
	if len(cmds) < 40 {
		t.Fatalf("found %d commands in the tour; the markers or the code blocks moved", len(cmds))
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "session-handoff"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	alice := tourMachine{"alice", filepath.Join(root, "alice")}
	bob := tourMachine{"bob", filepath.Join(root, "bob")}
	project := alice.file("src/app")
	remote := filepath.Join(root, "team.git")
	record := filepath.Join(root, "received")
	setUpTour(t, alice, bob, project, remote, bin, record)
	var firstID string
	for i, c := range cmds {
		m, other := alice, bob
		if c.bob {
			m, other = bob, alice
		}
		line := c.line
		if strings.Contains(line, "01KMBFQ30A3") {
			if firstID == "" {
				firstID = tourFirstID(t, m, bin, project)
			}
			line = strings.ReplaceAll(line, "01KMBFQ30A3", firstID[:11])
		}
		if strings.Contains(line, "AAAA…") {
			line = strings.ReplaceAll(line, `"ssh-ed25519 AAAA… alice@laptop"`, `"`+alice.keyLine(t)+`"`)
			line = strings.ReplaceAll(line, `"ssh-ed25519 AAAA… bob@desk"`, `"`+bob.keyLine(t)+`"`)
		}
		if strings.Contains(line, "age1…") {
			// people add NAME age1… names that person's key; export and
			// ssh desk export send to the other machine.
			to := other
			switch {
			case strings.Contains(line, "bob@desk age1…"):
				to = bob
			case strings.HasPrefix(line, "ssh desk "):
				to = m // desk exports to the machine that asked
			}
			line = strings.ReplaceAll(line, "age1…", to.age(t))
		}
		line = strings.ReplaceAll(line, "git@github.com:team/handoffs.git", remote)
		sh := exec.Command("sh", "-c", line)
		sh.Dir = project
		sh.Env = m.env(bin)
		var stdout, stderr bytes.Buffer
		sh.Stdout, sh.Stderr = &stdout, &stderr
		err := sh.Run()
		if c.terminal {
			if err == nil || !strings.Contains(stderr.String(), "no number on standard input") {
				t.Fatalf("README tour, command %d (%s): without a terminal: %v, %q", i+1, c.line, err, stderr.String())
			}
			continue
		}
		if err != nil {
			t.Fatalf("README tour, command %d on %s's machine:\n  %s\nfailed: %v\nstdout:\n%s\nstderr:\n%s", i+1, m.name, c.line, err, stdout.String(), stderr.String())
		}
	}
	checkTourResults(t, record)
}

// tourFirstID is the id of the oldest handoff on m, which rm may remove.
func tourFirstID(t *testing.T, m tourMachine, bin, dir string) string {
	cmd := exec.Command(filepath.Join(bin, "session-handoff"), "list", "--json")
	cmd.Dir, cmd.Env = dir, m.env(bin)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	ids := regexp.MustCompile(`"id": "([0-9A-Z]{26})"`).FindAllStringSubmatch(string(out), -1)
	if len(ids) == 0 {
		t.Fatalf("list gave no id: %q", out)
	}
	return ids[len(ids)-1][1]
}

// checkTourResults checks what the fake agents received.
func checkTourResults(t *testing.T, record string) {
	for _, prog := range []string{"claude", "codex", "pbcopy"} {
		data, err := os.ReadFile(filepath.Join(record, prog))
		if err != nil || len(data) == 0 {
			t.Errorf("%s received nothing: %v", prog, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(record, "pbcopy")); !bytes.Contains(data, []byte("BEGIN")) {
		t.Errorf("pbcopy did not receive an armored bundle: %.80q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(record, "claude")); !bytes.Contains(data, []byte("Refactor auth middleware")) && !bytes.Contains(data, []byte("# Handoff")) {
		t.Errorf("claude did not receive the handoff: %.200q", data)
	}
}

// setUpTour makes both homes, alice's project with its agent sessions,
// the files the tour names, bob's keys and first handoff, the team's bare
// remote and the fake programs.
func setUpTour(t *testing.T, alice, bob tourMachine, project, remote, bin, record string) {
	t.Helper()
	for _, d := range []string{project, record, alice.file(".ssh"), bob.file("")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	run := func(m tourMachine, dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = dir, m.env(bin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run(alice, project, "git", "init", "-q", "-b", "main")
	writeTourFile(t, filepath.Join(project, "auth.go"), "package auth\n")
	run(alice, project, "git", "add", ".")
	run(alice, project, "git", "commit", "-q", "-m", "first commit")
	writeTourFile(t, filepath.Join(project, "auth.go"), "package auth\n\n// Parse parses a token.\nfunc Parse() {}\n")
	writeTourFile(t, filepath.Join(project, "notes.md"), "Token parser notes.\n")
	writeTourFile(t, filepath.Join(project, "state.md"), "Refresh tests still failing.\n")
	run(alice, project, "git", "init", "-q", "--bare", "-b", "main", remote)
	// The agents' sessions: real transcripts moved to the project.
	placeSession(t, filepath.Join(transcripts, "real", "claude-code", "codemie", "session-196820da.jsonl"),
		alice.file(".claude/projects/-src-app/196820da-1026-4b6f-a513-a6aae42da1a6.jsonl"), "/Users/user/repo", project)
	placeSession(t, filepath.Join(transcripts, "real", "codex", "codemie", "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"),
		alice.file(".codex/sessions/2026/05/11/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"),
		"/Users/Sample_User/repos/codemie-ai/codemie-code", project)
	run(alice, project, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f", alice.file(".ssh/id_ed25519"))
	// bob's machine has keys, one handoff of its own and an earlier
	// version's store.
	run(bob, project, filepath.Join(bin, "session-handoff"), "keygen", "--name", "bob@desk", "--no-passphrase")
	run(bob, project, filepath.Join(bin, "session-handoff"), "save", "--no-git", "--title", "Bob's own work", "--next", "review")
	writeTourFile(t, bob.file(".config/session-handoff/handoffs.json"),
		`{"version":1,"items":[{"id":"h-42","created_at":"2025-06-01T10:20:30Z","tool":"Codex","project":"/home/u/src/app","title":"Refactor auth","summary":"Parser extracted"}]}`)
	fakes := map[string]string{
		"claude": "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + record + "/claude'\ncat >> '" + record + "/claude'\n",
		"codex":  "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + record + "/codex'\ncat >> '" + record + "/codex'\n",
		"pbcopy": "#!/bin/sh\ncat >> '" + record + "/pbcopy'\n",
		// ssh desk CMD: CMD on bob's machine.
		"ssh": "#!/bin/sh\n[ \"$1\" = desk ] || exit 255\nshift\nHOME='" + bob.home + "' exec sh -c \"$*\"\n",
	}
	for name, script := range fakes {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func writeTourFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// placeSession copies a real transcript to dst with its working directory
// moved from oldCWD to newCWD.
func placeSession(t *testing.T, src, dst, oldCWD, newCWD string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(oldCWD)) {
		t.Fatalf("%s does not hold %s", src, oldCWD)
	}
	writeTourFile(t, dst, string(bytes.ReplaceAll(data, []byte(oldCWD), []byte(newCWD))))
}

// TestEndToEndPinsAreTheTables: the agent versions the e2e suite installs
// (internal/e2e/versions.env, agents.PinVar) are the versions the table
// says were checked, one pin for every agent, and README's table names
// each (TestReadmeListsEveryAgent).
func TestEndToEndPinsAreTheTables(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "e2e", "versions.env"))
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if key, version, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(key, "#") {
			pins[key] = version
		}
	}
	for _, a := range agents.All() {
		v, ok := pins[agents.PinVar(a.Name)]
		switch {
		case !ok:
			t.Errorf("versions.env has no %s for %s (go generate ./internal/agents writes it)", agents.PinVar(a.Name), a.Name)
		case v != a.Checked:
			t.Errorf("versions.env pins %s %s, the table says %s was checked", a.Name, v, a.Checked)
		}
	}
}

// TestReadmeListsEveryAgent: README's table of what each agent gets has a
// row for every agent of the table, naming it as the table does, with the
// version checked.
func TestReadmeListsEveryAgent(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.HasPrefix(line, "| ") {
			rows[strings.TrimSpace(cells[1])] = line
		}
	}
	for _, a := range agents.All() {
		row, ok := rows[a.Display+" (`"+a.Name+"`)"]
		if !ok {
			t.Errorf("README.md's table of agents has no row %q", a.Display+" (`"+a.Name+"`)")
			continue
		}
		if cells := strings.Split(row, "|"); !strings.Contains(cells[len(cells)-2], a.Checked) {
			t.Errorf("README.md's row for %s does not name version %s, the one checked", a.Name, a.Checked)
		}
	}
}

// TestReadmeMachinesInStep runs README's "My machines in step" block as
// written, on two new machines (a laptop and a desktop, each a home of its
// own with a clone of the project and no keys): a command runs on the
// machine its comment names ("on each machine": both, the laptop first),
// else where the one before it ran. The pairing texts are what the other
// machine printed, and the remote a bare repository.
func TestReadmeMachinesInStep(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the block is a POSIX shell session")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## My machines in step\n")
	_, block, ok2 := strings.Cut(section, "```sh\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no sh block under \"## My machines in step\"")
	}
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, "session-handoff"), ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	remote := filepath.Join(root, "handoffs.git")
	laptop := tourMachine{"laptop", filepath.Join(root, "laptop")}
	desktop := tourMachine{"desktop", filepath.Join(root, "desktop")}
	shell := func(m tourMachine, dir, line string) (string, error) {
		sh := exec.Command("sh", "-c", line)
		sh.Dir = dir
		sh.Env = append(m.env(bin), "SESSION_HANDOFF_KEY_PASSPHRASE=correct horse battery staple")
		out, err := sh.CombinedOutput()
		return string(out), err
	}
	project := func(m tourMachine) string { return m.file("src/app") }
	origin := filepath.Join(root, "origin")
	for _, line := range []string{"git init -q -b main " + origin, "git -C " + origin + " commit -q --allow-empty -m first"} {
		if out, err := shell(laptop, root, line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	for _, m := range []tourMachine{laptop, desktop} {
		if out, err := shell(m, root, "mkdir -p "+m.file("src")+" && git clone -q "+origin+" "+project(m)); err != nil {
			t.Fatalf("clone on %s: %v\n%s", m.name, err, out)
		}
	}
	if out, err := shell(laptop, root, "git init -q --bare "+remote); err != nil {
		t.Fatalf("bare remote: %v\n%s", err, out)
	}
	pairText := regexp.MustCompile(`session-handoff-pair:[^'\s]+`)
	said := map[string]string{} // the last pairing text each machine printed
	on := []tourMachine{laptop}
	n := 0
	for _, raw := range strings.Split(block, "\n") {
		cmd, comment := splitComment(raw)
		if cmd == "" {
			continue
		}
		n++
		switch {
		case strings.Contains(comment, "on each machine"):
			on = []tourMachine{laptop, desktop}
		case strings.Contains(comment, "on the desktop"):
			on = []tourMachine{desktop}
		case strings.Contains(comment, "on the laptop"):
			on = []tourMachine{laptop}
		case len(on) == 2:
			on = on[:1]
		}
		for _, m := range on {
			other := desktop
			if m.name == desktop.name {
				other = laptop
				cmd = strings.ReplaceAll(cmd, "alice@laptop", "alice@desktop")
			}
			line := strings.ReplaceAll(cmd, "git@github.com:me/handoffs.git", remote)
			line = strings.ReplaceAll(line, "session-handoff-pair:…", said[other.name])
			out, err := shell(m, project(m), line)
			if err != nil {
				t.Fatalf("README \"My machines in step\", command %d on the %s:\n  %s\nfailed: %v\n%s", n, m.name, cmd, err, out)
			}
			if p := pairText.FindString(out); p != "" {
				said[m.name] = p
			}
		}
	}
	if n < 5 {
		t.Fatalf("found %d commands in the block", n)
	}
}
