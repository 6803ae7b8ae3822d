package native

import (
	"context"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/proc"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Bounds on running an installed agent's --version.
const (
	VersionTimeout   = 5 * time.Second
	maxVersionOutput = 4 << 10
)

// Program is the program that starts the target agent name.
func Program(name string) string {
	if a, ok := agents.Find(name); ok && a.Program != "" {
		return a.Program
	}
	return name
}

// Installed is the version the installed target agent name says it is:
// the first version number (digits and dots: "0.171.0" of "codex-cli
// 0.171.0", "2.1.332" of "2.1.332 (Claude Code)") in what its program,
// found on PATH, prints for --version, run through internal/proc within
// VersionTimeout and read up to 4 KiB; "" when it is not on PATH, fails,
// or prints none.
func Installed(ctx context.Context, name string) string {
	path, err := exec.LookPath(Program(name))
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, VersionTimeout)
	defer cancel()
	var out capped
	cmd := proc.Command(ctx, path, "--version")
	cmd.Stdout, cmd.Stderr = &out, io.Discard
	if err := proc.Result(cmd.Run()); err != nil {
		return ""
	}
	return versionIn(string(out.b))
}

// capped keeps the first maxVersionOutput bytes written to it.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxVersionOutput - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// versionIn is the first version number in out: a word that begins with
// digits, a dot and a digit (a "v" before it left off), without the dots,
// dashes and pluses that end it.
func versionIn(out string) string {
	for _, w := range strings.FieldsFunc(out, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '(' || r == ')' || r == ',' || r == '/'
	}) {
		w = strings.TrimPrefix(w, "v")
		if i := strings.IndexByte(w, '.'); i > 0 && isDigits(w[:i]) && i+1 < len(w) && w[i+1] >= '0' && w[i+1] <= '9' {
			return untrusted.OneLine(strings.TrimRight(w, ".-+"), 64)
		}
	}
	return ""
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// NewerThan reports whether version v is newer than every version of
// checked, comparing their numbers (major, minor, patch, …) in order; a
// suffix after the numbers ("-beta.1") is left out of the comparison.
func NewerThan(v string, checked []string) bool {
	if v == "" || len(checked) == 0 {
		return false
	}
	for _, c := range checked {
		if compareVersions(v, c) <= 0 {
			return false
		}
	}
	return true
}

// compareVersions compares the leading numbers of a and b: -1, 0 or 1.
func compareVersions(a, b string) int {
	x, y := versionNumbers(a), versionNumbers(b)
	for i := 0; i < max(len(x), len(y)); i++ {
		var p, q int
		if i < len(x) {
			p = x[i]
		}
		if i < len(y) {
			q = y[i]
		}
		switch {
		case p < q:
			return -1
		case p > q:
			return 1
		}
	}
	return 0
}

// versionNumbers are the dot-separated numbers v begins with.
func versionNumbers(v string) []int {
	var out []int
	for _, part := range strings.Split(v, ".") {
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(part[:end])
		if err != nil {
			break
		}
		out = append(out, n)
		if end < len(part) {
			break
		}
	}
	return out
}
