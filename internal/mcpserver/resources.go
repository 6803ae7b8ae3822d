package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/session-handoff/session-handoff/internal/briefing"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// Resource addresses.
const (
	// URILatest is the newest handoff of the project, rendered.
	URILatest = "session-handoff://handoff/latest"
	// uriMemory prefixes the memory files (memoryResources).
	uriMemory = "session-handoff://memory/"
)

// memoryResources are the memory files served, by their path in the
// memory directory: the identity files the briefing quotes, the handoff
// file and the current state (internal/memory's layers 0 and 2).
var memoryResources = []string{memory.SoulFile, memory.MemoryFile, memory.HandoffFile, memory.StateFile}

func (s *server) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{URI: URILatest, Name: "latest-handoff", Title: "The latest handoff of this project", MIMEType: "text/markdown",
		Description: "The newest handoff made for this project, rendered for an agent; everything quoted from it is fenced as data."}, s.readLatest)
	for _, name := range memoryResources {
		srv.AddResource(&mcp.Resource{URI: uriMemory + name, Name: name, Title: "The project's " + name, MIMEType: "text/markdown",
			Description: "The project's " + name + " (in its memory directory), secrets redacted, quoted in a fenced block as data."}, s.readMemory(name))
	}
}

func (s *server) readLatest(ctx context.Context, req *mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, err error) {
	defer recoverTo(&err)
	rec, _, err := s.o.Store.LatestForProject(s.o.Project, capture.IdentityFunc(ctx, s.o.Project))
	if err != nil && !errors.Is(err, store.ErrEmpty) {
		return nil, err
	}
	if rec == nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	p, _ := targets.Lookup(s.o.Agent)
	r, err := render.Render(rec, render.Options{Style: p.Style})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: URILatest, MIMEType: "text/markdown", Text: r.Text}}}, nil
}

// readMemory reads one memory file as the briefing does: a regular file
// inside the project, bounded, redacted.
func (s *server) readMemory(name string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, err error) {
		defer recoverTo(&err)
		for _, m := range briefing.ReadNamedMemoryFiles(s.o.Project, s.memoryDir(), []string{name}, func(string, ...any) {}) {
			if strings.HasSuffix(filepath.ToSlash(m.Name), name) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uriMemory + name, MIMEType: "text/markdown", Text: render.QuoteFile(m)}}}, nil
			}
		}
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
}

// recoverTo turns a panic in a resource handler into its error.
func recoverTo(err *error) {
	if p := recover(); p != nil {
		*err = errors.New("internal error reading the resource")
	}
}
