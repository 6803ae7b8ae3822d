package integrate

import (
	"strconv"
)

// GeminiCompressionThreshold reads model.compressionThreshold from the
// text of a Gemini CLI settings file (JSON with comments): the fraction of
// the model's context window at which Gemini CLI compresses the
// conversation. ok is false when the file sets none (Gemini's default is
// 0.5: @google/gemini-cli@0.61.0, the settings schema and
// DEFAULT_COMPRESSION_TOKEN_THRESHOLD).
func GeminiCompressionThreshold(text []byte) (threshold float64, ok bool, err error) {
	top, _, err := topObject(text)
	if err != nil {
		return 0, false, err
	}
	for _, m := range top {
		if m.key != "model" || text[m.valueStart] != '{' {
			continue
		}
		inner, err := objectAt(text, m.valueStart)
		if err != nil {
			return 0, false, err
		}
		for _, f := range inner {
			if f.key != "compressionThreshold" {
				continue
			}
			v, err := strconv.ParseFloat(string(text[f.valueStart:f.valueEnd]), 64)
			if err != nil || v <= 0 {
				return 0, false, nil
			}
			return v, true, nil
		}
	}
	return 0, false, nil
}
