package capture

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestZZDump(t *testing.T) {
	for _, f := range strings.Fields(os.Getenv("DUMP")) {
		d, err := ReadTranscript(ClaudeCode, f, Limits{})
		if err != nil {
			t.Log(err)
			continue
		}
		b, _ := json.MarshalIndent(d, "", " ")
		os.WriteFile("/tmp/cc/"+strings.ReplaceAll(strings.TrimPrefix(f, "/work/shared/testdata/transcripts/real/"), "/", "_")+".json", b, 0o644)
	}
}
