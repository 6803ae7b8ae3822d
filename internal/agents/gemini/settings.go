package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/jsonc"
)

// settingsValue is the raw JSON value at the path of keys in the text of
// a settings file (JSON with comments); ok is false when it is not there.
func settingsValue(text []byte, keys ...string) (raw []byte, ok bool, err error) {
	members, _, err := jsonc.TopObject(text)
	if err != nil {
		return nil, false, err
	}
	for i, key := range keys {
		var m *jsonc.Member
		for j := range members {
			if members[j].Key == key {
				m = &members[j]
			}
		}
		if m == nil {
			return nil, false, nil
		}
		if i == len(keys)-1 {
			return text[m.ValueStart:m.ValueEnd], true, nil
		}
		if text[m.ValueStart] != '{' {
			return nil, false, nil
		}
		if members, err = jsonc.ObjectAt(text, m.ValueStart); err != nil {
			return nil, false, err
		}
	}
	return nil, false, nil
}

// CompressionThreshold reads model.compressionThreshold from the
// text of a Gemini CLI settings file (JSON with comments): the fraction of
// the model's context window at which Gemini CLI compresses the
// conversation. ok is false when the file sets none (Gemini's default is
// 0.5: @google/gemini-cli@0.61.0, the settings schema and
// DEFAULT_COMPRESSION_TOKEN_THRESHOLD).
func CompressionThreshold(text []byte) (threshold float64, ok bool, err error) {
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

// FolderTrustOff says whether the text of the user's Gemini CLI
// settings turns folder trust off (security.folderTrust.enabled false; it
// is on by default), in which case every folder's settings apply.
func FolderTrustOff(text []byte) bool {
	raw, ok, err := settingsValue(text, "security", "folderTrust", "enabled")
	return err == nil && ok && string(raw) == "false"
}

// FolderTrusted says whether the rules of a Gemini CLI
// trustedFolders.json ({PATH: TRUST_FOLDER | TRUST_PARENT | DO_NOT_TRUST})
// trust dir, as Gemini CLI decides (@google/gemini-cli@0.61.0,
// isPathTrusted): the rule with the longest path that holds dir wins,
// TRUST_PARENT holding its path's parent; no rule is no trust.
func FolderTrusted(rules []byte, dir string) (bool, error) {
	var m map[string]string
	if err := json.Unmarshal(rules, &m); err != nil {
		return false, err
	}
	dir = agent.RealPath(dir)
	best, level := -1, ""
	for rule, lvl := range m {
		holder := rule
		if lvl == "TRUST_PARENT" {
			holder = filepath.Dir(rule)
		}
		holder = agent.RealPath(holder)
		if (dir == holder || strings.HasPrefix(dir, strings.TrimSuffix(holder, string(filepath.Separator))+string(filepath.Separator))) && len(rule) > best {
			best, level = len(rule), lvl
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT", nil
}

// TrustedFoldersPath is where Gemini CLI keeps its folder trust
// rules: GEMINI_CLI_TRUSTED_FOLDERS_PATH, else trustedFolders.json in its
// directory.
func TrustedFoldersPath(geminiDir string, getenv func(string) string) string {
	if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(geminiDir, "trustedFolders.json")
}

// hookTrust is doctor's check (agent.Agent.HookTrust): for hooks
// installed in the project's .gemini/settings.json, Gemini CLI ignores
// that file when it does not trust the project's folder
// (trustedFolders.json), unless the user turned folder trust off.
func hookTrust(c agent.TrustCheck) (*agent.Distrust, error) {
	if c.Project == "" || !slices.Contains(c.Installed, c.ProjectSettings) || len(c.Dirs) == 0 {
		return nil, nil
	}
	if user, err := c.Read(filepath.Join(c.Dirs[0], "settings.json")); err == nil && user != nil && FolderTrustOff(user) {
		return nil, nil
	}
	rulesPath := TrustedFoldersPath(c.Dirs[0], c.Env)
	rules, err := c.Read(rulesPath)
	if err != nil {
		return nil, err
	}
	trusted := false
	if rules != nil {
		if trusted, err = FolderTrusted(rules, c.Project); err != nil {
			return nil, fmt.Errorf("%s: %w", rulesPath, err)
		}
	}
	if trusted {
		return nil, nil
	}
	return &agent.Distrust{
		Detail: "installed in " + c.ProjectSettings + ", but Gemini CLI does not trust " + c.Project + " (" + rulesPath + "), so it ignores the project's settings and their hooks",
		Fix:    "start gemini in the project and trust the folder, or install the hooks with --user",
	}, nil
}

// Gemini CLI's context windows (@google/gemini-cli@0.61.0, tokenLimit):
// 1,048,576 tokens for the Gemini models, 256,000 for Gemma 4.
const (
	window      = 1_048_576
	gemmaWindow = 256_000
)

// willCompress is Gemini CLI's CompactCaptures: whether an automatic
// PreCompress comes before a compression. Gemini CLI fires it before
// every model call, and only then checks whether the last prompt's token
// count has reached the compression threshold of the model's window
// (ChatCompressionService.compress); this checks the same, from the
// transcript and the settings (the project's over the user's), so that a
// capture runs only when the conversation is about to be compressed. When
// it cannot tell, it says yes: a capture too many is better than one lost.
// A manual /compress always compresses.
func willCompress(c agent.HookCall) bool {
	if c.Trigger == "manual" || c.TranscriptPath == "" {
		return true
	}
	tokens, model, err := LastPrompt(c.TranscriptPath)
	if err != nil {
		return true
	}
	threshold := 0.5
	var files []string
	if len(c.Dirs) > 0 {
		files = append(files, filepath.Join(c.Dirs[0], "settings.json"))
	}
	files = append(files, filepath.Join(c.Root, ".gemini", "settings.json"))
	for _, f := range files {
		text, err := c.Read(f)
		if err != nil {
			continue
		}
		if v, ok, err := CompressionThreshold(text); err == nil && ok {
			threshold = v
		}
	}
	w := float64(window)
	if strings.HasPrefix(model, "gemma") {
		w = gemmaWindow
	}
	return float64(tokens) >= threshold*w
}
