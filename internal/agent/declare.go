package agent

import (
	"bytes"
	"encoding/json"
	"path/filepath"
)

// LateSession is how an agent that writes a session's log only after its
// hooks have run (GitHub Copilot CLI: when the session shuts down) says
// where that log is and whether it is whole.
type LateSession struct {
	// IsID says whether id, from a hook's input, is one of the agent's
	// session ids (a plain name, bounded).
	IsID func(id string) bool
	// File is the log of session id in the first of roots (the agent's
	// session roots) that holds it; "" when none does.
	File func(id string, roots []string) string
	// Ended says whether the log at file has grown past size bytes and
	// ends with the session's shutdown.
	Ended func(file string, size int64) bool
}

// HookCall is what an agent's CompactCaptures is told of a hook call.
type HookCall struct {
	// Root is the project's root; TranscriptPath and Trigger come from
	// the hook's input ("" when it names none).
	Root, TranscriptPath, Trigger string
	// Dirs are the agent's own directories (Agent.Dirs).
	Dirs []string
	// Read reads a settings file, bounded; an error when it is missing
	// or unreadable.
	Read func(path string) ([]byte, error)
}

// TrustCheck is what doctor tells an agent's HookTrust.
type TrustCheck struct {
	// Project is the project's root, "" outside one; ProjectSettings the
	// project's hook settings file there.
	Project, ProjectSettings string
	// Installed are the files that hold our hooks.
	Installed []string
	// Dirs are the agent's own directories (Agent.Dirs); Env the
	// commands' own lookup of environment variables.
	Dirs []string
	Env  func(string) string
	// Read reads a settings file, bounded; nil and no error when it is
	// missing.
	Read func(path string) ([]byte, error)
}

// Distrust says that an agent will not run hooks installed for it, and
// what makes it run them.
type Distrust struct {
	// Detail says which hooks and why, in one line; Fix what to do.
	Detail, Fix string
}

// Package is a package of session-handoff's hooks and MCP server that an
// agent installs itself (a plugin, an extension).
type Package struct {
	// Flag is integrate's flag that writes it ("plugin", "extension"),
	// Kind what the agent calls it, for messages.
	Flag, Kind string
	// Dir is where the package is written, given the directory the user
	// named and the package's name.
	Dir func(dir, name string) string
	// Files are its files by path in that directory.
	Files func(in PackageInput) (map[string][]byte, error)
	// Next says how to install it, given its directory.
	Next func(dir string) string
}

// PackageInput is what a Package's files are made of.
type PackageInput struct {
	// Name, Version (a semantic version) and Description are the
	// package's.
	Name, Version, Description string
	// Hooks is the hooks file, in the agent's settings format; Server is
	// the MCP server's entry, to be marshalled as JSON.
	Hooks  []byte
	Server any
}

// IndentJSON is v as a package's JSON file: indented, no HTML escaping.
func IndentJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RealPath is p with symbolic links resolved, when they can be: how an
// agent compares a folder its settings name with a project's.
func RealPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
