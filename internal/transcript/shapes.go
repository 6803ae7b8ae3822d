package transcript

import "sync"

// The shapes of the lines each reader decodes: the fields it (or
// discovery's prober) reads, and nothing else. What a shape leaves out is
// still checked as JSON, so a shape changes what is built, never which
// lines count as malformed. A reader that starts to read a new field must
// name it here; TestShapesChangeNothing reads the samples, the hostile
// corpus and generated transcripts with and without shapes and compares.

// fields builds an object shape that keeps only the named fields.
func fields(kv map[string]*shape) *shape { return &shape{only: true, fields: kv} }

// lineShapes are the shapes below, built on first use: a command that
// reads no transcript builds none.
var lineShapes = sync.OnceValue(buildShapes)

// shapeSet holds the shapes the readers and the prober decode to.
type shapeSet struct {
	claude, claudeThread, claudeProbe *shape
	codex, codexRollback, codexProbe  *shape
	gemini, geminiIndex, geminiProbe  *shape
}

func buildShapes() *shapeSet {
	// textParts is a message content read for its text: a string, a part
	// {text}, or a list of them.
	textParts := func() *shape {
		s := fields(map[string]*shape{"text": nil})
		s.elem = s
		return s
	}()

	// claudeAttachmentShape is an attachment line's attachment, as far as
	// it is read: a queued prompt, or a task or todo list reminder.
	claudeAttachmentShape := func() *shape {
		item := fields(map[string]*shape{"id": nil, "subject": nil, "status": nil, "content": {scalar: true}})
		item.elem = item
		return fields(map[string]*shape{
			"type": nil, "prompt": textParts, "commandMode": nil, "isMeta": nil,
			"origin":  fields(map[string]*shape{"kind": nil}),
			"content": item,
		})
	}()

	// claudeCompactMetadata is a compact boundary's compactMetadata: the
	// preserved segment of a partial compaction.
	claudeCompactMetadata := fields(map[string]*shape{
		"preservedSegment": fields(map[string]*shape{"headUuid": nil, "anchorUuid": nil, "tailUuid": nil}),
	})

	// claudeShape is a Claude Code line as ReadClaudeCode and the prober read
	// it. Tool results keep their text; what Claude Code copies beside them
	// (the file before an edit, the patch, the whole output again) is dropped,
	// as are the old and new strings of edits and the contents of writes.
	claudeShape := fields(map[string]*shape{
		"operation": nil, "content": {scalar: true}, "reason": nil, // queue-operation
		"type": nil, "summary": nil, "leafUuid": nil, "customTitle": nil, "title": nil,
		"aiTitle": nil, "isSidechain": nil, "timestamp": nil, "uuid": nil, "parentUuid": nil,
		"logicalParentUuid": nil, "cwd": nil, "gitBranch": nil, "version": nil, "sessionId": nil,
		"isMeta": nil, "isCompactSummary": nil, "requestId": nil, "agentId": nil, "toolDenialKind": nil,
		"prUrl": nil, "prNumber": nil, "prRepository": nil, "relocatedCwd": nil, // pr-link, relocated
		"worktreeSession": fields(map[string]*shape{"worktreePath": nil}),
		"compactMetadata": claudeCompactMetadata,
		"attachment":      claudeAttachmentShape,
		"message": fields(map[string]*shape{
			"id": nil, "usage": nil,
			"content": {elem: fields(map[string]*shape{
				"type": nil, "text": nil, "tool_use_id": nil, "is_error": nil, "id": nil, "name": nil,
				"content": textParts,
				"input": fields(map[string]*shape{
					"command": nil, "file_path": nil, "notebook_path": nil, "todos": nil,
					"edits":  {elem: dropped},
					"taskId": nil, "subject": nil, "status": nil, "plan": nil, // TaskUpdate, ExitPlanMode
				}),
			})},
		}),
		"toolUseResult": fields(map[string]*shape{
			"exitCode": nil, "stderr": nil, "interrupted": nil, "backgroundTaskId": nil, "newTodos": nil,
			"task":    fields(map[string]*shape{"id": nil, "subject": nil}),                        // TaskCreate
			"tasks":   {elem: fields(map[string]*shape{"id": nil, "subject": nil, "status": nil})}, // TaskList
			"answers": nil, "questions": {elem: fields(map[string]*shape{"question": nil})},        // AskUserQuestion
			"plan": nil, // ExitPlanMode
		}),
	})

	// codexPayload is a rollout line's payload, of any type: the union of the
	// fields of session_meta, turn_context, event_msg, response_item and
	// compacted that ReadCodex reads. Reasoning (encrypted_content, summary),
	// instructions and rate limits are dropped.
	codexPayload := fields(map[string]*shape{
		// response_item
		"type": nil, "role": nil, "content": textParts, "name": nil, "call_id": nil,
		"arguments": nil, "input": nil, "action": nil, "id": nil, "output": nil,
		// session_meta, turn_context
		"cli_version": nil, "cwd": nil, "timestamp": nil, "git": nil,
		"source": nil, "thread_source": nil, "parent_thread_id": nil,
		// event_msg, compacted
		"message": nil, "last_agent_message": nil, "info": fields(map[string]*shape{"total_token_usage": nil}),
		"exit_code": nil, "aggregated_output": nil, "formatted_output": nil, "stdout": nil,
		"stderr": nil, "success": nil, "thread_name": nil, "num_turns": nil, "reason": nil, "status": nil,
		"command": nil, // exec_command_end of a call no response item made
		"goal":    fields(map[string]*shape{"objective": nil, "status": nil}),
		// item_completed: Plan, and the CommandExecution and FileChange
		// items a rollout without response items holds
		"item": fields(map[string]*shape{"type": nil, "text": nil, "id": nil, "command": nil, "cwd": nil, "status": nil,
			"aggregated_output": nil, "exit_code": nil, "changes": nil, "stderr": nil, "content": textParts}),
		// patch_apply_end: path → {type, move_path, and the diff, built whole
		// since the keys are paths}
		"changes": nil,
	})

	// codexShape is a rollout line: {timestamp, type, payload}, or in the
	// oldest rollouts a bare response item or session meta.
	codexShape := fields(map[string]*shape{
		"timestamp": nil, "type": nil, "payload": codexPayload, "record_type": nil,
		"id": nil, "role": nil, "content": textParts, "name": nil, "call_id": nil, "arguments": nil,
		"input": nil, "action": nil, "output": nil, "cli_version": nil, "cwd": nil, "git": nil,
		"source": nil, "thread_source": nil, "parent_thread_id": nil,
	})

	geminiContent := func() *shape {
		s := fields(map[string]*shape{"text": nil, "thought": nil})
		s.elem = s
		return s
	}()

	// geminiMessage is one message of a Gemini CLI recording. The model's
	// thoughts, the old and new strings of edits and the diffs shown for them
	// are dropped.
	geminiMessageShape := fields(map[string]*shape{
		"id": nil, "timestamp": nil, "type": nil, "content": geminiContent, "displayContent": geminiContent,
		"tokens": nil,
		"toolCalls": {elem: fields(map[string]*shape{
			// resultDisplay: a string, or the task tracker's {todos}.
			"id": nil, "name": nil, "status": nil, "result": nil, "resultDisplay": {only: true, fields: map[string]*shape{"todos": nil}, elem: dropped},
			// content and the edit strings are kept while the message is read,
			// for plan files only (dropBulkArgs).
			"args": fields(map[string]*shape{
				"file_path": nil, "absolute_path": nil, "path": nil, "command": nil, "todos": nil,
				"title": nil, "plan_filename": nil, "content": nil, "old_string": nil, "new_string": nil,
				"allow_multiple": nil,
			}),
		})},
	})

	// geminiMeta are the metadata fields read from a recording.
	geminiMeta := map[string]*shape{
		"sessionId": nil, "projectHash": nil, "startTime": nil, "lastUpdated": nil, "summary": nil,
		"directories": nil, "memoryScratchpad": nil, "kind": nil,
		"messages": {elem: geminiMessageShape},
	}

	// geminiShape is a line of a Gemini CLI recording: metadata, a message,
	// {$set: …} or {$rewindTo: id}.
	geminiShape := func() *shape {
		top := map[string]*shape{"$rewindTo": nil, "$set": fields(geminiMeta)}
		for k, v := range geminiMeta {
			top[k] = v
		}
		for k, v := range geminiMessageShape.fields {
			top[k] = v
		}
		return fields(top)
	}()

	// The shapes of the lines discovery's prober reads: far less than the
	// readers, as it wants only ids, times, the working directory, titles and
	// the first request.
	claudeProbeShape := fields(map[string]*shape{
		"type": nil, "summary": nil, "customTitle": nil, "aiTitle": nil, "isSidechain": nil,
		"cwd": nil, "sessionId": nil, "timestamp": nil, "isMeta": nil, "isCompactSummary": nil,
		"version": nil, "agentId": nil,
		"message": fields(map[string]*shape{
			"content": {elem: fields(map[string]*shape{"type": nil, "text": nil})},
		}),
	})
	codexProbeShape := fields(map[string]*shape{
		"timestamp": nil, "type": nil,
		"payload": fields(map[string]*shape{
			"type": nil, "id": nil, "cwd": nil, "timestamp": nil, "message": nil, "thread_name": nil,
			"source": nil, "thread_source": nil, "parent_thread_id": nil, "cli_version": nil,
			// A user message item: Codex 0.169's first request; in a
			// paginated rollout, the completed UserMessage item.
			"role": nil, "content": {elem: fields(map[string]*shape{"type": nil, "text": nil})},
			"item": fields(map[string]*shape{"type": nil, "content": {elem: fields(map[string]*shape{"type": nil, "text": nil})}}),
		}),
	})
	geminiProbeShape := fields(map[string]*shape{
		"$set": fields(map[string]*shape{"summary": nil, "lastUpdated": nil, "kind": nil}),
		"id":   nil, "type": nil, "content": geminiContent, "sessionId": nil, "projectHash": nil,
		"summary": nil, "startTime": nil, "lastUpdated": nil, "directories": nil, "timestamp": nil,
		"kind": nil, "displayContent": geminiContent,
		"toolCalls": {elem: fields(map[string]*shape{
			"name": nil, "status": nil, "args": fields(map[string]*shape{"title": nil}),
		})},
	})

	// claudeThreadShape is a Claude Code line as the first of two passes
	// reads it: enough to link the lines into threads and to tell which have
	// events and which only answer tool calls, without the text of tool
	// results, tool inputs or todos. The second pass reads the thread's lines
	// to claudeShape.
	claudeThreadShape := fields(map[string]*shape{
		"operation": nil, "content": {scalar: true}, "reason": nil, // queue-operation
		"type": nil, "summary": nil, "leafUuid": nil, "customTitle": nil, "title": nil,
		"aiTitle": nil, "isSidechain": nil, "timestamp": nil, "uuid": nil, "parentUuid": nil,
		"logicalParentUuid": nil, "cwd": nil, "gitBranch": nil, "version": nil, "sessionId": nil,
		"isMeta": nil, "isCompactSummary": nil, "agentId": nil,
		"prUrl": nil, "prNumber": nil, "prRepository": nil, "relocatedCwd": nil, // pr-link, relocated
		"worktreeSession": fields(map[string]*shape{"worktreePath": nil}),
		"compactMetadata": claudeCompactMetadata,
		"attachment":      claudeAttachmentShape,
		"message": fields(map[string]*shape{
			"usage": {only: true},
			"content": {elem: fields(map[string]*shape{
				"type": nil, "text": nil, "name": nil,
				"input": fields(map[string]*shape{"todos": {elem: dropped}}),
			})},
		}),
		"toolUseResult": fields(map[string]*shape{"newTodos": {elem: dropped}}),
	})

	// codexRollbackShape is a rollout line as the first of two passes reads
	// it: enough to tell which lines make events, where turns begin and what
	// rollbacks drop, without tool outputs or patches. The second pass reads
	// the lines to codexShape.
	codexRollbackShape := func() *shape {
		item := map[string]*shape{
			"type": nil, "role": nil, "content": textParts, "name": nil, "arguments": nil, "action": nil,
			"id": nil, "cwd": nil, "call_id": nil,
		}
		payload := map[string]*shape{
			"message": nil, "last_agent_message": nil, "success": nil, "num_turns": nil, "reason": nil,
			"info": fields(map[string]*shape{"total_token_usage": {only: true}}),
			"item": fields(map[string]*shape{"type": nil, "id": nil, "content": textParts}),
		}
		top := map[string]*shape{"timestamp": nil, "record_type": nil}
		for k, v := range item {
			payload[k], top[k] = v, v
		}
		top["payload"] = fields(payload)
		return fields(top)
	}()

	// geminiIndexShape is a line of a Gemini CLI recording as the first of
	// its passes reads it: the metadata, and of messages only their ids and
	// times, to learn which version of which message stands. The messages are
	// read to geminiShape afterwards, line by line.
	geminiIndexShape := func() *shape {
		msg := fields(map[string]*shape{"id": nil, "timestamp": nil})
		meta := map[string]*shape{"messages": {elem: msg}}
		for k, v := range geminiMeta {
			if k != "messages" {
				meta[k] = v
			}
		}
		top := map[string]*shape{"$rewindTo": nil, "$set": fields(meta), "id": nil, "timestamp": nil, "type": nil}
		for k, v := range meta {
			top[k] = v
		}
		return fields(top)
	}()
	return &shapeSet{
		claude: claudeShape, claudeThread: claudeThreadShape, claudeProbe: claudeProbeShape,
		codex: codexShape, codexRollback: codexRollbackShape, codexProbe: codexProbeShape,
		gemini: geminiShape, geminiIndex: geminiIndexShape, geminiProbe: geminiProbeShape,
	}
}

// probeShape is the shape of the lines the prober reads for agent a.
func probeShape(a Agent) *shape {
	switch a {
	case ClaudeCode:
		return lineShapes().claudeProbe
	case Codex:
		return lineShapes().codexProbe
	case Gemini:
		return lineShapes().geminiProbe
	}
	return nil
}
