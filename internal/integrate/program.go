package integrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// ProgramName is the name the hooks find session-handoff by on PATH.
const ProgramName = "session-handoff"

// ErrProgramNotFound is wrapped when no lasting path to session-handoff
// is known: the running binary is a temporary build and none is on PATH.
var ErrProgramNotFound = errors.New("session-handoff is not on PATH, and this binary is a temporary build")

// Lookup is how ResolveProgram finds things on the machine: in use,
// os.Executable and exec.LookPath.
type Lookup struct {
	Executable func() (string, error)
	LookPath   func(string) (string, error)
}

// ResolveProgram is what installed hooks run: given, when the user named
// a program (a bare name must be found on PATH, and is written as given);
// else the absolute path of the running binary, so that a hook does not
// depend on the PATH the agent happens to have; else, when the running
// binary is a temporary build ('go run', a test), session-handoff's path
// on PATH. It fails with ErrProgramNotFound when there is none.
func ResolveProgram(given string, l Lookup) (string, error) {
	if given != "" {
		if strings.ContainsRune(given, filepath.Separator) || strings.ContainsRune(given, '/') {
			if !filepath.IsAbs(given) {
				return "", fmt.Errorf("--program %s: give an absolute path, or a name on PATH", given)
			}
			return given, nil
		}
		if _, err := l.LookPath(given); err != nil {
			return "", fmt.Errorf("--program %s: not found on PATH", given)
		}
		return given, nil
	}
	exe, err := l.Executable()
	if err == nil {
		if resolved, rerr := filepath.EvalSymlinks(exe); rerr == nil {
			exe = resolved
		}
		if filepath.IsAbs(exe) && !temporaryBuild(exe) {
			return exe, nil
		}
	}
	if p, err := l.LookPath(ProgramName); err == nil {
		if abs, aerr := filepath.Abs(p); aerr == nil {
			return abs, nil
		}
	}
	return "", ErrProgramNotFound
}

// temporaryBuild reports whether exe is a binary the go command built in
// its temporary directory ('go run', 'go test'), which is gone once it
// exits.
func temporaryBuild(exe string) bool {
	return strings.Contains(filepath.ToSlash(exe), "/go-build")
}

// DefaultLookup is the running process's view, with lookPath
// (exec.LookPath).
func DefaultLookup(lookPath func(string) (string, error)) Lookup {
	return Lookup{Executable: os.Executable, LookPath: lookPath}
}

// commandField finds the "command" members of settings text, JSON with
// comments or not; the value is a JSON string. It is compiled when first
// used, not at every start (TestInitAllocatesLittle).
var commandField = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"command"\s*:\s*("(?:[^"\\]|\\.)*")`)
})

// InstalledPrograms are the programs our hooks for agent in settings text
// run, as written (a path or a name on PATH), each once.
func InstalledPrograms(text []byte, agent string) []string {
	var out []string
	for _, m := range commandField().FindAllSubmatch(text, -1) {
		var cmd string
		if json.Unmarshal(m[1], &cmd) != nil {
			continue
		}
		for _, ev := range []string{"session-start", "pre-compact", "session-end"} {
			prog, ok := strings.CutSuffix(cmd, " hook "+agent+" "+ev)
			if !ok {
				continue
			}
			prog = shellUnquote(prog)
			if prog != "" && !slices.Contains(out, prog) {
				out = append(out, prog)
			}
		}
	}
	return out
}

// shellUnquote undoes shellQuote.
func shellUnquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, "'")
	}
	return s
}

// ErrProgramMissing is wrapped when an installed hook's program does not
// resolve to an executable file.
var ErrProgramMissing = errors.New("does not resolve to an executable file")

// CheckProgram says whether an installed hook's program runs: an absolute
// path names an executable regular file, a name is found by lookPath.
func CheckProgram(prog string, lookPath func(string) (string, error)) error {
	if !filepath.IsAbs(prog) {
		if _, err := lookPath(prog); err != nil {
			return fmt.Errorf("%s is not on PATH: %w", prog, ErrProgramMissing)
		}
		return nil
	}
	info, err := os.Stat(prog)
	if err != nil || !info.Mode().IsRegular() || (runtime.GOOS != "windows" && info.Mode().Perm()&0o111 == 0) {
		return fmt.Errorf("%s %w", prog, ErrProgramMissing)
	}
	return nil
}
