package integrate

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// CopilotFolderTrusted says whether GitHub Copilot CLI's config.json
// (~/.copilot/config.json, or under $COPILOT_HOME) trusts dir for future
// sessions: its list of trusted folders ("trusted_folders", or
// "trustedFolders" as later documents name it) holds dir or a folder
// above it, since a folder's trust covers what is below it (docs.github.com,
// "Configure GitHub Copilot CLI"). Copilot runs a repository's
// .github/hooks only in a folder it trusts. A file without the list
// trusts nothing.
func CopilotFolderTrusted(config []byte, dir string) (bool, error) {
	var c struct {
		Snake []string `json:"trusted_folders"`
		Camel []string `json:"trustedFolders"`
	}
	if err := json.Unmarshal(config, &c); err != nil {
		return false, err
	}
	dir = realPath(dir)
	for _, f := range append(c.Snake, c.Camel...) {
		if f == "" || !filepath.IsAbs(f) {
			continue
		}
		holder := realPath(f)
		if dir == holder || strings.HasPrefix(dir, strings.TrimSuffix(holder, string(filepath.Separator))+string(filepath.Separator)) {
			return true, nil
		}
	}
	return false, nil
}
