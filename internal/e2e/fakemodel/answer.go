package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// usage is what every answer claims to have cost: small, so that no agent
// compacts unless a scenario asks it to.
const inTokens, outTokens = 1000, 20

// write sends turn as the API's answer, a stream of server-sent events or
// one JSON object; n makes its ids unique.
func write(w http.ResponseWriter, api API, stream bool, turn Turn, n int) error {
	var events []event
	switch api {
	case Anthropic:
		events = anthropicEvents(turn, n)
	case OpenAI:
		events = openAIEvents(turn, n)
	case Gemini:
		events = geminiEvents(turn)
	case Chat:
		events = chatEvents(turn, n)
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		var whole any
		switch api {
		case Anthropic:
			whole = anthropicMessage(turn, n)
		case Gemini:
			whole = events[0].data
		case Chat:
			whole = chatCompletion(turn, n)
		default:
			return fmt.Errorf("%s: only streaming is scripted", api)
		}
		return json.NewEncoder(w).Encode(whole)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	for _, e := range events {
		b, err := json.Marshal(e.data)
		if err != nil {
			return err
		}
		if e.name != "" {
			if _, err := fmt.Fprintf(w, "event: %s\n", e.name); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
	}
	if api == Chat {
		// The Chat Completions stream ends with a sentinel, not JSON.
		if _, err := io.WriteString(w, "data: [DONE]\n\n"); err != nil {
			return err
		}
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// event is one server-sent event.
type event struct {
	name string
	data any
}

type obj = map[string]any

func argsJSON(c Call) string {
	if c.Args == nil {
		return "{}"
	}
	b, _ := json.Marshal(c.Args)
	return string(b)
}

// anthropicEvents are a Messages API stream (message_start, one
// content block after another, message_delta, message_stop), as
// https://docs.anthropic.com/en/api/messages-streaming defines it.
func anthropicEvents(turn Turn, n int) []event {
	msg := anthropicMessage(turn, n)
	content := msg["content"].([]any)
	msg["content"] = []any{}
	msg["stop_reason"] = nil
	evs := []event{{"message_start", obj{"type": "message_start", "message": msg}}}
	for i, c := range content {
		block := c.(obj)
		switch block["type"] {
		case "text":
			evs = append(evs,
				event{"content_block_start", obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "text", "text": ""}}},
				event{"content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": obj{"type": "text_delta", "text": block["text"]}}})
		case "tool_use":
			input, _ := json.Marshal(block["input"])
			evs = append(evs,
				event{"content_block_start", obj{"type": "content_block_start", "index": i, "content_block": obj{"type": "tool_use", "id": block["id"], "name": block["name"], "input": obj{}}}},
				event{"content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": obj{"type": "input_json_delta", "partial_json": string(input)}}})
		}
		evs = append(evs, event{"content_block_stop", obj{"type": "content_block_stop", "index": i}})
	}
	return append(evs,
		event{"message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stopReason(turn), "stop_sequence": nil}, "usage": obj{"output_tokens": outTokens}}},
		event{"message_stop", obj{"type": "message_stop"}})
}

func stopReason(turn Turn) string {
	if len(turn.Calls) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// anthropicMessage is the whole Messages API answer.
func anthropicMessage(turn Turn, n int) obj {
	var content []any
	for i, c := range turn.Calls {
		args := c.Args
		if args == nil {
			args = obj{}
		}
		content = append(content, obj{"type": "tool_use", "id": fmt.Sprintf("toolu_%04d_%d", n, i), "name": c.Name, "input": args})
	}
	if len(turn.Calls) == 0 {
		content = append(content, obj{"type": "text", "text": turn.Text})
	}
	return obj{
		"id": fmt.Sprintf("msg_%04d", n), "type": "message", "role": "assistant", "model": "claude-fake",
		"content": content, "stop_reason": stopReason(turn), "stop_sequence": nil,
		"usage": obj{"input_tokens": inTokens, "output_tokens": outTokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}
}

// openAIEvents are a Responses API stream: response.created, one
// response.output_item.done per item, response.completed
// (https://platform.openai.com/docs/api-reference/responses-streaming).
// A Call with Input is a custom tool call (freeform input, as Codex's
// apply_patch takes it), else a function call.
func openAIEvents(turn Turn, n int) []event {
	id := fmt.Sprintf("resp_%04d", n)
	evs := []event{{"response.created", obj{"type": "response.created", "response": obj{"id": id, "status": "in_progress"}}}}
	var items []any
	for i, c := range turn.Calls {
		callID := fmt.Sprintf("call_%04d_%d", n, i)
		if c.Name == "tool_search" {
			// Codex's tool_search runs in the client: a call item of its
			// own type (codex-rs/codex-api/src/sse/responses.rs tests).
			items = append(items, obj{"type": "tool_search_call", "id": fmt.Sprintf("tsc_%04d_%d", n, i), "status": "completed", "call_id": callID, "execution": "client", "arguments": c.Args})
			continue
		}
		if ns, name, ok := strings.Cut(c.Name, "/"); ok {
			// A tool inside a namespace: the call names both.
			items = append(items, obj{"type": "function_call", "id": fmt.Sprintf("fc_%04d_%d", n, i), "status": "completed", "call_id": callID, "namespace": ns, "name": name, "arguments": argsJSON(c)})
			continue
		}
		if c.Input != "" {
			items = append(items, obj{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%04d_%d", n, i), "status": "completed", "call_id": callID, "name": c.Name, "input": c.Input})
			continue
		}
		items = append(items, obj{"type": "function_call", "id": fmt.Sprintf("fc_%04d_%d", n, i), "status": "completed", "call_id": callID, "name": c.Name, "arguments": argsJSON(c)})
	}
	if len(turn.Calls) == 0 {
		items = append(items, obj{"type": "message", "id": fmt.Sprintf("msg_%04d", n), "status": "completed", "role": "assistant",
			"content": []any{obj{"type": "output_text", "text": turn.Text, "annotations": []any{}}}})
		evs = append(evs, event{"response.output_text.delta", obj{"type": "response.output_text.delta", "item_id": fmt.Sprintf("msg_%04d", n), "output_index": 0, "content_index": 0, "delta": turn.Text}})
	}
	for i, it := range items {
		evs = append(evs, event{"response.output_item.done", obj{"type": "response.output_item.done", "output_index": i, "item": it}})
	}
	return append(evs, event{"response.completed", obj{"type": "response.completed", "response": obj{
		"id": id, "status": "completed", "output": items,
		"usage": obj{"input_tokens": inTokens, "input_tokens_details": obj{"cached_tokens": 0}, "output_tokens": outTokens,
			"output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": inTokens + outTokens}}}})
}

// geminiEvents are a streamGenerateContent stream of one chunk: a
// candidate whose parts are the calls (functionCall) or the text
// (https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse).
func geminiEvents(turn Turn) []event {
	var parts []any
	for _, c := range turn.Calls {
		args := c.Args
		if args == nil {
			args = obj{}
		}
		parts = append(parts, obj{"functionCall": obj{"name": c.Name, "args": args}})
	}
	if len(turn.Calls) == 0 {
		parts = append(parts, obj{"text": turn.Text})
	}
	return []event{{"", obj{
		"candidates":    []any{obj{"content": obj{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": obj{"promptTokenCount": inTokens, "candidatesTokenCount": outTokens, "totalTokenCount": inTokens + outTokens},
		"modelVersion":  "gemini-fake",
	}}}
}

// chatToolCalls are a turn's calls as Chat Completions tool_calls; index
// is set for the stream's deltas.
func chatToolCalls(turn Turn, n int, index bool) []any {
	var calls []any
	for i, c := range turn.Calls {
		call := obj{"id": fmt.Sprintf("call_%04d_%d", n, i), "type": "function", "function": obj{"name": c.Name, "arguments": argsJSON(c)}}
		if index {
			call["index"] = i
		}
		calls = append(calls, call)
	}
	return calls
}

func chatFinish(turn Turn) string {
	if len(turn.Calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

var chatUsage = obj{"prompt_tokens": inTokens, "completion_tokens": outTokens, "total_tokens": inTokens + outTokens}

// chatCompletion is the whole Chat Completions answer
// (https://platform.openai.com/docs/api-reference/chat/object).
func chatCompletion(turn Turn, n int) obj {
	msg := obj{"role": "assistant", "content": nil}
	if len(turn.Calls) > 0 {
		msg["tool_calls"] = chatToolCalls(turn, n, false)
	} else {
		msg["content"] = turn.Text
	}
	return obj{"id": fmt.Sprintf("chatcmpl-%04d", n), "object": "chat.completion", "created": 1764230400, "model": "fake-model",
		"choices": []any{obj{"index": 0, "message": msg, "finish_reason": chatFinish(turn)}}, "usage": chatUsage}
}

// chatEvents are a Chat Completions stream: a chunk with the role and
// the text or the tool calls, a chunk with the finish reason, a chunk
// with the usage (https://platform.openai.com/docs/api-reference/chat-streaming).
func chatEvents(turn Turn, n int) []event {
	chunk := func(delta obj, finish any, usage any) event {
		c := obj{"id": fmt.Sprintf("chatcmpl-%04d", n), "object": "chat.completion.chunk", "created": 1764230400, "model": "fake-model",
			"choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["choices"], c["usage"] = []any{}, usage
		}
		return event{"", c}
	}
	delta := obj{"role": "assistant"}
	if len(turn.Calls) > 0 {
		delta["tool_calls"] = chatToolCalls(turn, n, true)
	} else {
		delta["content"] = turn.Text
	}
	return []event{chunk(delta, nil, nil), chunk(obj{}, chatFinish(turn), nil), chunk(obj{}, nil, chatUsage)}
}
