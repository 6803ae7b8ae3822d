package fakemodel

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each API gets the scripted turns in its own wire format, in order; a
// request without tools gets filler; every request is kept.
func TestScriptedTurnsPerAPI(t *testing.T) {
	write := Call{Name: "Write", Args: map[string]any{"file_path": "/p/hello.txt", "content": "hi"}}
	s, err := Start(Queue(Turn{Calls: []Call{write}}, Turn{Text: "all done"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("listens on %s, want loopback", s.URL)
	}
	anthropic := `{"stream":true,"tools":[{"name":"Write"}],"messages":[]}`
	out := post(t, s.URL+"/v1/messages", anthropic)
	for _, want := range []string{"event: message_start", `"type":"tool_use"`, `"name":"Write"`, `input_json_delta`, `\"file_path\":\"/p/hello.txt\"`, `"stop_reason":"tool_use"`, "event: message_stop"} {
		if !strings.Contains(out, want) {
			t.Errorf("Messages stream lacks %s:\n%s", want, out)
		}
	}
	if out := post(t, s.URL+"/v1/messages", `{"messages":[]}`); !strings.Contains(out, `"text":"ok."`) {
		t.Errorf("a request without tools: %s", out)
	}
	if out := post(t, s.URL+"/v1/messages", anthropic); !strings.Contains(out, `"text":"all done"`) || !strings.Contains(out, `"stop_reason":"end_turn"`) {
		t.Errorf("the second turn: %s", out)
	}
	if n := len(s.Requests()); n != 3 {
		t.Errorf("%d requests kept, want 3", n)
	}

	s.Reset()
	s.SetScript(Queue(Turn{Calls: []Call{{Name: "exec_command", Args: map[string]any{"cmd": "ls"}}, {Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"}}}))
	out = post(t, s.URL+"/v1/responses", `{"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"}],"input":[]}`)
	for _, want := range []string{"event: response.output_item.done", `"type":"function_call"`, `"arguments":"{\"cmd\":\"ls\"}"`, `"type":"custom_tool_call"`, "event: response.completed"} {
		if !strings.Contains(out, want) {
			t.Errorf("Responses stream lacks %s:\n%s", want, out)
		}
	}

	s.SetScript(Queue(Turn{Calls: []Call{{Name: "write_file", Args: map[string]any{"file_path": "a"}}}}))
	out = post(t, s.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", `{"tools":[{"functionDeclarations":[{"name":"write_file"}]}],"contents":[]}`)
	if !strings.HasPrefix(out, "data: ") || !strings.Contains(out, `"functionCall":{"args":{"file_path":"a"},"name":"write_file"}`) {
		t.Errorf("Gemini stream: %s", out)
	}

	s.SetScript(Queue(Turn{Calls: []Call{{Name: "bash", Args: map[string]any{"command": "go test ./..."}}}}, Turn{Text: "tests pass"}))
	chat := `{"stream":true,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[]}`
	out = post(t, s.URL+"/v1/chat/completions", chat)
	for _, want := range []string{`"object":"chat.completion.chunk"`, `"tool_calls":[{"function":{"arguments":"{\"command\":\"go test ./...\"}","name":"bash"},"id":"call_`, `"index":0`, `"finish_reason":"tool_calls"`, `"usage":{`} {
		if !strings.Contains(out, want) {
			t.Errorf("Chat Completions stream lacks %s:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "data: [DONE]\n\n") {
		t.Errorf("Chat Completions stream does not end with [DONE]:\n%s", out)
	}
	out = post(t, s.URL+"/v1/chat/completions", `{"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[]}`)
	if !strings.Contains(out, `"object":"chat.completion"`) || !strings.Contains(out, `"content":"tests pass"`) || !strings.Contains(out, `"finish_reason":"stop"`) {
		t.Errorf("Chat Completions answer: %s", out)
	}
	if len(s.Errors()) != 0 {
		t.Errorf("errors: %v", s.Errors())
	}
}

// A script that calls a tool the request does not offer is an error the
// test sees, not an "unknown tool" the agent hides.
func TestCallOfAToolNotOffered(t *testing.T) {
	s, err := Start(Queue(Turn{Calls: []Call{{Name: "Bash"}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	post(t, s.URL+"/v1/messages", `{"tools":[{"name":"Write"}],"messages":[]}`)
	if errs := s.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "Bash") {
		t.Errorf("errors %v, want one naming Bash", errs)
	}
}

// With a finish call set, a text answer to a request that offers the
// finishing tool is that call; a request without it still gets the text.
func TestFinishTurnsTextIntoTheCompletionCall(t *testing.T) {
	s, err := Start(Queue(Turn{Text: "all done"}, Turn{Text: "still text"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.SetFinish(func(text string) Call {
		return Call{Name: "submit_and_exit", Args: map[string]any{"summary": text}}
	})
	out := post(t, s.URL+"/v1/chat/completions", `{"tools":[{"type":"function","function":{"name":"submit_and_exit"}}],"messages":[]}`)
	if !strings.Contains(out, `"name":"submit_and_exit"`) || !strings.Contains(out, `\"summary\":\"all done\"`) {
		t.Errorf("the text answer is not the finishing call:\n%s", out)
	}
	out = post(t, s.URL+"/v1/chat/completions", `{"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[]}`)
	if !strings.Contains(out, `"content":"still text"`) {
		t.Errorf("a request without the finishing tool:\n%s", out)
	}
	if errs := s.Errors(); len(errs) != 0 {
		t.Errorf("errors %v", errs)
	}
}
