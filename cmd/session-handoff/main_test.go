package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/targets"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"session-handoff":       main,
		"session-handoff-crash": crashMain,
	})
}

// transcripts holds the real and sample transcripts the tests read
// (testdata/transcripts at the repository's root; SOURCES.md there says
// where each comes from). Stories see it as $TRANSCRIPTS.
var transcripts = mustAbs(filepath.Join("..", "..", "testdata", "transcripts"))

func mustAbs(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		panic(err)
	}
	return abs
}

// bashCompletion is Debian's bash-completion library.
const bashCompletion = "/usr/share/bash-completion/bash_completion"

// TestScripts runs the CLI stories in testdata/script. Each story gets its
// own SESSION_HANDOFF_HOME, HOME and git identity, so nothing leaks
// between stories or into the user's files.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			work := env.WorkDir
			env.Setenv("SESSION_HANDOFF_HOME", filepath.Join(work, ".sh"))
			env.Setenv("HOME", filepath.Join(work, ".home"))
			env.Setenv("XDG_DATA_HOME", "")
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_AUTHOR_NAME", "Test Author")
			env.Setenv("GIT_AUTHOR_EMAIL", "author@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Test Author")
			env.Setenv("GIT_COMMITTER_EMAIL", "author@example.com")
			env.Setenv("NO_COLOR", "1")
			// Agents' session directories, empty unless a story fills them.
			env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(work, ".claude"))
			env.Setenv("CODEX_HOME", filepath.Join(work, ".codex"))
			env.Setenv("TRANSCRIPTS", transcripts)
			env.Setenv("BASH_COMPLETION", bashCompletion)
			// The agents launch starts, from the table, as its usage
			// errors list them.
			env.Setenv("START_TARGETS", strings.Join(targets.StartNames(), ", "))
			return os.MkdirAll(filepath.Join(work, ".home"), 0o700)
		},
		// [bashcompletion]: bash's completion library is installed;
		// [ci]: the environment variable CI is set, where every tool is
		// installed, so a story skips for a missing one only with
		// [!ci] (and then fails on the tool under CI).
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "bashcompletion":
				// Cobra's bash completion needs the bash-completion
				// package.
				_, err := os.Stat(bashCompletion)
				return err == nil, nil
			case "ci":
				return testsys.InCI(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"treehash": cmdTreeHash,
			"maxsize":  cmdMaxSize,
			"subst":    cmdSubst,
			"oldtool":  cmdOldTool,
			"bigfile":  cmdBigFile,
		},
	})
}

// cmdBigFile writes N MiB of numbered text lines to FILE: bigfile FILE N
func cmdBigFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: bigfile FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	for i := 0; b.Len() < n<<20; i++ {
		fmt.Fprintf(&b, "line %08d of a large change %s\n", i, strings.Repeat("x", 170))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()[:n<<20]), 0o600))
}

// cmdMaxSize fails unless FILE is at most N bytes: maxsize FILE N
func cmdMaxSize(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 || neg {
		ts.Fatalf("usage: maxsize FILE N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if info.Size() > int64(n) {
		ts.Fatalf("%s is %d bytes, over %d", args[0], info.Size(), n)
	}
}

// cmdSubst replaces every OLD with NEW in FILE, and fails when there is
// none: subst FILE OLD NEW. Stories use it to move a real transcript's
// working directory to the story's project.
func cmdSubst(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 || neg {
		ts.Fatalf("usage: subst FILE OLD NEW")
	}
	p := ts.MkAbs(args[0])
	data, err := os.ReadFile(p)
	ts.Check(err)
	if !bytes.Contains(data, []byte(args[1])) {
		ts.Fatalf("%s holds no %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(p, bytes.ReplaceAll(data, []byte(args[1]), []byte(args[2])), 0o600))
}

// cmdTreeHash prints (or, with a second argument, compares with the hash
// stored in that file) one hash over every file name and content under a
// directory. Stories use it to prove that a failing command wrote
// nothing: treehash DIR > before; … ; treehash DIR before
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: treehash DIR [FILE-WITH-EXPECTED-HASH]")
	}
	root := ts.MkAbs(args[0])
	h := sha256.New()
	var names []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, p)
		names = append(names, rel)
		return nil
	})
	ts.Check(err)
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(root, n)
		info, err := os.Lstat(p)
		ts.Check(err)
		h.Write([]byte(n + "\x00" + info.Mode().String() + "\x00"))
		if info.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			ts.Check(err)
			h.Write(data)
		}
		h.Write([]byte{0})
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if len(args) == 1 {
		ts.Stdout().Write([]byte(sum + "\n"))
		return
	}
	want, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	same := strings.TrimSpace(string(want)) == sum
	if same == neg {
		if neg {
			ts.Fatalf("tree %s is unchanged", args[0])
		}
		ts.Fatalf("tree %s changed", args[0])
	}
}

// TestCommandMakersNamed holds commandMakers' names to the commands they
// make: a short command line builds only the command its first word
// names, found by that name.
func TestCommandMakersNamed(t *testing.T) {
	a := newTestApp(context.Background(), nil, io.Discard, io.Discard, nil)
	for _, c := range commandMakers() {
		if got := c.make(a).Name(); got != c.name {
			t.Errorf("commandMakers says %q, the command is %q", c.name, got)
		}
	}
	for args, want := range map[string]string{
		"save --title x":            "save",
		"--store /s list":           "list",
		"--store=/s --keys /k show": "show",
		"--keys=/k hook a b":        "hook",
		"--color always list":       "list",
		"--color=never show":        "show",
		"--json list":               "",
		"-- list":                   "",
		"":                          "",
		"--store":                   "",
		"help save":                 "help",
	} {
		if got := commandWord(strings.Fields(args)); got != want {
			t.Errorf("commandWord(%q) = %q, want %q", args, got, want)
		}
	}
	// The lone command is the one the whole tree would run.
	for _, args := range [][]string{{"list"}, {"--store", "/s", "trust", "list"}, {"nosuch"}, {"help"}} {
		lone, _, err := newRootCmdFor(a, args).Find(args)
		whole, _, werr := newRootCmd(a).Find(args)
		if (err == nil) != (werr == nil) || (err == nil && lone.CommandPath() != whole.CommandPath()) {
			t.Errorf("%q: lone tree finds %v (%v), the whole tree %v (%v)", args, lone, err, whole, werr)
		}
	}
}
