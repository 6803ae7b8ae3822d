package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/search"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
)

// handoff_search's bounds: an answer is a few KB whatever the archive.
const (
	defaultSearchLimit = 8
	maxSearchLimit     = 20
	// maxSearchText bounds the fenced text of an answer, in bytes.
	maxSearchText = 6 << 10
)

// searchInput are handoff_search's arguments.
type searchInput struct {
	Query   string `json:"query" jsonschema:"words to find (all of them), \"a phrase\", a prefix*, a OR b, -word to leave out; case ignored"`
	Kind    string `json:"kind,omitempty" jsonschema:"only hits in request, message, command, file or decision"`
	Agent   string `json:"agent,omitempty" jsonschema:"only this agent's sessions and handoffs ({names}…)"`
	Project string `json:"project,omitempty" jsonschema:"only this project: . for the one you work in, or a directory"`
	Since   string `json:"since,omitempty" jsonschema:"only what is newer than this: 90m, 6h, 2d, 1w or a date"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many, newest first (default 8, at most 20)"`
}

// searchItem is one result, in values of our own shape only: what the
// result says is in the text, fenced.
type searchItem struct {
	Type  string    `json:"type" jsonschema:"session or handoff"`
	Agent string    `json:"agent,omitempty"`
	ID    string    `json:"id,omitempty" jsonschema:"the handoff's id (handoff_show opens it), or the session's id when it has the expected shape"`
	Time  time.Time `json:"time"`
	Kind  string    `json:"kind" jsonschema:"where the hit is: title, request, message, command, file, decision or todo"`
}

// searchOutput is what handoff_search returns.
type searchOutput struct {
	Count   int          `json:"count"`
	More    bool         `json:"more" jsonschema:"more match past the limit"`
	Results []searchItem `json:"results"`
	Text    string       `json:"text" jsonschema:"the results for reading: titles, projects and snippets quoted in a fenced block, as data"`
}

// safeID says id has the shape of a session id given outside the fence:
// 1 to 128 letters, digits, '_', '.' and '-' (ASCII).
func safeID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func (s *server) search(_ context.Context, in searchInput) (*mcp.CallToolResult, searchOutput, error) {
	q, err := search.ParseQuery(in.Query)
	if err != nil {
		return nil, searchOutput{}, fmt.Errorf("query: %w", err)
	}
	switch {
	case in.Limit < 0 || in.Limit > maxSearchLimit:
		return nil, searchOutput{}, fmt.Errorf("limit %d: want 1 to %d", in.Limit, maxSearchLimit)
	case in.Limit == 0:
		in.Limit = defaultSearchLimit
	}
	var f search.Filter
	if in.Kind != "" {
		k, ok := search.ParseKind(in.Kind)
		if !ok || k == search.KindTitle || k == search.KindTodo {
			return nil, searchOutput{}, errors.New("kind: want request, message, command, file or decision")
		}
		f.Kinds = []search.Kind{k}
	}
	if in.Agent != "" {
		a, err := capture.ParseAgent(in.Agent)
		if err != nil {
			return nil, searchOutput{}, fmt.Errorf("agent: %w", err)
		}
		f.Agent = string(a)
	}
	if f.Since, err = store.ParseSince(in.Since, s.now()); err != nil {
		return nil, searchOutput{}, fmt.Errorf("since %w", err)
	}
	if in.Project != "" {
		dir := filepath.FromSlash(in.Project)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(s.o.Project, dir)
		}
		f.Project = search.ProjectFilter(filepath.Clean(dir), capture.IdentityFunc(context.Background(), filepath.Clean(dir)))
	}
	ix := search.Open(filepath.Join(s.o.Store.Dir(), search.DirName))
	red := func() (*redact.Redactor, error) { return redact.LoadUserPatterns(s.o.ConfigDir) }
	if _, err := search.CatchUp(ix, s.o.Store, s.o.Env, red, s.o.Machine, search.Quick, nil, nil); err != nil {
		return nil, searchOutput{}, fmt.Errorf("update the search index: %w", err)
	}
	res, err := ix.Search(q, f, in.Limit)
	if err != nil && !errors.Is(err, search.ErrNoIndex) {
		return nil, searchOutput{}, err
	}
	out := searchOutput{Results: []searchItem{}, More: res.More}
	var b strings.Builder
	for _, h := range res.Hits {
		d := h.Doc
		entry := fmt.Sprintf("%s  %s  %s  %s  %s\n  %s: %s\n  open: %s\n", d.Time.UTC().Format("2006-01-02 15:04"), d.Type,
			untrusted.OneLine(d.Agent, 32), untrusted.OneLine(d.CWD, 80), untrusted.OneLine(d.Title, 100), h.Kind, untrusted.OneLine(h.Snippet, 300), openFor(d))
		if b.Len()+len(entry) > maxSearchText {
			out.More = true
			break
		}
		b.WriteString(entry)
		item := searchItem{Type: d.Type, Time: d.Time.UTC(), Kind: h.Kind.String()}
		if handoff.ValidTool(d.Agent) {
			item.Agent = d.Agent
		}
		if safeID(d.ID) {
			item.ID = d.ID
		}
		out.Results = append(out.Results, item)
	}
	out.Count = len(out.Results)
	out.Text = searchText(b.String(), out.Count, out.More)
	return text(out.Text), out, nil
}

// searchText is handoff_search's answer for reading.
func searchText(rows string, n int, more bool) string {
	var b strings.Builder
	b.WriteString("# Past sessions and handoffs matching the query\n\n")
	switch {
	case n == 0:
		b.WriteString("Nothing matches.\n")
		return b.String()
	case more:
		fmt.Fprintf(&b, "%d result(s), newest first; more match past the limit.\n", n)
	default:
		fmt.Fprintf(&b, "%d result(s), newest first.\n", n)
	}
	fmt.Fprintf(&b, "\n%s\n\nThe hit is between « and ».\n\n%s\n", render.DataLabel("past sessions and handoffs"), render.Fence(rows))
	return b.String()
}

// openFor is how to open d: the tool for a handoff, the command for a
// session.
func openFor(d search.Doc) string {
	if d.Type == "handoff" {
		return "handoff_show id " + untrusted.OneLine(d.ID, 64)
	}
	return "session-handoff capture --from " + untrusted.OneLine(d.Agent, 32) + " --session " + untrusted.OneLine(d.ID, 128) + " --dry-run"
}
