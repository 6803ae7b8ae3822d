package cline

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// maxListed bounds the session folders Find considers in one root.
const maxListed = 100_000

// Find lists the sessions under roots (Cline's sessions directories):
// each folder <id> holding <id>.messages.json, described from its
// manifest <id>.json, newest activity first.
func (reader) Find(roots []string) ([]transcript.SessionInfo, error) {
	var out []transcript.SessionInfo
	for _, root := range roots {
		entries, err := transcript.ReadDir(root)
		if err != nil {
			continue // a missing root is no error
		}
		for _, e := range entries {
			if len(out) >= maxListed {
				break
			}
			if !e.IsDir() {
				continue
			}
			if s, ok := probe(filepath.Join(root, e.Name()), e.Name()); ok {
				out = append(out, s)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b transcript.SessionInfo) int {
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return out, nil
}

// probe describes the session in folder dir, whose name is its id; false
// when the folder holds no messages file. What its manifest says is
// cached by the manifest's size and time (transcript.ProbeCached).
func probe(dir, id string) (transcript.SessionInfo, bool) {
	path := filepath.Join(dir, id+messagesSuffix)
	fi, err := transcript.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return transcript.SessionInfo{}, false
	}
	s := transcript.SessionInfo{Agent: agentName, ID: id, Path: path, LastActivity: fi.ModTime(), FileSize: fi.Size(), FileTime: fi.ModTime()}
	side := filepath.Join(dir, id+".json")
	state := func() string {
		fi, err := transcript.Lstat(side)
		if err != nil {
			return "-"
		}
		return strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	}
	transcript.ProbeCached(&s, state, func(s *transcript.SessionInfo) bool {
		fromManifest(s, side)
		return true
	})
	return s, true
}

// manifestReads counts the manifests fromManifest read (tests).
var manifestReads atomic.Int64

// fromManifest fills s from the session's manifest at path, when it can
// be read.
func fromManifest(s *transcript.SessionInfo, path string) {
	manifestReads.Add(1)
	var m manifest
	if readSide(path, &m) != nil {
		return
	}
	s.CWD = transcript.Clean(m.CWD)
	s.Title = transcript.ShortenHead(transcript.Clean(firstNonBlank(m.Metadata.Title, m.Prompt)), transcript.MaxTitle)
	s.AgentVersion = transcript.ShortenHead(transcript.Clean(m.Metadata.Origin.Version), 128)
	if t, ok := transcript.ParseTime(m.Started); ok {
		s.Started = t
	}
	if t, ok := transcript.ParseTime(m.Ended); ok && t.After(s.LastActivity) {
		s.LastActivity = t
	}
}

func firstNonBlank(xs ...string) string {
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// Detect recognises Cline's files by their top-level keys: a messages
// file opens with version, updated_at, agent, sessionId and origin
// before its messages; a manifest has session_id, messages_path and
// workspace_root; a compaction file source_message_count.
func (reader) Detect(head []byte) (transcript.Detected, bool) {
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return transcript.Detected{}, false
	}
	keys := topKeys(trimmed)
	switch {
	case keys["sessionId"] && keys["origin"] && keys["updated_at"] && keys["messages"]:
		return transcript.Detected{Agent: agentName, What: "a Cline session (messages.json)"}, true
	case keys["session_id"] && keys["workspace_root"] && (keys["messages_path"] || keys["enable_tools"]):
		return transcript.Detected{Agent: agentName, What: "a Cline session manifest (its messages.json beside it is read)"}, true
	case keys["conversation_id"] && keys["source_message_count"]:
		return transcript.Detected{What: "a Cline compaction file, not a session: capture reads the messages.json beside it", Foreign: true}, true
	}
	return transcript.Detected{}, false
}

// topKeys are the keys of the JSON object head opens, as far as head
// goes (it may be cut).
func topKeys(head []byte) map[string]bool {
	dec := json.NewDecoder(bytes.NewReader(head))
	keys := map[string]bool{}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return keys
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, ok := t.(string)
		if !ok {
			return keys
		}
		keys[k] = true
		if k == "messages" {
			return keys // its value may run past head
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
