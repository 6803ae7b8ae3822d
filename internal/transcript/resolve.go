package transcript

import (
	"slices"
	"strings"
	"sync"
)

// A failed command stays the session's open failure only while nothing
// later shows it solved (issue 17, item 5): a later success at the same
// action (the same program and subcommand, as `git push` then `git push
// --set-upstream origin main`), or on the same target file, or a later
// successful build or test run, which shows the work in a good state
// whatever failed before it.

// resolves reports whether the successful command ok settles the failed
// command failed.
func resolves(ok, failed string) bool {
	return resolvesActions(ok, lastAction(ok), failed, lastAction(failed))
}

// resolvesActions is resolves with the commands' actions (lastAction)
// already parsed.
func resolvesActions(ok string, okAct action, failed string, failAct action) bool {
	if ok == failed {
		return true
	}
	okKey := okAct.key()
	if okKey == "" {
		return false
	}
	failKey := failAct.key()
	if okKey == failKey || isBuildOrTest(okKey) {
		return true
	}
	// A failure without a subcommand ("tool --task '…'") is settled by a
	// success of its program whatever the options ("tool --profile x
	// --task '…'"; seen in session-3fe1b6bc).
	if failKey == failAct.program() && !interpreters()[failKey] && okAct.program() == failKey {
		return true
	}
	// The same file acted on: `cat notes/a.md` fails, `ls notes/a.md`
	// then succeeds.
	targets := failAct.targets()
	for _, t := range okAct.targets() {
		if slices.Contains(targets, t) {
			return true
		}
	}
	return false
}

// action is one simple command, as shell words, with environment
// assignments and sudo/env/time/command prefixes dropped.
type action []string

// lastAction is the action of a command line: the last step of a &&, ||
// or ; chain ("cd x && make" is make), and of a pipeline its first
// command (the producer: "go test ./... | tail" is go test).
func lastAction(cmd string) action {
	segs := shellSegments(cmd)
	if len(segs) == 0 {
		return nil
	}
	// segs alternate: a pipeline's later commands are marked piped.
	i := len(segs) - 1
	for i > 0 && segs[i].piped {
		i--
	}
	words := segs[i].words
	for len(words) > 0 && (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") || prefixCommands()[words[0]]) {
		words = words[1:]
	}
	return action(words)
}

// maxParsedActions bounds the actions a folder keeps parsed.
const maxParsedActions = 4096

// action is lastAction(cmd), parsed once a command line: a success is
// compared with every open failure (up to maxOpenFailures), and parsing
// both each time was a fifth of reading a session that fails often.
func (f *folder) action(cmd string) action {
	if a, ok := f.actions[cmd]; ok {
		return a
	}
	if f.actions == nil || len(f.actions) >= maxParsedActions {
		f.actions = map[string]action{}
	}
	a := lastAction(cmd)
	f.actions[cmd] = a
	return a
}

// key is what an action does, for comparing: its program and subcommand
// ("git push", "go test", "npm run"). The subcommand is the first
// argument that is not an option, when it is a plain word; a path, a glob
// or quoted text there ("ls -l src/*.go") is an operand, and the key is
// the program alone. An interpreter's key includes its script, its first
// operand.
func (a action) key() string {
	if len(a) == 0 {
		return ""
	}
	prog := a.program()
	for _, w := range a[1:] {
		if strings.HasPrefix(w, "-") {
			continue
		}
		if interpreters()[prog] || subcommandLike(w) {
			return prog + " " + w
		}
		break
	}
	return prog
}

// program is the action's program, without its directory.
func (a action) program() string {
	if len(a) == 0 {
		return ""
	}
	prog := a[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 && prog != "./gradlew" {
		prog = prog[i+1:]
	}
	return prog
}

// targets are the action's operands that name files: paths with a "/" or
// a ".", no glob or variable ("~/" is kept: the same word names the same
// file).
func (a action) targets() []string {
	var out []string
	for _, w := range a[min(1, len(a)):] {
		if strings.HasPrefix(w, "-") || w == "." || w == ".." || strings.ContainsAny(w, "*?[]{}$<>|&;`'\"= ") ||
			!strings.ContainsAny(w, "/.") {
			continue
		}
		out = append(out, w)
	}
	return out
}

// subcommandLike reports whether w reads as a subcommand: a letter, then
// letters, digits, "-", "_" or ":".
func subcommandLike(w string) bool {
	for i, r := range w {
		switch {
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':'):
		default:
			return false
		}
	}
	return w != ""
}

var prefixCommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"sudo": true, "env": true, "time": true, "command": true, "exec": true, "nice": true}
})

// interpreters() run the script named by their first operand: that script
// is the action.
var interpreters = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"python": true, "python3": true, "node": true, "ruby": true, "perl": true, "bash": true, "sh": true, "zsh": true, "php": true,
	}
})

// shellSegment is one simple command of a command line; piped says it
// reads the output of the one before.
type shellSegment struct {
	words []string
	piped bool
}

// shellSegments splits a command line into simple commands at unquoted
// &&, ||, ;, |, & and newlines, each split into words with quotes and
// backslash escapes removed. It is a reading aid, not a shell: a
// substitution or a here-document is taken as plain words.
func shellSegments(cmd string) []shellSegment {
	var segs []shellSegment
	var words []string
	var w strings.Builder
	inWord, piped := false, false
	endWord := func() {
		if inWord {
			words = append(words, w.String())
			w.Reset()
			inWord = false
		}
	}
	endSeg := func(nextPiped bool) {
		endWord()
		if len(words) > 0 {
			segs = append(segs, shellSegment{words: words, piped: piped})
		}
		words, piped = nil, nextPiped
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\' && i+1 < len(cmd):
			i++
			if cmd[i] != '\n' {
				w.WriteByte(cmd[i])
				inWord = true
			}
		case c == '\'':
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				j = len(cmd) - i - 1
			}
			w.WriteString(cmd[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(cmd) && cmd[i] != '"'; i++ {
				if cmd[i] == '\\' && i+1 < len(cmd) && strings.IndexByte("\"\\$`", cmd[i+1]) >= 0 {
					i++
				}
				w.WriteByte(cmd[i])
			}
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n' || c == ';':
			endSeg(false)
		case c == '&' || c == '|':
			double := i+1 < len(cmd) && cmd[i+1] == c
			if double {
				i++
			}
			if c == '&' && !double && (w.Len() > 0 && (strings.HasSuffix(w.String(), ">") || strings.HasSuffix(w.String(), "<")) || i+1 < len(cmd) && cmd[i+1] == '>') {
				w.WriteByte(c) // 2>&1, &>file: a redirection
				inWord = true
				continue
			}
			endSeg(c == '|' && !double)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	endSeg(false)
	return segs
}

// buildAndTest() are the action keys of build and test runs.
var buildAndTest = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"go test": true, "go build": true, "go vet": true, "make": true, "make test": true, "make build": true,
		"make check": true, "npm test": true, "npm run": true, "yarn test": true, "yarn build": true,
		"pnpm test": true, "pnpm build": true, "bun test": true, "cargo test": true, "cargo build": true,
		"cargo check": true, "pytest": true, "tox": true, "mvn test": true, "mvn verify": true,
		"mvn package": true, "gradle test": true, "gradle build": true, "./gradlew test": true,
		"./gradlew build": true, "tsc": true, "deno test": true, "dotnet test": true, "dotnet build": true,
	}
})

// isBuildOrTest reports whether an action key is a build or test run.
func isBuildOrTest(key string) bool {
	prog, _, _ := strings.Cut(key, " ")
	return buildAndTest()[key] || prog == "pytest" || prog == "tsc"
}
