package redact

import (
	"strings"
	"testing"
)

func TestParsePatternsAndUse(t *testing.T) {
	pats, err := ParsePatterns([]byte("# ours\n\ninternal-ticket  TKT-[0-9]{6}\n"), "redact-patterns")
	if err != nil || len(pats) != 1 || pats[0].Kind != "internal-ticket" || pats[0].Regexp != "TKT-[0-9]{6}" {
		t.Fatalf("got %+v, %v", pats, err)
	}
	r, err := New(pats)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	out := r.String("see TKT-123456 for details", "summary", &rep)
	if strings.Contains(out, "123456") || !strings.Contains(out, "[REDACTED:internal-ticket]") || rep.Total() != 1 {
		t.Fatalf("out %q total %d", out, rep.Total())
	}
	if _, err := ParsePatterns([]byte("lonely\n"), "f"); err == nil || !strings.HasPrefix(err.Error(), "f:1:") {
		t.Fatalf("missing regexp: %v", err)
	}
}
