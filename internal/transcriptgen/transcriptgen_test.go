package transcriptgen

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWrite(t *testing.T) {
	const size = 200 << 10
	for _, agent := range Agents {
		var a, b bytes.Buffer
		if err := New(1, "/src/app").Write(agent, &a, size); err != nil {
			t.Fatal(err)
		}
		if err := New(1, "/src/app").Write(agent, &b, size); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: the same seed gave different bytes", agent)
		}
		if a.Len() < size {
			t.Errorf("%s: %d bytes, want at least %d", agent, a.Len(), size)
		}
		for i, line := range bytes.Split(bytes.TrimSuffix(a.Bytes(), []byte("\n")), []byte("\n")) {
			if !json.Valid(line) {
				t.Fatalf("%s: line %d is not JSON: %.80s", agent, i+1, line)
			}
		}
	}
	if err := New(1, "/src/app").Write("cursor", &bytes.Buffer{}, size); err == nil {
		t.Error("an unknown agent gave no error")
	}
}
