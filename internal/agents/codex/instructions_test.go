package codex

import (
	"testing"
	"unicode/utf8"
)

func FuzzDocLimitLine(f *testing.F) {
	for _, s := range []string{"project_doc_max_bytes = 1\n", "a=1\n[t]\nproject_doc_max_bytes=2", "project_doc_max_bytes = -5", "project_doc_max_bytes = 1e99", "'project_doc_max_bytes'=\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ok, err := docLimitLine(data)
		if ok && (err != nil || n <= 0 || n > 1<<30) {
			t.Fatalf("limit %d, ok, %v", n, err)
		}
		if err != nil && !utf8.ValidString(err.Error()) {
			t.Fatalf("error not clean: %q", err)
		}
	})
}
