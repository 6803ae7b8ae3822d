package transcript

import "strings"

// claudeCompactSummary is the summary in the user message Claude Code
// writes after a compaction, without the words Claude Code puts around it
// for the model (Claude Code 2.1.328, the native binary's bundled
// source: the "This session is being continued…" opening and the caution
// before it, a <system-reminder> naming the tools used before the summary,
// the "Summary:" label it puts for the <summary> tag, the transcript path,
// the notes on what did not fit, and the "Continue the conversation…"
// instruction; 1.0 and 2.0 wrote "The conversation is summarized below:"
// and "Please continue the conversation from where we left it off…").
func claudeCompactSummary(text string) string {
	text = withoutBlocks(text, "<system-reminder>", "</system-reminder>")
	var kept []string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if hasAnyPrefix(trimmed, claudeCompactWrapperLines) ||
			(strings.HasPrefix(trimmed, "Note: ") && strings.Contains(trimmed, "too large to include")) {
			continue
		}
		kept = append(kept, line)
	}
	text = strings.TrimSpace(strings.Join(kept, "\n"))
	if rest, ok := strings.CutPrefix(text, claudeContinuation); ok {
		text = strings.TrimSpace(rest)
		for _, tail := range claudeContinuationTails {
			text = strings.TrimSpace(strings.TrimPrefix(text, tail))
		}
	}
	// The model's analysis before its summary is its working, not the
	// summary (2.1 leaves it out; 1.0 and 2.0 kept it as "Analysis:").
	if strings.HasPrefix(text, "Analysis:") {
		if _, rest, ok := strings.Cut(text, "\nSummary:"); ok {
			text = strings.TrimSpace(rest)
		}
	}
	if rest, ok := strings.CutPrefix(text, "Summary:"); ok {
		text = strings.TrimSpace(rest)
	}
	return text
}

// claudeContinuationTails are what follows claudeContinuation in its
// sentence, in the order they follow one another.
var claudeContinuationTails = []string{
	"that ran out of context", ".",
	"The summary below covers the earlier portion of the conversation.",
	"The conversation is summarized below:",
}

// claudeCompactWrapperLines open the lines of a compaction message that
// are Claude Code's, not the summary's.
var claudeCompactWrapperLines = []string{
	"If you need specific details from before compaction",
	"Continue the conversation from where it left off",
	"Please continue the conversation from where we left it off",
	"The messages after this summary are the most recent messages",
	"Recent messages are preserved verbatim",
	"The summarized conversation included",
}

// codexSummaryPrefix opens the message of a Codex compaction, followed by
// a newline and the summary (codex-rs/core/templates/compact/
// summary_prefix.md and compact.rs, format!("{SUMMARY_PREFIX}\n{summary}")).
const codexSummaryPrefix = "Another language model started to solve this problem"

// codexCompactSummary is a Codex compaction's summary without the prefix
// Codex writes for the model.
func codexCompactSummary(text string) string {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, codexSummaryPrefix) {
		return text
	}
	if _, rest, ok := strings.Cut(text, "\n"); ok {
		return strings.TrimSpace(rest)
	}
	if _, rest, ok := strings.Cut(text, "assist with your own analysis:"); ok {
		return strings.TrimSpace(rest)
	}
	return ""
}

// withoutBlocks is text without each block that runs from open to the
// next close; an open with no close after it is left as it is.
func withoutBlocks(text, open, close string) string {
	for {
		i := strings.Index(text, open)
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], close)
		if j < 0 {
			return text
		}
		text = text[:i] + text[i+j+len(close):]
	}
}
