// Package fakemodel is a scripted model server for the end-to-end suite
// (internal/e2e): it listens on 127.0.0.1 only and speaks just enough of
// three model APIs for the real agents to run a session against it:
//
//   - the Anthropic Messages API (POST /v1/messages, SSE when the request
//     asks for a stream), for Claude Code;
//   - the OpenAI Responses API (POST /v1/responses, SSE), for Codex CLI;
//   - the Gemini API (POST /v1beta/models/MODEL:streamGenerateContent?alt=sse
//     and :generateContent), for Gemini CLI;
//   - the OpenAI Chat Completions API (POST /v1/chat/completions, SSE when
//     the request asks for a stream), for the agents that speak to any
//     OpenAI-compatible provider (GitHub Copilot CLI, OpenCode, Cline, pi,
//     Qwen Code).
//
// A Script decides each answer: a Turn of tool calls, or of text. Every
// request body is kept so that tests can assert on what the model was
// sent.
package fakemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// API is one of the model APIs the server speaks.
type API string

// The APIs.
const (
	Anthropic API = "anthropic"
	OpenAI    API = "openai"
	Gemini    API = "gemini"
	Chat      API = "chat"
)

// Call is one tool call the model makes.
type Call struct {
	// Name is the tool's name as the agent offered it.
	Name string
	// Args are the call's arguments (a JSON object).
	Args map[string]any
	// Input, for a custom (freeform) tool of the Responses API such as
	// Codex's apply_patch, is its raw input; Args is then unused.
	Input string
}

// Turn is one answer of the model: tool calls, or else text.
type Turn struct {
	Calls []Call
	Text  string
}

// Request is one request the server received.
type Request struct {
	API  API
	Path string
	// Body is the request body as sent.
	Body []byte
	// Tools are the names of the tools the request offers, in order.
	Tools []string
}

// Offers says whether the request offers the named tool.
func (r Request) Offers(name string) bool {
	for _, t := range r.Tools {
		if t == name {
			return true
		}
	}
	return false
}

// Script chooses the answer to a request; it is called with the server's
// lock held, once per request, in the order the requests arrive.
type Script func(r Request) Turn

// Queue is a Script that answers each request that offers tools with the
// next of turns, and every other request (titles, summaries, routing)
// with filler text. When turns run out it answers "done.".
func Queue(turns ...Turn) Script {
	i := 0
	return func(r Request) Turn {
		if len(r.Tools) == 0 {
			return Turn{Text: "ok."}
		}
		if i >= len(turns) {
			return Turn{Text: "done."}
		}
		i++
		return turns[i-1]
	}
}

// maxBody bounds a request body: the agents send their whole conversation
// and tool list each turn, a few hundred kilobytes at most here.
const maxBody = 32 << 20

// Server is a running fake model.
type Server struct {
	// URL is http://127.0.0.1:PORT, with no trailing slash.
	URL string
	// Port is the port it listens on.
	Port int

	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	script   Script
	finish   func(text string) Call
	absent   map[string]bool // tools the script may call unoffered
	requests []Request
	all      []Request // every request since Start, for dumps
	errs     []error
}

// Start listens on 127.0.0.1 on a free port and answers with script.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake model: %w", err)
	}
	s := &Server{ln: ln, script: script, Port: ln.Addr().(*net.TCPAddr).Port}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", s.Port)
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Shutdown(context.Background()) }

// SetScript replaces the script, for the next session of a scenario.
func (s *Server) SetScript(script Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = script
}

// SetFinish makes the server send a text answer to a request that offers
// finish's tool as a call of that tool instead: for an agent whose run
// ends only when the model calls its completion tool, and which prompts
// again a model that only answers (Cline's submit_and_exit). It outlives
// Reset and SetScript.
func (s *Server) SetFinish(finish func(text string) Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finish = finish
}

// CallAbsent lets the script call the named tool where a request does
// not offer it: a scenario of the model calling a tool the agent lacks
// ("No such tool available"). It outlives Reset and SetScript.
func (s *Server) CallAbsent(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.absent == nil {
		s.absent = map[string]bool{}
	}
	s.absent[name] = true
}

// Requests are the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// All are the requests received since Start, Reset or not.
func (s *Server) All() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.all...)
}

// Reset forgets the requests received so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// Errors are the requests the server could not understand, as errors.
func (s *Server) Errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err == nil && len(body) > maxBody {
		err = errors.New("body too large")
	}
	if err != nil {
		s.fail(w, fmt.Errorf("%s %s: %w", r.Method, r.URL.Path, err))
		return
	}
	api, stream, known := route(r)
	if !known || r.Method != http.MethodPost {
		// The agents probe a few other endpoints (model lists, token
		// counts); an empty success keeps them quiet and offline.
		s.record(Request{Path: r.URL.Path, Body: body})
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, emptyAnswer(r.URL.Path))
		return
	}
	tools, err := toolNames(api, body)
	if err != nil {
		s.fail(w, fmt.Errorf("%s: %w", r.URL.Path, err))
		return
	}
	req := Request{API: api, Path: r.URL.Path, Body: body, Tools: tools}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.all = append(s.all, req)
	turn := s.script(req)
	if len(turn.Calls) == 0 && s.finish != nil {
		if c := s.finish(turn.Text); req.Offers(c.Name) {
			turn = Turn{Calls: []Call{c}}
		}
	}
	for _, c := range turn.Calls {
		if !req.Offers(c.Name) && !s.absent[c.Name] {
			// A script written for another version of the agent: say so
			// rather than let the agent answer "unknown tool".
			s.errs = append(s.errs, fmt.Errorf("%s: the script calls %s, which the request does not offer (it offers %v)", r.URL.Path, c.Name, tools))
		}
	}
	s.mu.Unlock()
	if api == Anthropic || api == Chat {
		var b struct {
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(body, &b)
		stream = b.Stream
	}
	if err := write(w, api, stream, turn, len(s.Requests())); err != nil {
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
	}
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	s.all = append(s.all, r)
}

func (s *Server) fail(w http.ResponseWriter, err error) {
	s.mu.Lock()
	s.errs = append(s.errs, err)
	s.mu.Unlock()
	http.Error(w, err.Error(), http.StatusBadRequest)
}

// route says which API a request speaks and whether it asks for a stream
// (Anthropic says so in its body instead).
func route(r *http.Request) (api API, stream, known bool) {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/v1/messages"):
		return Anthropic, false, true
	case strings.HasSuffix(p, "/chat/completions"):
		return Chat, false, true
	case strings.HasSuffix(p, "/responses"):
		return OpenAI, true, true
	case strings.Contains(p, "/models/") && strings.HasSuffix(p, ":streamGenerateContent"):
		return Gemini, true, true
	case strings.Contains(p, "/models/") && strings.HasSuffix(p, ":generateContent"):
		return Gemini, false, true
	}
	return "", false, false
}

// emptyAnswer is the answer to an endpoint the server does not script.
func emptyAnswer(path string) string {
	switch {
	case strings.HasSuffix(path, "/count_tokens"):
		return `{"input_tokens":1000}`
	case strings.HasSuffix(path, ":countTokens"):
		return `{"totalTokens":1000}`
	case strings.HasSuffix(path, "/models"):
		return `{"data":[],"models":[]}`
	}
	return `{}`
}

// toolNames are the names of the tools a request body offers.
func toolNames(api API, body []byte) ([]string, error) {
	var out []string
	switch api {
	case Anthropic, OpenAI, Chat:
		var b struct {
			Tools []openAITool `json:"tools"`
			// Codex's tool_search answers with tools that its next
			// requests offer only inside the conversation, as
			// tool_search_output items.
			Input []struct {
				Type  string       `json:"type"`
				Tools []openAITool `json:"tools"`
			} `json:"input"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		out = openAIToolNames(b.Tools, "")
		for _, it := range b.Input {
			if it.Type == "tool_search_output" {
				out = append(out, openAIToolNames(it.Tools, "")...)
			}
		}
	case Gemini:
		var b struct {
			Tools []struct {
				FunctionDeclarations []struct {
					Name string `json:"name"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		for _, t := range b.Tools {
			for _, f := range t.FunctionDeclarations {
				out = append(out, f.Name)
			}
		}
	}
	return out, nil
}

// openAITool is a tool as the Messages and Responses APIs offer it.
type openAITool struct {
	Type string `json:"type"`
	Name string `json:"name"`
	// Older shapes nest the function's name.
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
	// A namespace (Codex's MCP tools) holds tools of its own.
	Tools []openAITool `json:"tools"`
}

// openAIToolNames are the names tools offer: a tool without a name (the
// Responses API's tool_search, web_search) goes by its type, and a tool
// inside a namespace by NAMESPACE/NAME.
func openAIToolNames(tools []openAITool, prefix string) []string {
	var out []string
	for _, t := range tools {
		name := t.Name
		if name == "" {
			name = t.Function.Name
		}
		if name == "" {
			name = t.Type
		}
		if t.Type == "namespace" {
			out = append(out, openAIToolNames(t.Tools, prefix+name+"/")...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}
