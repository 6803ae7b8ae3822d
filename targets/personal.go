package targets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Personal is the profile writing to the agent's PersonalFile instead of
// the shared InstructionFile; ok is false when the agent has none.
func (p Profile) Personal() (Profile, bool) {
	if p.PersonalFile == "" {
		return p, false
	}
	p.InstructionFile, p.Header = p.PersonalFile, p.PersonalHeader
	return p, true
}

// Codex's names for its instruction files and its limit on them: in each
// directory from the git root down it reads AGENTS.override.md instead of
// AGENTS.md where both exist, and at most project_doc_max_bytes of them
// together, 32 KiB unless config.toml says otherwise (openai/codex
// codex-rs/core/src/project_doc.rs at 0bd53e4: LOCAL_PROJECT_DOC_FILENAME,
// candidate_filenames, read_project_docs; docs/agents_md.md). The
// user-wide ~/.codex/AGENTS.md is read whole, outside that limit
// (openai/codex#37956, checked against codex-rs at 41ece455).
const (
	codexOverride      = "AGENTS.override.md"
	codexMaxBytesKey   = "project_doc_max_bytes"
	maxCodexConfigSize = 1 << 20
)

// ForProject is the profile as it applies in the project at root, for
// what the agent decides from the project's files: for Codex, the file
// the block must go into (AGENTS.override.md when the root has one, since
// Codex then ignores AGENTS.md there) and its limit (project_doc_max_bytes
// from the project's .codex/config.toml, else the user's config.toml in
// the agent's directory under home, else 32 KiB). The block is written at
// the root, the first file Codex reads, so the whole chain's limit is the
// root file's room. Other profiles are returned as they are.
func (p Profile) ForProject(root, home string, getenv func(string) string) (Profile, error) {
	if p.Name != agents.Codex {
		return p, nil
	}
	if info, err := os.Lstat(filepath.Join(root, codexOverride)); err == nil && !info.IsDir() {
		p.InstructionFile = codexOverride
	}
	configs := []string{filepath.Join(root, ".codex", "config.toml")}
	if a, ok := agents.Find(agents.Codex); ok {
		for _, d := range a.Dirs(home, getenv) {
			configs = append(configs, filepath.Join(d, "config.toml"))
		}
	}
	for _, c := range configs {
		n, ok, err := codexDocLimit(c)
		if err != nil {
			return p, err
		}
		if ok {
			p.MaxFileSize = n
			p.InstructionBudget = min(p.InstructionBudget, n/2)
			break
		}
	}
	return p, nil
}

// codexDocLimit reads project_doc_max_bytes from a Codex config.toml; ok
// is false when the file or the key is missing.
func codexDocLimit(path string) (n int, ok bool, err error) {
	data, err := safefile.ReadRegular(path, maxCodexConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	var cfg map[string]any
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		return 0, false, fmt.Errorf("%s: not valid TOML: %w", path, err)
	}
	v, ok := cfg[codexMaxBytesKey].(int64)
	if !ok {
		return 0, false, nil
	}
	if v <= 0 || v > 1<<30 {
		return 0, false, fmt.Errorf("%s: %s = %d: Codex reads no instruction file then; session-handoff writes none", path, codexMaxBytesKey, v)
	}
	return int(v), true, nil
}
