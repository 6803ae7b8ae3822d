package legacy

import (
	"fmt"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// ArgError is a command line of session-handoff v0.7.5 that cannot be run
// as it stands: what is wrong, and the current form.
type ArgError struct {
	// Command is the command word (export, import…).
	Command string
	// Msg says what is wrong in one line; it never quotes a value that
	// may be a secret.
	Msg string
	// Hint names the current form.
	Hint string
}

func (e *ArgError) Error() string { return e.Msg }

// Translation is a command line with v0.7.5's flags turned into current
// ones.
type Translation struct {
	// Args is the command line to run.
	Args []string
	// Notes say, one line each, what was changed and what to type from
	// now on (deprecation notes).
	Notes []string
}

// globalsWithValue are the root's flags that take a value, which may
// stand before the command word.
var globalsWithValue = map[string]bool{"--store": true, "--keys": true, "--color": true}

// TranslateArgs reads a command line (without the program name) for the
// flags of session-handoff v0.7.5 (see its README and
// internal/handoff/commands.go, agent19710101/session-handoff v0.7.5) and
// returns the current command line with a note for each change, or an
// *ArgError for a flag that has no safe meaning now:
//
//   - render/export --id X: X becomes the positional id;
//   - export with --id and no --format: v0.7.5's default was markdown, so
//     --format markdown is added (today's default is a bundle);
//   - import --input F: F becomes the positional file;
//   - export/import --passphrase TEXT (or --passphrase=TEXT): refused, as
//     a secret in argv is visible to every user of the machine, with
//     the environment variable and --passphrase-file as the alternatives.
//     The text is never quoted;
//   - export --sign-key / --signer: refused, naming keygen and trust;
//   - agent-handoff's push, auto and init: refused with the command to
//     type now (oldCommand).
//
// Anything after "--" and any other command is left alone.
func TranslateArgs(args []string) (Translation, error) {
	cmdAt := -1
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			if globalsWithValue[a] {
				i++
			}
			continue
		}
		cmdAt = i
		break
	}
	if cmdAt < 0 {
		return Translation{Args: args}, nil
	}
	switch args[cmdAt] {
	case "render", "export", "import":
	case "push", "auto", "init", "check", "status":
		return Translation{}, oldCommand(args[cmdAt], args[cmdAt+1:])
	default:
		return Translation{Args: args}, nil
	}
	t := translator{cmd: args[cmdAt]}
	if err := t.scan(args[cmdAt+1:]); err != nil {
		return Translation{}, err
	}
	out := append([]string{}, args[:cmdAt+1]...)
	out = append(out, t.positional...)
	out = append(out, t.rest...)
	return Translation{Args: out, Notes: t.notes}, nil
}

// translator holds the state of one command's translation.
type translator struct {
	cmd        string
	positional []string // the id or file moved out of --id or --input
	rest       []string // every other argument, in order
	notes      []string
	oldID      bool // --id was given
	format     bool // --format was given
}

func (t *translator) scan(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			t.rest = append(t.rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		next := func() (string, bool) {
			if hasValue {
				return value, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case name == "--passphrase" && (t.cmd == "export" || t.cmd == "import"):
			if err := t.passphrase(args, i, value, hasValue); err != nil {
				return err
			}
			t.rest = append(t.rest, a)
		case (name == "--id" && t.cmd != "import") || (name == "--input" && t.cmd == "import"):
			v, ok := next()
			if !ok {
				return &ArgError{Command: t.cmd, Msg: name + " needs a value", Hint: t.form("X")}
			}
			t.oldID = t.oldID || name == "--id"
			t.positional = append(t.positional, v)
			t.notes = append(t.notes, fmt.Sprintf("%s %s is now an argument: %s (v0.7.5's form still works for now)", name, what(name), t.form(handoff.Shorten(handoff.CleanText(v), 60))))
		case name == "--sign-key" && t.cmd == "export":
			return &ArgError{Command: t.cmd, Msg: "--sign-key is gone: bundles are signed with your own key, kept by session-handoff (v0.7.5's PEM keys are not used)",
				Hint: "run 'session-handoff keygen --name YOU@HOST' once; 'session-handoff key show' prints what others add with 'session-handoff trust add'"}
		case name == "--signer" && t.cmd == "export":
			return &ArgError{Command: t.cmd, Msg: "--signer is gone: the signer's name is the name of your key, and a recipient trusts it only once they have added your key",
				Hint: "name your key with 'session-handoff keygen --name NAME'; recipients run 'session-handoff trust add \"ssh-ed25519 … NAME\"'"}
		default:
			if name == "--format" || name == "-f" {
				t.format = true
			}
			t.rest = append(t.rest, a)
		}
	}
	// A positional word given as well is left to the command, which
	// refuses a second argument.
	if len(t.positional) > 1 {
		return &ArgError{Command: t.cmd, Msg: "the handoff is named twice (an argument and --id or --input)", Hint: t.form("X")}
	}
	if t.cmd == "export" && t.oldID && !t.format {
		t.rest = append(t.rest, "--format", "markdown")
		t.notes = append(t.notes, "v0.7.5's export wrote Markdown by default: writing --format markdown (today's default is a signed, encrypted bundle)")
	}
	return nil
}

// passphrase refuses v0.7.5's --passphrase TEXT. Today --passphrase takes
// no value on export (the passphrase comes from the environment, a file or
// the terminal) and import has no such flag. A word after it that is not
// a flag is taken for the old form, except "latest" and a full id.
func (t *translator) passphrase(args []string, i int, value string, hasValue bool) error {
	old := false
	switch {
	case hasValue:
		old = value != "true" && value != "false"
	case t.cmd == "import":
		old = true
	case i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
		w := args[i+1]
		_, err := handoff.ParseID(w)
		old = !strings.EqualFold(w, "latest") && err != nil
	}
	if !old {
		return nil
	}
	hint := "set SESSION_HANDOFF_PASSPHRASE in the environment, or put it in a file: --passphrase-file FILE (mode 0600); without either you are asked on the terminal"
	switch t.cmd {
	case "export":
		hint = "write 'export ID --passphrase' and " + hint
	case "import":
		// import has no --passphrase at all: it opens a passphrase
		// bundle with whichever of these it finds.
		hint = "import needs no --passphrase: write 'session-handoff import FILE', and it takes a passphrase bundle's passphrase from SESSION_HANDOFF_PASSPHRASE or --passphrase-file FILE (mode 0600), else asks on the terminal"
	}
	return &ArgError{Command: t.cmd, Msg: "--passphrase no longer takes the passphrase on the command line: other users of this machine can read a process's arguments", Hint: hint}
}

// oldCommand is the one-line pointer for the earlier tools' commands that
// have no command of that name now: agent-handoff's push and auto (which
// uploaded HANDOFF.md to MemoryVault) and init (which wrote SOUL.md,
// MEMORY.md and HANDOFF.md), and agent-handover's check and status. Its Command is empty: the word is not a command of ours.
func oldCommand(word string, args []string) *ArgError {
	switch word {
	case "push":
		return &ArgError{Msg: "'push' was agent-handoff's upload to MemoryVault: send a handoff with 'session-handoff send' and fetch it on the other machine with 'session-handoff receive'"}
	case "auto":
		return &ArgError{Msg: "'auto' was agent-handoff's snapshot-and-push for cron: run 'session-handoff snapshot' from cron, or 'session-handoff handover run', which keeps the memory as well"}
	case "check":
		return &ArgError{Msg: "'check' was agent-handover's: it is now 'session-handoff handover check [--checkpoint PATH]', with its exit codes (0 no run, 1 resume, 2 completed)"}
	case "status":
		return &ArgError{Msg: "'status' was agent-handover's: it is now 'session-handoff handover status [--checkpoint PATH]'; 'session-handoff doctor' says how everything else stands"}
	}
	msg := "'init' is now 'session-handoff memory init [DIR] [--force]'"
	for _, a := range args {
		if a == "--name" || strings.HasPrefix(a, "--name=") {
			msg += "; the agent's name goes into SOUL.md, which it makes"
			break
		}
	}
	return &ArgError{Msg: msg}
}

// form is the current way to write the command with x as its argument.
func (t *translator) form(x string) string {
	if t.cmd == "import" {
		return "session-handoff import " + x
	}
	return "session-handoff " + t.cmd + " " + x
}

func what(flag string) string {
	if flag == "--input" {
		return "FILE"
	}
	return "ID"
}
