package gemini

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// tailBytes bounds what LastPrompt reads: the end of the file, where the
// last answer is.
const tailBytes = 1 << 20

// LastPrompt reads, from the end of a Gemini CLI chat recording (JSONL),
// the prompt token count and the model of the last answer recorded: the
// "tokens.input" and "model" of the last "gemini" message. It is 0 and ""
// when no answer is recorded yet, as at the first PreCompress of a
// session. A line is read with encoding/json, whole or not at all: one
// whose fields have other types is skipped.
func LastPrompt(path string) (tokens int64, model string, err error) {
	f, size, err := safefile.OpenRegular(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	off := max(size-tailBytes, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, size-off))
	if err != nil {
		return 0, "", err
	}
	lines := bytes.Split(data, []byte("\n"))
	if off > 0 {
		lines = lines[1:] // cut in the middle
	}
	type message struct {
		Type   string `json:"type"`
		Model  string `json:"model"`
		Tokens *struct {
			Input int64 `json:"input"`
		} `json:"tokens"`
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var line struct {
			message
			Set struct {
				Messages []message `json:"messages"`
			} `json:"$set"`
		}
		if json.Unmarshal(lines[i], &line) != nil {
			continue
		}
		// A whole-history rewrite ($set of messages) or one message.
		msgs := append(line.Set.Messages, line.message)
		for j := len(msgs) - 1; j >= 0; j-- {
			if m := msgs[j]; m.Type == "gemini" && m.Tokens != nil {
				return m.Tokens.Input, m.Model, nil
			}
		}
	}
	return 0, "", nil
}
