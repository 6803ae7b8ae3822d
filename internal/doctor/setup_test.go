package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestNewSetup(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	env := func(k string) string {
		if k == "SESSION_HANDOFF_HOME" {
			return home
		}
		return ""
	}
	project := t.TempDir()
	s, err := NewSetup(ctx, "", "/cfg", project, false, env)
	if err != nil {
		t.Fatal(err)
	}
	if s.DataDir != filepath.Join(home, "data") || s.ConfigDir != "/cfg" || s.Project != project || s.ProjectFlag != "" {
		t.Errorf("NewSetup = %+v", s)
	}
	s, err = NewSetup(ctx, "/data", "/cfg", project, true, env)
	if err != nil || s.DataDir != "/data" || !strings.Contains(s.ProjectFlag, "--project "+project) {
		t.Errorf("a named project: %+v, %v", s, err)
	}
	if s, err := NewSetup(ctx, "/data", "/cfg", "", true, env); err != nil || s.Project != "" || s.ProjectFlag != "" {
		t.Errorf("no project: %+v, %v", s, err)
	}
	file := filepath.Join(project, "f")
	testsys.Check(t, os.WriteFile(file, nil, 0o644))
	if _, err := NewSetup(ctx, "/data", "/cfg", file, true, env); err == nil {
		t.Error("a file as the project was accepted")
	}
}

func TestFailed(t *testing.T) {
	if err := Failed([]Check{{Status: OK}, {Status: Warn}}); err != nil {
		t.Errorf("warnings alone: %v", err)
	}
	err := Failed([]Check{{Status: OK}, {Status: Fail}, {Status: Fail}})
	if err == nil || err.Error() != "2 of 3 checks failed" {
		t.Errorf("two failures: %v", err)
	}
}
