package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

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

// forProject is Codex's profile as it applies in the project at root
// (agent.Agent.ForProject): the file the block must go into
// (AGENTS.override.md when the root has one, since Codex then ignores
// AGENTS.md there) and its limit (project_doc_max_bytes from the
// project's .codex/config.toml, else the user's config.toml in its own
// directory, else 32 KiB). The block is written at the root, the first
// file Codex reads, so the whole chain's limit is the root file's room.
func forProject(p agent.Profile, root string, dirs []string) (agent.Profile, error) {
	if info, err := os.Lstat(filepath.Join(root, codexOverride)); err == nil && !info.IsDir() {
		p.InstructionFile = codexOverride
	}
	configs := []string{filepath.Join(root, ".codex", "config.toml")}
	for _, d := range dirs {
		configs = append(configs, filepath.Join(d, "config.toml"))
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
// is false when the file or the key is missing. The project's file comes
// with the repository, so it is not decoded as a whole: only a top-level
// line "project_doc_max_bytes = N" before the first table header is read,
// which is where TOML puts a top-level key.
func codexDocLimit(path string) (n int, ok bool, err error) {
	data, err := safefile.ReadRegular(path, maxCodexConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	v, ok, err := docLimitLine(data)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", path, err)
	}
	return v, ok, nil
}

// docLimitLine finds the top-level project_doc_max_bytes in TOML text.
func docLimitLine(data []byte) (int, bool, error) {
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			return 0, false, nil
		}
		key, value, found := strings.Cut(l, "=")
		if !found || strings.Trim(strings.TrimSpace(key), `"'`) != codexMaxBytesKey {
			continue
		}
		value, _, _ = strings.Cut(value, "#")
		value = strings.ReplaceAll(strings.TrimSpace(value), "_", "")
		v, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("%s = %s: not a number of bytes", codexMaxBytesKey, handoff.Shorten(handoff.CleanText(strings.TrimSpace(value)), 40))
		}
		if v <= 0 || v > 1<<30 {
			return 0, false, fmt.Errorf("%s = %d: Codex reads no instruction file then; session-handoff writes none", codexMaxBytesKey, v)
		}
		return int(v), true, nil
	}
	return 0, false, nil
}
