package capture

// Expectations for the real Gemini CLI files, established by reading each.
func init() {
	realExpectations = append(realExpectations,
		// A prompt log (a JSON array of {sessionId, messageId, type,
		// message}), not a chat recording: the reader finds no record.
		realExpectation{file: "gemini/codemie/logs.json", agent: Gemini, err: "no valid transcript record"},
	)
}
