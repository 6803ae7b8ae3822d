package transcript

import (
	"path"
	"strings"
)

// What a shell command says it did to files (issue 45): agents rename,
// remove and make files through the shell as often as through their edit
// tools, and only the command line tells that the session did it. The
// command's word is a claim; capture keeps an effect only where git shows
// it (capture.ReconcileShell).

// Kinds of ShellEffect, as handoff.FileTouched's actions name them.
const (
	EffectRenamed = "renamed"
	EffectDeleted = "deleted"
	EffectCreated = "created"
)

// A ShellEffect is one file a command names as renamed (From to Path),
// removed or made. Paths are as the command wrote them, joined to the
// directory an earlier "cd" of the same command line moved to.
type ShellEffect struct {
	Kind string
	From string
	Path string
	// IntoDir says Path may be a directory the file was moved or copied
	// into (two operands: "mv a.go pkg" may make pkg/a.go).
	IntoDir bool
}

// maxEffects bounds the effects read from one command line.
const maxEffects = 256

// ShellEffects reads the renames (mv, git mv), removals (rm, git rm,
// unlink, rmdir) and new files (touch, mkdir, cp, install) of a command
// line, simple command by simple command. A word with a glob, a variable
// or a substitution names no file it can know and is passed over; so is
// a command it does not know, and everything after a cd it cannot follow.
func ShellEffects(cmd string) []ShellEffect {
	var out []ShellEffect
	dir := ""
	for _, seg := range shellSegments(cmd) {
		words := seg.words
		for len(words) > 0 && (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") || prefixCommands()[words[0]]) {
			words = words[1:]
		}
		if len(words) == 0 {
			continue
		}
		prog := action(words).program()
		args := words[1:]
		if prog == "git" {
			// git [-C DIR] SUBCOMMAND …: only the plain form.
			if len(args) == 0 {
				continue
			}
			prog, args = "git "+args[0], args[1:]
		}
		join := func(p string) string {
			if dir == "" || path.IsAbs(p) || strings.HasPrefix(p, "~") {
				return p
			}
			return path.Join(dir, p)
		}
		switch prog {
		case "cd":
			ops := operands(args, nil)
			if len(ops) != 1 || !plainPath(ops[0]) {
				return out // where the rest runs is unknown
			}
			dir = join(ops[0])
		case "mv", "git mv":
			out = appendMoves(out, EffectRenamed, args, join)
		case "cp", "install":
			out = appendMoves(out, EffectCreated, args, join)
		case "rm", "git rm", "unlink", "rmdir":
			for _, p := range operands(args, nil) {
				if plainPath(p) {
					out = append(out, ShellEffect{Kind: EffectDeleted, Path: join(p)})
				}
			}
		case "touch", "mkdir":
			for _, p := range operands(args, map[string]bool{"-m": true, "--mode": true, "-d": true, "-r": true, "-t": true}) {
				if plainPath(p) {
					out = append(out, ShellEffect{Kind: EffectCreated, Path: join(p)})
				}
			}
		}
		if len(out) > maxEffects {
			return out[:maxEffects]
		}
	}
	return out
}

// appendMoves adds what "mv SRC DST", "mv SRC… DIR" or "mv -t DIR SRC…"
// (cp and install alike) do: each source to its destination, of kind.
func appendMoves(out []ShellEffect, kind string, args []string, join func(string) string) []ShellEffect {
	target := ""
	var ops []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-t" || a == "--target-directory":
			if i+1 < len(args) {
				target = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--target-directory="):
			target = strings.TrimPrefix(a, "--target-directory=")
		case a == "-S" || a == "--suffix" || a == "-m" || a == "-o" || a == "-g" || a == "--mode" || a == "--owner" || a == "--group":
			i++ // an option's value
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			ops = append(ops, a)
		}
	}
	into := target != ""
	if !into {
		if len(ops) < 2 {
			return out
		}
		target, ops = ops[len(ops)-1], ops[:len(ops)-1]
	}
	if !plainPath(target) {
		return out
	}
	for _, src := range ops {
		if !plainPath(src) {
			continue
		}
		e := ShellEffect{Kind: kind, From: join(src), Path: join(target), IntoDir: !into && len(ops) == 1}
		if into || len(ops) > 1 {
			e.Path = join(path.Join(target, path.Base(src)))
		}
		if kind == EffectCreated {
			e.From = ""
		}
		out = append(out, e)
	}
	return out
}

// operands are the words of args that are not options (nor the value of
// one of withValue), all of them after "--".
func operands(args []string, withValue map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case withValue[a]:
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			out = append(out, a)
		}
	}
	return out
}

// plainPath says whether w names one file as it stands: no glob,
// variable, substitution, redirection or home directory to expand.
func plainPath(w string) bool {
	return w != "" && w != "-" && !strings.ContainsAny(w, "*?[]{}$`<>|&;~\x00\n") && w != "." && w != ".."
}
