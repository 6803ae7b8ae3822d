package transcript

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

// Each reader turns its agent's records into a list of events on the
// session's main thread; a folder turns the events into a digest. Events
// hold only bounded, cleaned text.

type evKind uint8

const (
	evRequest    evKind = iota + 1 // text: what the user asked
	evAgentText                    // text: what the agent said; id groups parts of one message
	evCall                         // a tool call: id, command in text when hasCmd, file ops
	evResult                       // a tool call's outcome: id, exit, failed, skipped, output in text
	evTodos                        // the todo list as it now stands
	evCompaction                   // text: a compaction summary
	evTokens                       // tokens used; id dedupes repeats; set replaces the total
	evTouch                        // ops: paths the agent reports touching, without details
	evTask                         // one task of a task list changed: id, text (its subject, "" to keep), status ("deleted" removes it)
	evPlan                         // text: the plan the agent put to the user; id: the call that put it; status: a handoff.Plan* status, "" for pending
	evCancel                       // the user stopped the turn; a later request starts a new one
	evDecision                     // text: a question the user answered, and the answer
	evTool                         // for an observer only: a tool call's tool in text, its arguments in output; the fold ignores it
)

type opKind uint8

const (
	opRead   opKind = iota + 1 // the agent read the file: it existed
	opCreate                   // a new file
	opEdit                     // an edit of an existing file
	opWrite                    // the whole file written: new unless seen before
	opDelete                   // the file removed
)

type fileOp struct {
	path string // already normalised against the session's cwd
	op   opKind
	n    int // edits this op makes; 0 counts as 1 for edits
}

type event struct {
	kind    evKind
	id      string
	text    string
	hasCmd  bool
	ops     []fileOp
	exit    *int
	failed  bool // the call failed
	skipped bool // the call did not run (cancelled, refused)
	known   bool // the outcome (success or failure) is known
	// status overrides the command status the outcome implies (one of
	// the handoff.Status constants): blocked, rejected, interrupted,
	// background.
	status string
	todos  []handoff.Todo
	// ids, when set, are the ids of todos (a task list's snapshot), for
	// later evTask events to refer to.
	ids    []string
	tokens handoff.Tokens
	set    bool
	// output is a call's output for an observer (Builder.Observe),
	// failed or not; the fold never reads it.
	output string
}

// Constructors that bound the text they store.

func evReq(text string) event {
	return event{kind: evRequest, text: shortenMiddle(text, MaxLastRequest)}
}

func evAgent(id, text string) event {
	return event{kind: evAgentText, id: id, text: shortenMiddle(text, MaxAgentMessage)}
}

func evCmd(id, cmd string) event {
	return event{kind: evCall, id: id, text: shortenHead(strings.TrimSpace(cmd), MaxCommandText), hasCmd: strings.TrimSpace(cmd) != ""}
}

func evOps(id string, ops ...fileOp) event { return event{kind: evCall, id: id, ops: ops} }

func evOut(id string, exit *int, failed, known bool, output string) event {
	e := event{kind: evResult, id: id, exit: exit, failed: failed, known: known || failed || exit != nil}
	if e.failed || (exit != nil && *exit != 0) {
		e.text = shortenMiddle(output, MaxFailureOutput)
	}
	return e
}

// evStatus is evOut for an outcome with a status of its own: a call that
// was rejected or interrupted did not run its course (skipped); one a hook
// blocked failed.
func evStatus(id, status, output string) event {
	switch status {
	case handoff.StatusBlocked:
		e := evOut(id, nil, true, true, output)
		e.status = status
		return e
	case handoff.StatusBackground:
		return event{kind: evResult, id: id, status: status}
	}
	return event{kind: evResult, id: id, skipped: true, status: status}
}

func evCompact(text string) event {
	return event{kind: evCompaction, text: shortenMiddle(strings.TrimSpace(text), MaxCompaction)}
}

// evTodoList bounds and normalises a todo list.
func evTodoList(items []handoff.Todo) event {
	out := make([]handoff.Todo, 0, len(items))
	for _, t := range items {
		c := shortenHead(strings.TrimSpace(t.Content), maxTodoText)
		if c == "" {
			continue
		}
		if len(out) == maxTodos {
			break
		}
		out = append(out, handoff.Todo{Content: c, Status: todoStatus(t.Status)})
	}
	return event{kind: evTodos, todos: out}
}

// todoStatus maps the agents' status words onto the record's four.
func todoStatus(s string) string {
	switch strings.ToLower(strings.TrimSpace(strings.ReplaceAll(s, "-", "_"))) {
	case "in_progress", "inprogress", "active", "doing", "running", "started":
		return "in_progress"
	case "completed", "complete", "done", "finished":
		return "completed"
	case "cancelled", "canceled", "skipped", "abandoned":
		return "cancelled"
	}
	return "pending"
}

type cmdEntry struct {
	cmd  handoff.Command
	last int // seq of the latest run
	// prev and prevLast are cmd and last before the latest run: when that
	// run ends otherwise than the runs before it, it becomes an entry of
	// its own and these are put back.
	prev     handoff.Command
	prevLast int
}

// maxOpenFailures bounds the failures kept waiting for a later success
// to settle them.
const maxOpenFailures = 64

type callEntry struct {
	seq      int
	cmd      *cmdEntry
	ops      []fileOp
	opsDone  bool
	resolved bool
}

type fileEntry struct {
	f      handoff.FileTouched
	origin string
}

type folder struct {
	observe   func(Event) // Builder.Observe
	requests  []string
	agentText string
	agentID   string
	cmds      []*cmdEntry
	// actions are the command lines parsed for resolves (action).
	actions      map[string]action
	cmdIndex     map[string]*cmdEntry
	calls        map[string]*callEntry
	callOrder    []*callEntry
	failures     []handoff.Command // failures no later success has settled, oldest first
	todos        []handoff.Todo
	todoIDs      []string // the task ids of todos, when a task list set them
	todosSet     bool
	plan         string
	planID       string // the call that put the plan to the user, whose outcome approves or rejects it
	planStatus   string
	cancelled    bool // the user stopped the last turn, and no request came after
	decisions    []string
	compaction   string
	tokByID      map[string]handoff.Tokens
	tokIDs       []string
	tokSum       handoff.Tokens
	tokTotal     *handoff.Tokens
	tokSeen      bool
	files        map[string]*fileEntry
	fileOrder    []string
	failedEdits  []handoff.FailedEdit // edits that failed, and that no later edit of the file followed
	seen         map[string]bool
	seq          int
	firstRequest string // the first request that is not a slash command: the title
	firstCommand string // the first request of any kind, the title when every one is a command
	compactAt    int    // the length of callOrder at which it is next compacted
}

func newFolder() *folder {
	return &folder{
		cmdIndex:  map[string]*cmdEntry{},
		calls:     map[string]*callEntry{},
		tokByID:   map[string]handoff.Tokens{},
		files:     map[string]*fileEntry{},
		seen:      map[string]bool{},
		compactAt: 1024,
	}
}

func (f *folder) add(e event) {
	if f.observe != nil {
		if o, ok := observed(e); ok {
			f.observe(o)
		}
	}
	switch e.kind {
	case evRequest:
		f.addRequest(e.text)
	case evAgentText:
		if e.text == "" {
			return
		}
		if e.id != "" && e.id == f.agentID && f.agentText != "" {
			f.agentText = shortenMiddle(f.agentText+"\n\n"+e.text, MaxAgentMessage)
		} else {
			f.agentText = e.text
		}
		f.agentID = e.id
	case evCall:
		f.call(e)
	case evResult:
		f.result(e)
	case evTodos:
		f.todos = e.todos
		f.todoIDs = nil
		if len(e.ids) == len(e.todos) {
			f.todoIDs = e.ids
		}
		f.todosSet = true
	case evTask:
		f.task(e)
		if f.observe != nil {
			// An observer is told the list as it now stands.
			f.observe(Event{Kind: EventTodos, Todos: slices.Clone(f.todos)})
		}
	case evPlan:
		if e.text != "" {
			f.plan, f.planID, f.planStatus = e.text, e.id, cmp.Or(e.status, handoff.PlanPending)
		}
	case evCancel:
		f.cancelled = true
	case evDecision:
		if e.text != "" && len(f.decisions) < handoff.MaxItems {
			f.decisions = append(f.decisions, e.text)
		}
	case evCompaction:
		if e.text != "" {
			f.compaction = e.text
		}
	case evTokens:
		f.tokSeen = true
		switch {
		case e.set:
			t := e.tokens
			f.tokTotal = &t
		case e.id != "":
			if _, ok := f.tokByID[e.id]; !ok {
				f.tokIDs = append(f.tokIDs, e.id)
			}
			f.tokByID[e.id] = e.tokens
		default:
			f.tokSum = addTokens(f.tokSum, e.tokens)
		}
	case evTouch:
		for _, op := range e.ops {
			if op.path == "" || len(op.path) > maxPath {
				continue
			}
			if _, ok := f.files[op.path]; !ok && len(f.fileOrder) < maxFiles {
				f.files[op.path] = &fileEntry{f: handoff.FileTouched{Path: op.path, Action: "edited"}, origin: "edited"}
				f.fileOrder = append(f.fileOrder, op.path)
			}
		}
	}
}

// task applies one change of a task list: a new task, or a new subject or
// status for one; status "deleted" takes it off the list.
func (f *folder) task(e event) {
	if e.id == "" {
		return
	}
	i := slices.Index(f.todoIDs, e.id)
	if i < 0 && len(f.todoIDs) != len(f.todos) {
		// The list came from a tool without ids (TodoWrite): a task
		// list starts afresh.
		f.todos, f.todoIDs = nil, nil
	}
	f.todosSet = true
	switch {
	case e.status == "deleted":
		if i >= 0 {
			f.todos = slices.Delete(slices.Clone(f.todos), i, i+1)
			f.todoIDs = slices.Delete(slices.Clone(f.todoIDs), i, i+1)
		}
	case i >= 0:
		t := f.todos[i]
		if text := shortenHead(strings.TrimSpace(e.text), maxTodoText); text != "" {
			t.Content = text
		}
		if e.status != "" {
			t.Status = todoStatus(e.status)
		}
		f.todos = slices.Clone(f.todos)
		f.todos[i] = t
	default:
		text := shortenHead(strings.TrimSpace(e.text), maxTodoText)
		if text == "" || len(f.todos) >= maxTodos {
			return
		}
		f.todos = append(slices.Clone(f.todos), handoff.Todo{Content: text, Status: todoStatus(e.status)})
		f.todoIDs = append(slices.Clone(f.todoIDs), e.id)
	}
}

func (f *folder) addRequest(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	f.cancelled = false
	if f.firstRequest == "" && !isSlashCommand(text) {
		f.firstRequest = text
	}
	if f.firstCommand == "" {
		f.firstCommand = text
	}
	if n := len(f.requests); n > 0 {
		f.requests[n-1] = shortenHead(f.requests[n-1], MaxEarlierRequest)
	}
	if len(f.requests) == maxRequests {
		// Keep the first request, which usually states the task, and
		// the most recent ones.
		copy(f.requests[1:], f.requests[2:])
		f.requests = f.requests[:len(f.requests)-1]
	}
	f.requests = append(f.requests, text)
}

func (f *folder) call(e event) {
	f.seq++
	c := &callEntry{seq: f.seq}
	if e.hasCmd {
		ce := f.cmdIndex[e.text]
		if ce == nil {
			ce = &cmdEntry{cmd: handoff.Command{Command: e.text}}
			f.cmdIndex[e.text] = ce
			f.cmds = append(f.cmds, ce)
		}
		ce.prev, ce.prevLast = ce.cmd, ce.last
		ce.cmd.Count++
		ce.cmd.ExitCode = nil
		ce.cmd.Output = ""
		ce.cmd.Status = handoff.StatusUnknown
		ce.last = f.seq
		c.cmd = ce
	}
	for _, op := range e.ops {
		if op.op == opRead {
			if op.path != "" {
				f.seen[op.path] = true
			}
			continue
		}
		c.ops = append(c.ops, op)
	}
	if e.id == "" {
		f.applyOps(c)
		return
	}
	if old := f.calls[e.id]; old != nil && !old.opsDone {
		// The same id twice: the first call's edits stand.
		f.applyOps(old)
	}
	f.calls[e.id] = c
	f.callOrder = append(f.callOrder, c)
	if len(f.callOrder) >= f.compactAt {
		// finish looks only at the calls still open: forget the rest,
		// so that a long session's calls do not pile up.
		f.callOrder = slices.DeleteFunc(f.callOrder, func(c *callEntry) bool { return c.opsDone })
		f.compactAt = max(1024, 2*len(f.callOrder))
	}
}

func (f *folder) result(e event) {
	if e.id != "" && e.id == f.planID {
		// The answer to the plan: approved when the call succeeded,
		// rejected when the user refused it; stopped, or failed as a tool
		// fails ("No such tool available"), nobody decided: it is still
		// pending (issue 45).
		switch {
		case e.status == handoff.StatusRejected:
			f.planStatus = handoff.PlanRejected
		case e.failed:
		case e.known && !e.skipped:
			f.planStatus = handoff.PlanApproved
		}
	}
	c := f.calls[e.id]
	if c == nil || c.resolved {
		return
	}
	if e.known || e.skipped {
		c.resolved = true
	}
	if !e.failed && !e.skipped {
		f.applyOps(c)
	} else {
		c.opsDone = true // it did not happen
		if e.failed && c.cmd == nil {
			f.failEdits(c.ops, e.text)
		}
	}
	if c.resolved {
		// Nothing more can happen to it: a later result for the id
		// finds no call, as it would find one resolved.
		delete(f.calls, e.id)
	}
	if c.cmd == nil || c.cmd.last != c.seq {
		return
	}
	cmd := &c.cmd.cmd
	cmd.ExitCode = e.exit
	failed := e.failed || (e.exit != nil && *e.exit != 0)
	switch {
	case e.status != "":
		cmd.Status = e.status
	case failed:
		cmd.Status = handoff.StatusFailed
	case e.known:
		cmd.Status = handoff.StatusOK
	}
	if ce := c.cmd; ce.prev.Count > 0 && ce.prev.Status != handoff.StatusUnknown && ranClass(ce.prev.Status) != ranClass(cmd.Status) {
		// A run that did not happen (refused, blocked) is never merged
		// with runs that did: a push the user rejected and one that ran
		// stay two lines. The run joins its own kind's line.
		run := f.cmdIndex[cmd.Command+"\x00"+ranClass(cmd.Status)]
		if run == nil {
			run = &cmdEntry{cmd: handoff.Command{Command: cmd.Command}}
			f.cmds = append(f.cmds, run)
			f.cmdIndex[cmd.Command+"\x00"+ranClass(cmd.Status)] = run
		}
		count, runs := run.cmd.Count+1, run.cmd.Runs
		run.cmd, run.last = *cmd, ce.last
		run.cmd.Count, run.cmd.Runs = count, runs
		f.cmdIndex[cmd.Command+"\x00"+ranClass(ce.prev.Status)] = ce
		ce.cmd, ce.last, ce.prev = ce.prev, ce.prevLast, handoff.Command{}
		f.cmdIndex[cmd.Command] = run
		c.cmd, cmd = run, &run.cmd
	} else {
		f.cmdIndex[cmd.Command+"\x00"+ranClass(cmd.Status)] = ce
	}
	// The runs' outcomes in order, the last MaxRuns (a fresh array: an
	// entry's earlier state may share the old one).
	cmd.Runs = append(slices.Clip(cmd.Runs), cmd.Status)
	if len(cmd.Runs) > handoff.MaxRuns {
		cmd.Runs = slices.Clone(cmd.Runs[len(cmd.Runs)-handoff.MaxRuns:])
	}
	if failed {
		cmd.Output = shortenMiddle(e.text, MaxCommandOutput)
		if len(f.failures) == maxOpenFailures {
			f.failures = slices.Delete(f.failures, 0, 1)
		}
		f.failures = append(f.failures, handoff.Command{Command: cmd.Command, ExitCode: e.exit, Output: e.text, Status: cmd.Status})
	} else if cmd.Status == handoff.StatusOK {
		// A later success at the same action settles earlier failures.
		okAct := f.action(cmd.Command)
		f.failures = slices.DeleteFunc(f.failures, func(fc handoff.Command) bool {
			return resolvesActions(cmd.Command, okAct, fc.Command, f.action(fc.Command))
		})
	}
}

// ranClass sorts command statuses into what did not run, each its own
// kind (rejected, blocked), and what ran (ok, failed, interrupted,
// background, unknown), whose runs of one command share a line.
func ranClass(status string) string {
	switch status {
	case handoff.StatusRejected, handoff.StatusBlocked:
		return status
	}
	return "ran"
}

func (f *folder) applyOps(c *callEntry) {
	if c.opsDone {
		return
	}
	c.opsDone = true
	for _, op := range c.ops {
		f.applyOp(op)
	}
}

// failEdits records the files of an edit tool's call that failed: no
// change, a failed action. A command's failure is the command's alone.
func (f *folder) failEdits(ops []fileOp, output string) {
	for _, op := range ops {
		if op.path == "" || len(op.path) > maxPath {
			continue
		}
		i := slices.IndexFunc(f.failedEdits, func(fe handoff.FailedEdit) bool { return fe.Path == op.path })
		if i < 0 {
			if len(f.failedEdits) >= maxFiles {
				continue
			}
			f.failedEdits = append(f.failedEdits, handoff.FailedEdit{Path: op.path})
			i = len(f.failedEdits) - 1
		}
		fe := &f.failedEdits[i]
		fe.Count = min(fe.Count+1, math.MaxInt32)
		fe.Error = shortenMiddle(strings.TrimSpace(output), maxFailedEditError)
	}
}

// maxFailedEditError bounds a failed edit's error text.
const maxFailedEditError = 500

func (f *folder) applyOp(op fileOp) {
	if op.path == "" || len(op.path) > maxPath {
		return
	}
	// A later edit of a file whose edit failed changed it after all.
	f.failedEdits = slices.DeleteFunc(f.failedEdits, func(fe handoff.FailedEdit) bool { return fe.Path == op.path })
	n := op.n
	if n <= 0 {
		n = 1
	}
	fe := f.files[op.path]
	if fe == nil {
		if len(f.fileOrder) >= maxFiles {
			return
		}
		action := "edited"
		switch op.op {
		case opCreate:
			action = "created"
		case opDelete:
			action = "deleted"
		case opWrite:
			if !f.seen[op.path] {
				action = "created"
			}
		}
		fe = &fileEntry{f: handoff.FileTouched{Path: op.path, Action: action}, origin: action}
		if op.op != opDelete {
			fe.f.Edits = n
		}
		f.files[op.path] = fe
		f.fileOrder = append(f.fileOrder, op.path)
		f.seen[op.path] = true
		return
	}
	switch op.op {
	case opDelete:
		if fe.origin == "created" {
			// Made and removed within the session: nothing to report.
			delete(f.files, op.path)
			f.fileOrder = slices.DeleteFunc(f.fileOrder, func(p string) bool { return p == op.path })
			return
		}
		fe.f.Action = "deleted"
		return
	case opCreate, opWrite, opEdit:
		if fe.f.Action == "deleted" {
			if fe.origin == "created" {
				fe.f.Action = "created"
			} else {
				fe.f.Action = "edited"
			}
		}
	}
	if fe.f.Edits < math.MaxInt32 {
		fe.f.Edits += n
	}
}

// finish writes what was folded into d.
func (f *folder) finish(d *Digest) {
	// Calls that never got an answer: the session ended or the answer
	// was lost; count their edits, in the order they were made.
	for _, c := range f.callOrder {
		if !c.opsDone {
			f.applyOps(c)
		}
	}
	s := &d.Session
	if n := len(f.requests); n > 0 {
		s.Requests = f.requests
	}
	s.LastAgentMessage = f.agentText
	cmds := f.cmds
	if len(cmds) > maxCommands {
		// Keep the commands run most recently, in first-run order.
		cut := len(cmds) - maxCommands
		lasts := make([]int, len(cmds))
		for i, c := range cmds {
			lasts[i] = c.last
		}
		threshold := nthSmallest(lasts, cut)
		kept := cmds[:0:0]
		for _, c := range cmds {
			if c.last > threshold {
				kept = append(kept, c)
			}
		}
		cmds = kept
	}
	for _, c := range cmds {
		cmd := c.cmd
		if !slices.ContainsFunc(cmd.Runs, func(r string) bool { return r != cmd.Status }) {
			// Every run ended as the last did: its status says it all.
			cmd.Runs = nil
		}
		s.Commands = append(s.Commands, cmd)
	}
	if n := len(f.failures); n > 0 {
		lf := f.failures[n-1]
		s.LastFailure = &lf
	}
	if f.todosSet && len(f.todos) > 0 {
		s.Todos = f.todos
	}
	s.Plan = f.plan
	if f.plan != "" {
		s.PlanStatus = f.planStatus
	}
	d.Cancelled = d.Cancelled || f.cancelled
	d.Decisions = f.decisions
	s.CompactionSummary = f.compaction
	if f.tokSeen {
		var t handoff.Tokens
		if f.tokTotal != nil {
			t = *f.tokTotal
		} else {
			t = f.tokSum
			for _, id := range f.tokIDs {
				t = addTokens(t, f.tokByID[id])
			}
		}
		s.Tokens = &t
	}
	for _, p := range f.fileOrder {
		d.Files = append(d.Files, f.files[p].f)
	}
	s.FailedEdits = f.failedEdits
	if first := cmp.Or(f.firstRequest, f.firstCommand); d.Title == "" && first != "" {
		d.Title = titleFrom(first)
	}
}

// nthSmallest returns the n-th smallest of xs (1-based).
func nthSmallest(xs []int, n int) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[n-1]
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func addTokens(a, b handoff.Tokens) handoff.Tokens {
	return handoff.Tokens{
		Input:      satAdd(a.Input, b.Input),
		Output:     satAdd(a.Output, b.Output),
		CacheRead:  satAdd(a.CacheRead, b.CacheRead),
		CacheWrite: satAdd(a.CacheWrite, b.CacheWrite),
	}
}

// finishCommon fills the fields every reader sets the same way.
func finishCommon(d *Digest, agent Agent) error {
	d.Session.Agent = string(agent)
	d.Session.SkippedRecords = d.Stats.Unknown + d.Stats.Malformed + d.Stats.TooLong
	d.Session.ID = shortenHead(d.Session.ID, maxID)
	d.Session.AgentVersion = shortenHead(d.Session.AgentVersion, maxVersion)
	d.Session.AgentVersionSource = handoff.VersionFromTranscript
	if d.Session.AgentVersion == "" {
		d.Session.AgentVersionSource = handoff.VersionUnknown
	}
	d.GitBranch = shortenHead(d.GitBranch, maxBranch)
	if len(d.CWD) > maxPath {
		d.CWD = ""
	}
	d.CWD = clean(d.CWD)
	d.Title = titleFrom(d.Title)
	if d.Stats.Records == 0 {
		return ErrNoRecords
	}
	return nil
}

// foldEvent normalises an event's paths against cwd and folds it.
func foldEvent(f *folder, cwd string, e event) {
	for i := range e.ops {
		e.ops[i].path = normPath(cwd, e.ops[i].path)
	}
	f.add(e)
}
