package integrate

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
)

// settingsValue is the raw JSON value at the path of keys in the text of
// a settings file (JSON with comments); ok is false when it is not there.
func settingsValue(text []byte, keys ...string) (raw []byte, ok bool, err error) {
	members, _, err := topObject(text)
	if err != nil {
		return nil, false, err
	}
	for i, key := range keys {
		var m *member
		for j := range members {
			if members[j].key == key {
				m = &members[j]
			}
		}
		if m == nil {
			return nil, false, nil
		}
		if i == len(keys)-1 {
			return text[m.valueStart:m.valueEnd], true, nil
		}
		if text[m.valueStart] != '{' {
			return nil, false, nil
		}
		if members, err = objectAt(text, m.valueStart); err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// GeminiCompressionThreshold reads model.compressionThreshold from the
// text of a Gemini CLI settings file (JSON with comments): the fraction of
// the model's context window at which Gemini CLI compresses the
// conversation. ok is false when the file sets none (Gemini's default is
// 0.5: @google/gemini-cli@0.61.0, the settings schema and
// DEFAULT_COMPRESSION_TOKEN_THRESHOLD).
func GeminiCompressionThreshold(text []byte) (threshold float64, ok bool, err error) {
	raw, ok, err := settingsValue(text, "model", "compressionThreshold")
	if err != nil || !ok {
		return 0, false, err
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || v <= 0 {
		return 0, false, nil
	}
	return v, true, nil
}

// GeminiFolderTrustOff says whether the text of the user's Gemini CLI
// settings turns folder trust off (security.folderTrust.enabled false; it
// is on by default), in which case every folder's settings apply.
func GeminiFolderTrustOff(text []byte) bool {
	raw, ok, err := settingsValue(text, "security", "folderTrust", "enabled")
	return err == nil && ok && string(raw) == "false"
}

// GeminiFolderTrusted says whether the rules of a Gemini CLI
// trustedFolders.json ({PATH: TRUST_FOLDER | TRUST_PARENT | DO_NOT_TRUST})
// trust dir, as Gemini CLI decides (@google/gemini-cli@0.61.0,
// isPathTrusted): the rule with the longest path that holds dir wins,
// TRUST_PARENT holding its path's parent; no rule is no trust.
func GeminiFolderTrusted(rules []byte, dir string) (bool, error) {
	var m map[string]string
	if err := json.Unmarshal(rules, &m); err != nil {
		return false, err
	}
	dir = realPath(dir)
	best, level := -1, ""
	for rule, lvl := range m {
		holder := rule
		if lvl == "TRUST_PARENT" {
			holder = filepath.Dir(rule)
		}
		holder = realPath(holder)
		if (dir == holder || strings.HasPrefix(dir, strings.TrimSuffix(holder, string(filepath.Separator))+string(filepath.Separator))) && len(rule) > best {
			best, level = len(rule), lvl
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT", nil
}

// realPath is p with symbolic links resolved, when they can be.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// GeminiTrustedFoldersPath is where Gemini CLI keeps its folder trust
// rules: GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in its
// directory.
func GeminiTrustedFoldersPath(geminiDir string, getenv func(string) string) string {
	if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(geminiDir, "trustedFolders.json")
}
