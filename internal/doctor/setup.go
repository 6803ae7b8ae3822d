package doctor

import (
	"context"
	"fmt"

	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/targets"
)

// NewSetup assembles what doctor checks: dataDir ("" for the default data
// directory), configDir, and the project holding dir ("" for none). When
// the project was named on the command line (named), fixes that act on
// it carry --project.
func NewSetup(ctx context.Context, dataDir, configDir, dir string, named bool, env func(string) string) (Setup, error) {
	s := Setup{DataDir: dataDir, ConfigDir: configDir, Env: env}
	if s.DataDir == "" {
		d, err := paths.Data(env)
		if err != nil {
			return Setup{}, err
		}
		s.DataDir = d
	}
	if dir == "" {
		return s, nil
	}
	root, err := capture.ProjectRoot(ctx, dir)
	if err != nil {
		return Setup{}, err
	}
	s.Project = root
	if named {
		s.ProjectFlag = " --project " + targets.ShellJoin([]string{root})
	}
	return s, nil
}

// Failed is an error saying how many checks failed, or nil when none did.
func Failed(checks []Check) error {
	n := 0
	for _, c := range checks {
		if c.Status == Fail {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d checks failed", n, len(checks))
}
