package claude

import (
	"slices"
	"strings"
)

// queuedPrompt is one entry of Claude Code's input queue: text the user
// typed (prompt) or a task notification the agent itself queued.
type queuedPrompt struct {
	text   string
	prompt bool
}

// maxQueued bounds the prompts waiting in a transcript's queue.
const maxQueued = 64

// queueOperation reads a queue-operation line of Claude Code 2.x. What the
// user types while the agent works is enqueued (operation "enqueue",
// content the prompt). Task notifications are enqueued the same way; they
// are not the user's. An entry leaves the queue in one of three ways
// (Claude Code 2.1.88, src/utils/messageQueueManager.ts and query.ts;
// CHANGELOG 2.1.19 for queued_command):
//
//   - "dequeue": taken between turns; it becomes the next turn's user
//     line, which is the request (seen in the real 2.0.76 transcript
//     session-196820da: each dequeue is followed by the user line).
//   - "remove": absorbed by the running turn. Until 2.1.x nothing else
//     records it, so the remove line delivers it; later versions also
//     write a queued_command attachment, which then delivers it instead.
//     From 2.1.246 the remove carries content and reason
//     "absorbed_mid_turn"; a remove with any other reason did not deliver.
//   - "popAll": taken back into the input box to be edited; nothing is
//     delivered (it comes back as new enqueues when sent). One line per
//     entry, each with its content; a popAll without content empties the
//     queue.
//
// "clear" empties the queue; other operations change nothing.
func (rd *reader) queueOperation(n int, l *entry) {
	content := strings.TrimSpace(l.Content)
	switch l.Operation {
	case "enqueue":
		if len(rd.queued) < maxQueued {
			_, prompt := requestText(content)
			rd.queued = append(rd.queued, queuedPrompt{text: content, prompt: prompt})
		}
	case "dequeue":
		rd.takeQueued(content)
	case "remove":
		q, ok := rd.takeQueued(content)
		if !ok || !q.prompt || (l.Reason != "" && l.Reason != "absorbed_mid_turn") {
			return
		}
		if rd.delivered == nil {
			rd.delivered = map[int]string{}
		}
		rd.delivered[n] = q.text
	case "popAll":
		if content == "" {
			rd.queued = nil
			return
		}
		rd.takeQueued(content)
	case "clear":
		rd.queued = nil
	}
}

// takeQueued takes the entry with the given content off the queue, or,
// without content, the entry Claude Code takes next: the oldest prompt
// (prompts go before notifications), else the oldest entry.
func (rd *reader) takeQueued(content string) (queuedPrompt, bool) {
	i := -1
	for j, q := range rd.queued {
		if content != "" && q.text == content || content == "" && q.prompt {
			i = j
			break
		}
	}
	if i < 0 && content == "" && len(rd.queued) > 0 {
		i = 0
	}
	if i < 0 {
		return queuedPrompt{}, false
	}
	q := rd.queued[i]
	rd.queued = slices.Delete(rd.queued, i, i+1)
	return q, true
}

// deliveredLines are the lines that delivered a queued prompt, ascending.
func (rd *reader) deliveredLines() []int {
	lines := make([]int, 0, len(rd.delivered))
	for n := range rd.delivered {
		lines = append(lines, n)
	}
	slices.Sort(lines)
	return lines
}
