//go:build unix

package git

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A git that leaves a child holding its output (an ssh ControlPersist
// master started by core.sshCommand, say) returns when git itself exits,
// with git's own result: receive took 20.9 s where git failed in 0.08 s
// (issue 50). The stand-in for git is a script first on PATH.
func TestAChildHoldingGitsOutputDoesNotHoldTheCall(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\nsleep 30 &\necho \"$!\" > \"$PIDFILE\"\necho ok\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() {
		if pid, err := os.ReadFile(pidfile); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
				if p, err := os.FindProcess(n); err == nil {
					p.Kill()
				}
			}
		}
	})
	out, err := Runner{Dir: t.TempDir(), Env: []string{"PIDFILE=" + pidfile}}.Run(context.Background(), "status")
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("Run = %q, %v; want git's own output and success", out, err)
	}
}
