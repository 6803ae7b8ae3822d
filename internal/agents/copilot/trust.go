package copilot

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
)

// FolderTrusted says whether GitHub Copilot CLI's config.json
// (~/.copilot/config.json, or under $COPILOT_HOME) trusts dir for future
// sessions: its list of trusted folders ("trusted_folders", or
// "trustedFolders" as later documents name it) holds dir or a folder
// above it, since a folder's trust covers what is below it (docs.github.com,
// "Configure GitHub Copilot CLI"). Copilot runs a repository's
// .github/hooks only in a folder it trusts. A file without the list
// trusts nothing.
func FolderTrusted(config []byte, dir string) (bool, error) {
	var c struct {
		Snake []string `json:"trusted_folders"`
		Camel []string `json:"trustedFolders"`
	}
	if err := json.Unmarshal(config, &c); err != nil {
		return false, err
	}
	dir = agent.RealPath(dir)
	for _, f := range append(c.Snake, c.Camel...) {
		if f == "" || !filepath.IsAbs(f) {
			continue
		}
		holder := agent.RealPath(f)
		if dir == holder || strings.HasPrefix(dir, strings.TrimSuffix(holder, string(filepath.Separator))+string(filepath.Separator)) {
			return true, nil
		}
	}
	return false, nil
}

// hookTrust is doctor's check (agent.Agent.HookTrust): when our hooks are
// in the project's .github/hooks, whether GitHub Copilot CLI trusts the
// project's folder for future sessions (its config.json): it runs a
// repository's hooks only there, and asks at the start of an interactive
// session; a headless one runs none.
func hookTrust(c agent.TrustCheck) (*agent.Distrust, error) {
	if c.Project == "" || !slices.Contains(c.Installed, c.ProjectSettings) || len(c.Dirs) == 0 {
		return nil, nil
	}
	path := filepath.Join(c.Dirs[0], "config.json")
	config, err := c.Read(path)
	if err != nil {
		return nil, err
	}
	trusted := false
	if config != nil {
		if trusted, err = FolderTrusted(config, c.Project); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if trusted {
		return nil, nil
	}
	return &agent.Distrust{
		Detail: "installed in " + c.ProjectSettings + ", but GitHub Copilot CLI does not trust " + c.Project + " (" + path + "), so it runs none of the repository's hooks until you trust the folder",
		Fix:    "start copilot in the project and trust the folder for future sessions, or install the hooks with --user",
	}, nil
}
