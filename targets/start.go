package targets

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
)

// MaxArgLen is the longest single command-line argument a start command
// may hold, in bytes. Linux refuses to exec a program with any argument
// over 128 KiB (MAX_ARG_STRLEN), and all arguments and the environment
// share a few MiB more (ARG_MAX); a quarter of the per-argument cap leaves
// room for both. A handoff never goes on the command line: only a short
// message naming the file that holds it.
const MaxArgLen = 32 << 10

// Start is the command that starts an agent, interactively, on a handoff
// written to a prompt file.
type Start struct {
	// Program is the agent's executable, looked up on PATH.
	Program string `json:"program"`
	// Args follow the program name.
	Args []string `json:"args"`
}

// Argv is the program name followed by the arguments.
func (s Start) Argv() []string { return append([]string{s.Program}, s.Args...) }

// String is the command as a POSIX shell line a user can paste.
func (s Start) String() string { return ShellJoin(s.Argv()) }

// start is how the agent of the table named name is started with a first
// message: its program, and the arguments its folder gives (StartArgs).
// The first message only names the prompt file: the agent reads the file
// with its own tools, so the handoff stays out of argv and out of the
// system prompt (imported text is data, not instructions of ours).
func start(name string) (program string, args func(dir, message string) []string, ok bool) {
	a, found := agents.Find(name)
	if !found || a.Name != name || a.StartArgs == nil {
		return "", nil, false
	}
	return a.Program, a.StartArgs, true
}

// StartNames lists the targets that have a start command.
func StartNames() []string {
	var out []string
	for _, p := range profiles() {
		if _, _, ok := start(p.Name); ok {
			out = append(out, p.Name)
		}
	}
	return out
}

// StartMessage is the first message an agent is started with: it names
// the prompt file and asks the agent to read it.
func StartMessage(promptFile string) string {
	return "Read the handoff in " + promptFile + " and continue the work it describes."
}

// StartCommand returns the command that starts the agent of p
// interactively on the handoff in promptFile (an absolute path). extra are
// the user's own arguments for the agent; they come first, so that ours
// end the command line. It fails for a target without a start command and
// when an argument breaks CheckArgv.
func (p Profile) StartCommand(promptFile string, extra []string) (Start, error) {
	prog, startArgs, ok := start(p.Name)
	if !ok {
		return Start{}, fmt.Errorf("%s cannot be started with a handoff: want one of %s", p.Agent, strings.Join(StartNames(), ", "))
	}
	if !filepath.IsAbs(promptFile) {
		return Start{}, fmt.Errorf("prompt file %q is not an absolute path", promptFile)
	}
	args := append(append([]string{}, extra...), startArgs(filepath.Dir(promptFile), StartMessage(promptFile))...)
	s := Start{Program: prog, Args: args}
	if err := CheckArgv(s.Argv()); err != nil {
		return Start{}, err
	}
	return s, nil
}

// CheckArgv refuses a command line that exec would refuse or mangle: an
// argument over MaxArgLen bytes, or one holding a NUL byte.
func CheckArgv(argv []string) error {
	for i, a := range argv {
		if len(a) > MaxArgLen {
			return fmt.Errorf("argument %d is %d bytes, over the %d KiB allowed for one argument (the kernel refuses 128 KiB): put long text in a file", i, len(a), MaxArgLen>>10)
		}
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("argument %d holds a NUL byte", i)
		}
	}
	return nil
}

// ShellJoin quotes each argument for a POSIX shell, where it needs it, and
// joins them with spaces.
func ShellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-+=/.,:@%", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
