package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"unicode"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// A Gemini CLI chat recording is, in its current form, a log of JSON
// lines: a metadata line first (sessionId, projectHash, startTime…), then
// message records (type user or gemini, with toolCalls), where a record
// whose id was seen before replaces that message in place; {"$set": {...}}
// updates the metadata (and $set.messages replaces the whole list);
// {"$rewindTo": id} drops that message and every later one, as Gemini CLI
// does. Older sessions are one pretty-printed ConversationRecord object
// with a messages array.

// line is a line of a recording as the first pass reads it: a rewind, a
// message (of which its id and time), a $set, or the metadata. An id of
// another type than a string is none: the line is no message.
type line struct {
	RewindTo  *string `json:"$rewindTo"`
	ID        *string `json:"id"`
	Timestamp string  `json:"timestamp"`
	Type      string  `json:"type"`
	Set       *meta   `json:"$set"`
	SessionID *string `json:"sessionId"`
}

// meta is the metadata of a recording (ConversationRecord,
// packages/core/src/services/chatRecordingTypes.ts), in its first line or
// a $set. Each field is kept raw: a value of any type replaces the one
// before, and one that is not of the field's type reads as empty.
type meta struct {
	SessionID        json.RawMessage `json:"sessionId"`
	ProjectHash      json.RawMessage `json:"projectHash"`
	StartTime        json.RawMessage `json:"startTime"`
	LastUpdated      json.RawMessage `json:"lastUpdated"`
	Summary          json.RawMessage `json:"summary"`
	Kind             json.RawMessage `json:"kind"`
	Directories      json.RawMessage `json:"directories"`
	MemoryScratchpad json.RawMessage `json:"memoryScratchpad"`
	// Messages replace the whole list (after a compression, for one).
	Messages []listed `json:"messages"`
}

// scratchpad is the metadata's memoryScratchpad, of which the paths Gemini
// CLI says were touched.
type scratchpad struct {
	TouchedPaths []string `json:"touchedPaths"`
}

// listed is a message of a messages list as the first pass reads it.
type listed struct {
	ID        *string `json:"id"`
	Timestamp string  `json:"timestamp"`
}

// merge sets in m what u sets.
func (m *meta) merge(u *meta) {
	for _, f := range []struct{ to, from *json.RawMessage }{
		{&m.SessionID, &u.SessionID}, {&m.ProjectHash, &u.ProjectHash}, {&m.StartTime, &u.StartTime},
		{&m.LastUpdated, &u.LastUpdated}, {&m.Summary, &u.Summary}, {&m.Kind, &u.Kind},
		{&m.Directories, &u.Directories}, {&m.MemoryScratchpad, &u.MemoryScratchpad},
	} {
		if len(*f.from) > 0 {
			*f.to = *f.from
		}
	}
}

// dir is the first workspace directory the metadata names: the working
// directory, else it is where the recording lies, else what the touched
// paths imply.
func (m *meta) dir() string {
	var dirs []string
	if len(m.Directories) > 0 && m.Directories[0] == '[' {
		_ = transcript.DecodeValue(m.Directories, &dirs)
	}
	if len(dirs) > 0 {
		return dirs[0]
	}
	return ""
}

// str is a raw value's string; "" when it is none.
func str(raw json.RawMessage) string {
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		_ = transcript.DecodeValue(raw, &s)
	}
	return s
}

// isObject says whether raw, a value Decode kept, is a JSON object.
func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// chat is a recording's message list as its lines build it, keeping of
// each message a T: where it is when the recording is read in passes (a
// ref), the message itself when it is held whole (the older form). A line
// whose id was seen before replaces that message in place; $rewindTo and
// $set.messages cut and replace the list as Gemini CLI does
// (packages/core/src/services/chatRecordingService.ts, loadConversationRecord).
type chat[T any] struct {
	b    *transcript.Builder
	meta meta
	ids  []string
	byID map[string]T
	// archived are the messages a $set.messages dropped, by id, in the
	// order they were dropped: what they did still happened. A resumed
	// session's $set puts old messages back in the list, in a replayed
	// form (tool calls as parts, without their status), and a later
	// compression may drop them again: the first version archived, the
	// one recorded as it happened, is the one kept.
	archivedIDs []string
	archived    map[string]T
}

func newChat[T any](b *transcript.Builder) *chat[T] {
	return &chat[T]{b: b, byID: map[string]T{}}
}

// ref is where a message is: the line (counting the lines the first pass
// decoded, from 0), and its place in that line's messages array (-1 when
// the line is the message), in $set's when set.
type ref struct {
	line, idx int32
	set       bool
}

// record reads line n of a recording in the first pass.
func (g *chat[T]) record(n int32, data []byte, at func(n, idx int32, set bool) T) error {
	var l line
	if err := transcript.Decode(data, &l); err != nil {
		return err
	}
	switch {
	case l.RewindTo != nil:
		g.rewind(*l.RewindTo)
		return nil
	case l.ID != nil:
		g.upsert(*l.ID, l.Timestamp, at(n, -1, false))
		return nil
	case l.Set != nil:
		g.set(l.Set, func(i int) T { return at(n, int32(i), true) })
		return nil
	case l.SessionID != nil:
		// The metadata, with the messages when the older form is
		// written on one line.
		var u meta
		_ = transcript.Decode(data, &u)
		g.set(&u, func(i int) T { return at(n, int32(i), false) })
		return nil
	}
	g.b.Digest().Stats.UnknownType(l.Type)
	return nil
}

func (g *chat[T]) upsert(id, timestamp string, v T) {
	if t, ok := transcript.ParseTime(timestamp); ok {
		g.b.Time(t)
	}
	if _, seen := g.byID[id]; !seen {
		g.ids = append(g.ids, id)
	}
	g.byID[id] = v
}

func (g *chat[T]) rewind(id string) {
	for i, x := range g.ids {
		if x == id {
			for _, gone := range g.ids[i:] {
				delete(g.byID, gone)
			}
			g.ids = g.ids[:i]
			return
		}
	}
	// Gemini CLI clears the conversation when the target is unknown.
	g.ids = nil
	g.byID = map[string]T{}
}

// set applies a metadata update; at(i) is what is kept of its messages'
// i-th.
func (g *chat[T]) set(u *meta, at func(i int) T) {
	if len(u.Messages) > 0 {
		// The list is replaced, after a compression for one. What the
		// dropped messages did still happened: keep them aside.
		keep := map[string]bool{}
		for _, x := range u.Messages {
			if x.ID != nil {
				keep[*x.ID] = true
			}
		}
		for _, id := range g.ids {
			if keep[id] {
				continue
			}
			if g.archived == nil {
				g.archived = map[string]T{}
			}
			if _, ok := g.archived[id]; !ok {
				g.archivedIDs = append(g.archivedIDs, id)
				g.archived[id] = g.byID[id]
			}
		}
		g.ids, g.byID = nil, map[string]T{}
		for i, x := range u.Messages {
			if x.ID != nil {
				g.upsert(*x.ID, x.Timestamp, at(i))
			}
		}
	}
	for _, raw := range []json.RawMessage{u.LastUpdated, u.StartTime} {
		if t, ok := transcript.ParseTime(str(raw)); ok {
			g.b.Time(t)
		}
	}
	g.meta.merge(u)
}

// messages are the recording's messages, in order: those a replacement
// dropped, then the rest of the list (a message the list has again is
// taken as it was archived).
func (g *chat[T]) messages() []T {
	msgs := make([]T, 0, len(g.archivedIDs)+len(g.ids))
	for _, id := range g.archivedIDs {
		msgs = append(msgs, g.archived[id])
	}
	for _, id := range g.ids {
		if _, archived := g.archived[id]; archived {
			continue
		}
		msgs = append(msgs, g.byID[id])
	}
	return msgs
}

// maxFiles bounds the touched paths kept, as a digest's files are.
const maxFiles = 5000

// finishMeta fills in the digest from the metadata and returns the paths
// the metadata says were touched.
func (g *chat[T]) finishMeta() (touched []string) {
	d := g.b.Digest()
	d.Session.ID = str(g.meta.SessionID)
	if t, ok := transcript.ParseTime(str(g.meta.StartTime)); ok {
		d.Session.StartedAt = &t
	}
	// Gemini CLI marks a subagent's recording in its metadata
	// (ConversationRecord.kind, packages/core/src/services/chatRecordingTypes.ts).
	d.Subagent = str(g.meta.Kind) == "subagent"
	var sp scratchpad
	if isObject(g.meta.MemoryScratchpad) {
		_ = transcript.Decode(g.meta.MemoryScratchpad, &sp)
		for _, p := range sp.TouchedPaths {
			if strings.TrimSpace(p) != "" && len(touched) < maxFiles {
				touched = append(touched, p)
			}
		}
	}
	return touched
}

// read reads a chat recording, in the JSONL form or the older
// single-object .json form; rootHint is the project root when the caller
// knows it from where the file lies.
//
// A JSONL recording is read in passes: one to learn where each message's
// last version is and which messages rewinds and replacements leave, one
// (only when no directory is recorded) to infer the working directory,
// one to fold the messages as they come, so that what is held in memory
// does not grow with what the messages hold.
func read(sec *io.SectionReader, lim transcript.Limits, rootHint string) (*transcript.Digest, error) {
	lim = lim.WithDefaults()
	b := transcript.NewBuilder()
	b.Observe(lim.Observe)
	g := newChat[ref](b)
	st := &b.Digest().Stats
	n := int32(-1)
	legacy := false
	err := transcript.EachLine(io.NewSectionReader(sec, 0, sec.Size()), lim, st, func(l []byte) error {
		n++
		if n == 0 && st.Lines == 0 && string(bytes.TrimSpace(l)) == "{" {
			// The older form: one object spread over many lines.
			legacy = true
		}
		if legacy {
			return nil
		}
		return g.record(n, l, func(n, idx int32, set bool) ref { return ref{n, idx, set} })
	})
	if err != nil {
		return nil, err
	}
	if legacy {
		return readLegacy(sec, rootHint)
	}
	refs := g.messages()
	each := func(fn func(*message)) error { return eachMessage(sec, lim, refs, fn) }
	return finish(g, rootHint, each)
}

// finish folds the messages each gives, in order, into the digest.
func finish[T any](g *chat[T], rootHint string, each func(func(*message)) error) (*transcript.Digest, error) {
	touched := g.finishMeta()
	cwd := firstNonEmpty(g.meta.dir(), rootHint)
	if cwd == "" {
		// What the tool calls' absolute paths share with the relative
		// ones, without keeping the messages.
		var roots pathRoots
		if err := each(roots.message); err != nil {
			return nil, err
		}
		cwd = roots.root(touched)
	}
	b := g.b
	b.SetCWD(cwd)
	f := &fold{b: b}
	if err := each(f.message); err != nil {
		return nil, err
	}
	d := b.Digest()
	// The title: the topic the agent last set (update_topic), else the
	// summary Gemini CLI wrote, else (in the builder) the first request.
	d.Title = firstNonEmpty(f.topic, str(g.meta.Summary))
	d.Cancelled = f.cancelled
	if plan, status := f.finishPlan(); plan != "" {
		b.Plan(plan, status)
	}
	b.Touched(touched)
	return b.Finish(agentName)
}

// message is one message of a recording, as the fold reads it. Contents
// (content, displayContent, a tool call's result) are a string, a part or
// a list of them, hence raw.
type message struct {
	ID             *string         `json:"id"`
	Timestamp      string          `json:"timestamp"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	DisplayContent json.RawMessage `json:"displayContent"`
	ToolCalls      []toolCall      `json:"toolCalls"`
	Tokens         *tokens         `json:"tokens"`
}

// messageList is a line that holds messages: the metadata of the older
// form on one line, or a $set.
type messageList struct {
	Messages []message `json:"messages"`
	Set      struct {
		Messages []message `json:"messages"`
	} `json:"$set"`
}

// eachMessage calls fn with the messages refs locate, in their order,
// decoding only the lines they are on. A message whose line comes after
// the next one's waits for it; in Gemini CLI's recordings a message's
// versions come before the next message's.
func eachMessage(sec *io.SectionReader, lim transcript.Limits, refs []ref, fn func(*message)) error {
	byLine := map[int32][]int32{}
	for i, r := range refs {
		byLine[r.line] = append(byLine[r.line], int32(i))
	}
	pending := map[int32]*message{}
	next := int32(0)
	n := int32(-1)
	var st transcript.Stats // counted by the first pass
	return transcript.EachLine(io.NewSectionReader(sec, 0, sec.Size()), lim, &st, func(l []byte) error {
		n++
		want := byLine[n]
		if len(want) == 0 || next >= int32(len(refs)) {
			return nil
		}
		delete(byLine, n)
		var list *messageList
		for _, i := range want {
			r := refs[i]
			msg := &message{}
			switch {
			case r.idx < 0:
				_ = transcript.Decode(l, msg)
			default:
				if list == nil {
					list = &messageList{}
					_ = transcript.Decode(l, list)
				}
				msgs := list.Messages
				if r.set {
					msgs = list.Set.Messages
				}
				if int(r.idx) < len(msgs) {
					msg = &msgs[r.idx]
				}
			}
			pending[i] = msg
		}
		for {
			msg, ok := pending[next]
			if !ok {
				return nil
			}
			delete(pending, next)
			fn(msg)
			next++
		}
	})
}

// readLegacy reads the older form, one object, as a stream: the messages
// one at a time, each kept whole (such a recording is small).
func readLegacy(sec *io.SectionReader, rootHint string) (*transcript.Digest, error) {
	b := transcript.NewBuilder()
	g := newChat[*message](b)
	start := objectStart(sec)
	readObject(g, io.NewSectionReader(sec, start, sec.Size()-start))
	msgs := g.messages()
	return finish(g, rootHint, func(fn func(*message)) error {
		for _, m := range msgs {
			fn(m)
		}
		return nil
	})
}

// objectStart is where the line that opens the older form's object
// starts: after a byte order mark and the blank lines before it, which
// the first pass skipped.
func objectStart(sec *io.SectionReader) int64 {
	var start int64
	var bom [3]byte
	if n, _ := sec.ReadAt(bom[:], 0); n == 3 && string(bom[:]) == "\xef\xbb\xbf" {
		start = 3
	}
	br := bufio.NewReader(io.NewSectionReader(sec, start, sec.Size()-start))
	for off := start; ; {
		r, size, err := br.ReadRune()
		if err != nil || !unicode.IsSpace(r) {
			return start
		}
		if off += int64(size); r == '\n' {
			start = off
		}
	}
}

// readObject reads the older form's object from r; what was read counts,
// even when the rest is broken.
func readObject(g *chat[*message], r io.Reader) {
	st := &g.b.Digest().Stats
	st.Lines++
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		st.Malformed++
		return
	}
	st.Records++
	// The members but messages, gathered into one object for meta.
	top := []byte{'{'}
	defer func() {
		var u meta
		if transcript.Decode(append(top, '}'), &u) == nil {
			g.set(&u, nil)
		}
	}()
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			st.Malformed++
			return
		}
		if key != "messages" {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				st.Malformed++
				return
			}
			k, _ := json.Marshal(key)
			if len(top) > 1 {
				top = append(top, ',')
			}
			top = append(append(append(top, k...), ':'), v...)
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			st.Malformed++
			return
		}
		for dec.More() {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				st.Malformed++
				return
			}
			st.Lines++
			m := &message{}
			if transcript.Decode(v, m) == nil && m.ID != nil {
				st.Records++
				g.upsert(*m.ID, m.Timestamp, m)
				continue
			}
			st.Malformed++
		}
		if _, err := dec.Token(); err != nil {
			st.Malformed++
			return
		}
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
