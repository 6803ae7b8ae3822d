package transcript

import (
	"fmt"
	"slices"
	"testing"
)

func TestResolves(t *testing.T) {
	for _, c := range []struct {
		ok, failed string
		want       bool
	}{
		{"git push", "git push", true},
		{"git push --set-upstream origin feature", "git push", true},
		{"cd app && go test ./...", "go vet ./... && gofmt -l .", true}, // a passing test run
		{"npm run build", "node scripts/gen.js", true},
		{"FOO=1 sudo make", "cc -o x x.c", true},
		{"git status", "git push", false},
		{"ls", "cat missing.txt", false},
		{"grep -r foo . | head", "grep -q bar file", false}, // two searches, not one action
	} {
		if got := resolves(c.ok, c.failed); got != c.want {
			t.Errorf("resolves(%q, %q) = %v, want %v", c.ok, c.failed, got, c.want)
		}
	}
}

// A solved failure does not stay the open failure: git push fails, then
// git push --set-upstream succeeds.
func TestSolvedFailureIsNotOpen(t *testing.T) {
	b := NewBuilder()
	b.Digest().Stats.Records = 5
	b.Request("push it")
	b.Command("t1", "git push")
	b.Outcome("t1", ParseExit("128"), true, "fatal: The current branch has no upstream branch.")
	b.Command("t2", "git push --set-upstream origin feature")
	b.Outcome("t2", ParseExit("0"), false, "branch set up")
	d, err := b.Finish("test")
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Session.LastFailure; f != nil {
		t.Errorf("open failure %+v, want none: the later push succeeded", f)
	}
}

func TestResolvesByShellWords(t *testing.T) {
	for _, c := range []struct {
		ok, failed string
		want       bool
	}{
		// ls of other files: the same action (a glob is an operand, not
		// a subcommand); seen in session-196820da.
		{`ls -lh ~/p/6f1*.jsonl 2>/dev/null`, `ls -lh ~/p/ae6*.jsonl 2>/dev/null`, true},
		{`stat -f "%Sc %Sm %N" ~/p/6f1*.jsonl`, `stat -f "%Sm %N" -t "%Y" ~/p/ae6*.jsonl`, true},
		// The same target file through another program.
		{"ls notes/a.md", "cat notes/a.md", true},
		{"ls notes/b.md", "cat notes/a.md", false},
		// An interpreter's action is its script.
		{"python3 -c 'print(1)'", "python3 tools/gen.py", false},
		{"python3 tools/gen.py --fast", "python3 tools/gen.py", true},
		// Quoted && is not a chain; the action of a chain is its last step.
		{`git commit -m "a && b"`, "git commit", true},
		{"cd web && npm ci", "npm ci", true},
		{"go test ./... 2>&1 | tail -5", "git push", true}, // a test run settles everything before it
		{"grep -rn x . | head", "git push", false},
		// A failure without a subcommand, settled by the same program
		// with other options (session-3fe1b6bc).
		{`codemie-codex --profile ollama --task "5!"`, `codemie-codex --task "Calculate 5!"`, true},
		// The same file read another way after a pipeline failed on it.
		{"cat ~/s/r.jsonl | jq -c .type", `grep -r "token" ~/s/r.jsonl | jq -c 'select(.)'`, true},
	} {
		if got := resolves(c.ok, c.failed); got != c.want {
			t.Errorf("resolves(%q, %q) = %v, want %v", c.ok, c.failed, got, c.want)
		}
	}
}

// A command run again after it failed keeps how each run ended: "[exit
// 0] go test (3 times)" would hide the failures before the success.
func TestRepeatedCommandKeepsItsRuns(t *testing.T) {
	b := NewBuilder()
	b.Digest().Stats.Records = 5
	b.Request("make the tests pass")
	for i, exit := range []string{"1", "1", "0"} {
		id := fmt.Sprint("t", i)
		b.Command(id, "go test ./...")
		b.Outcome(id, ParseExit(exit), exit != "0", "out")
	}
	for i := range 3 {
		id := fmt.Sprint("s", i)
		b.Command(id, "ls")
		b.Outcome(id, ParseExit("0"), false, "")
	}
	d, err := b.Finish("test")
	if err != nil {
		t.Fatal(err)
	}
	cmds := d.Session.Commands
	if len(cmds) != 2 || cmds[0].Count != 3 || !slices.Equal(cmds[0].Runs, []string{"failed", "failed", "ok"}) {
		t.Errorf("go test: %+v, want 3 runs failed, failed, ok", cmds)
	}
	if len(cmds) == 2 && cmds[1].Runs != nil {
		t.Errorf("ls ran alike every time, runs = %v, want none", cmds[1].Runs)
	}
}
