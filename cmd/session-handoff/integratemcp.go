package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/internal/buildinfo"
	"github.com/session-handoff/session-handoff/internal/integrate"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// runIntegrateMCP registers the MCP server (session-handoff mcp) with the
// agent, or takes it out again: a member of mcpServers in .mcp.json or
// Gemini's settings.json, a [mcp_servers.session-handoff] table in Codex's
// config.toml; inserted, and removed exactly, as the hooks are.
func runIntegrateMCP(a *app, opts integrateOptions) error {
	info, err := agents.Lookup(opts.agent)
	if err != nil {
		return usageError{err}
	}
	root := ""
	if !opts.user {
		if root, err = a.projectRoot(opts.dir); err != nil {
			return err
		}
	}
	home, err := paths.Home(a.getenv)
	if opts.user && err != nil {
		return err
	}
	path, reg, err := integrate.MCPPath(info.Name, root, home, opts.user, a.getenv)
	if errors.Is(err, integrate.ErrMCPUserScope) {
		return withHint(fmt.Errorf("%s: %w", info.Display, err), "run: "+reg.RegisterUser)
	}
	if errors.Is(err, safefile.ErrOutside) {
		return err
	}
	if err != nil {
		return usageError{err}
	}
	s, err := a.openStore()
	if err != nil {
		return err
	}
	stateDir := filepath.Join(s.Dir(), "integrations")
	var c *integrate.Change
	if opts.remove {
		c, err = integrate.PlanRemoveMCP(path, stateDir)
	} else {
		c, err = integrate.PlanInstallMCP(path, reg, integrate.NewMCPServer(opts.program, info.Name))
	}
	if err != nil {
		return err
	}
	if err := a.applyIntegration(opts, path, stateDir, c, mcpWords); err != nil {
		return err
	}
	if !c.Nothing && !opts.dryRun && !opts.remove && !opts.user && reg.ProjectNote != "" {
		fmt.Fprintln(a.stdout, reg.ProjectNote)
	}
	return nil
}

// runIntegratePackage writes a Claude Code plugin (--plugin DIR) or a
// Gemini CLI extension (--extension DIR) that brings the hooks and the
// MCP server with it; the agent installs it from there.
func runIntegratePackage(a *app, opts integrateOptions) error {
	info, err := agents.Lookup(opts.agent)
	if err != nil {
		return usageError{err}
	}
	if opts.remove || opts.user || opts.mcp || opts.dryRun {
		return usagef("--plugin and --extension take no --remove, --user, --mcp or --dry-run: they write a directory, which you delete to undo")
	}
	flag, dir := "plugin", opts.plugin
	if opts.plugin == "" {
		flag, dir = "extension", opts.extension
	}
	pk := info.Package
	if pk == nil || pk.Flag != flag {
		var makes []string
		for _, o := range agents.All() {
			if o.Package != nil && o.Package.Flag == flag {
				makes = append(makes, "a "+o.Display+" "+o.Package.Kind+": integrate "+o.Name+" --"+flag+" DIR")
			}
		}
		return usagef("--%s makes %s", flag, strings.Join(makes, "; "))
	}
	dir = pk.Dir(dir, integrate.PackageName)
	files, err := integrate.PackageFiles(info, opts.program, buildinfo.Version())
	if err != nil {
		return err
	}
	written, err := integrate.WritePackage(dir, files)
	if err != nil {
		return err
	}
	if len(written) == 0 {
		fmt.Fprintf(a.stdout, "%s already holds this %s package\n", dir, info.Display)
	} else {
		fmt.Fprintf(a.stdout, "wrote %s: %s\n", dir, strings.Join(written, ", "))
	}
	fmt.Fprintln(a.stdout, pk.Next(dir))
	return nil
}
