package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// TestManPageEscapesText: text that roff would read as requests or escapes
// prints as written.
func TestManPageEscapesText(t *testing.T) {
	cmd := &cobra.Command{
		Use:     "evil",
		Short:   "a -dash",
		Long:    ".TH HIJACK\n'br\nback\\fBslash\n\nnaïve … done",
		Example: "  evil --x",
	}
	cmd.Flags().String("x", "", ".so /etc/passwd")
	page := manPage(cmd, "evil.1")
	for _, line := range strings.Split(page, "\n") {
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			macro, _, _ := strings.Cut(line[1:], " ")
			switch macro {
			case `\"`, "TH", "SH", "TP", "B", "BR", "nf", "fi":
			default:
				t.Errorf("text became a roff request: %q", line)
			}
		}
	}
	for _, want := range []string{`\&.TH HIJACK`, `\&'br`, `back\efBslash`, `na\[u00EF]ve \[u2026] done`, `\fB\-\-x\fR string`, `\&.so /etc/passwd`, "\n\\&\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}

// TestManPagesLintClean writes every page and has groff check it, where
// groff is installed (CI installs it).
func TestManPagesLintClean(t *testing.T) {
	groff := testsys.LookPath(t, "groff")
	dir := t.TempDir()
	if code := run([]string{"man", dir}, strings.NewReader(""), os.Stdout, os.Stderr); code != 0 {
		t.Fatalf("man exited %d", code)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if len(pages) < 40 {
		t.Fatalf("only %d pages", len(pages))
	}
	for _, p := range pages {
		out, err := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z", p).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s: groff: %v %s", filepath.Base(p), err, out)
		}
	}
}
