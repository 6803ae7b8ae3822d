package integrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/session-handoff/session-handoff/internal/agent"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// PackageName is the name of the Claude Code plugin and the Gemini CLI
// extension; Gemini CLI wants the extension's directory named so too.
const PackageName = "session-handoff"

const packageDescription = "Handoffs between coding sessions: a briefing when a session starts, a capture before compaction and at the end, and the session-handoff MCP server."

// semver is the shape of a release version (a leading v dropped).
var semver = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`) })

// packageVersion is version as the manifests want it: a semantic version,
// "0.0.0" for a development build.
func packageVersion(version string) string {
	if v := strings.TrimPrefix(version, "v"); semver().MatchString(v) {
		return v
	}
	return "0.0.0"
}

// PackageFiles is the files of the package the agent's folder declares
// (agent.Agent.Package: Claude Code's plugin, Gemini CLI's extension), by
// path in its directory: our hooks in the agent's settings format and
// our MCP server, running program.
func PackageFiles(info agent.Agent, program, version string) (map[string][]byte, error) {
	if info.Package == nil {
		return nil, fmt.Errorf("%s: session-handoff writes no package for it", info.Display)
	}
	a, err := LookupAgent(info.Name)
	if err != nil {
		return nil, err
	}
	hooks, _, err := Insert(nil, a.Hooks(program))
	if err != nil {
		return nil, err
	}
	return info.Package.Files(agent.PackageInput{Name: PackageName, Version: packageVersion(version), Description: packageDescription,
		Hooks: hooks, Server: NewMCPServer(program, info.Name)})
}

// ErrPackageFileDiffers is wrapped when a file of a package to write
// already exists with other content.
var ErrPackageFileDiffers = errors.New("exists with other content")

// WritePackage writes files into dir, each atomically. A file already
// there with the same bytes is left alone; one with other bytes, or one
// that a link in its directories would put outside dir
// (safefile.Within), stops the write before anything is written, so a
// package is never half replaced and nobody's file is overwritten. It
// returns the files written.
func WritePackage(dir string, files map[string][]byte) ([]string, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	var todo []string
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if _, err := os.Stat(dir); err == nil {
			if err := safefile.Within(dir, path, "the package directory"); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		old, err := safefile.ReadRegular(path, MaxSettings)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			todo = append(todo, name)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", path, err)
		case !bytes.Equal(old, files[name]):
			return nil, fmt.Errorf("%s %w: remove it or choose another directory", path, ErrPackageFileDiffers)
		}
	}
	for _, name := range todo {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := safefile.WriteFile(path, files[name], 0o644); err != nil {
			return nil, safefile.Wrap("write", path, err)
		}
	}
	return todo, nil
}
