package remote

import (
	"strings"
	"testing"
)

// Log files come from anyone with write access to the remote: parsing
// never panics, and what it returns is well-formed.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte("2026-11-23T09:00:00.123Z\t" + strings.Repeat("a", 32) + "\tsha256:" + strings.Repeat("b", 64) + "\n"))
	f.Add([]byte("garbage\n\t\t\n"))
	f.Add([]byte("2026-11-23T09:00:00Z\tAAAA\tsha256:x,sha256:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range parseLog(data) {
			if !isHex(e.BundleID, 32) || len(e.Recipients) == 0 {
				t.Fatalf("bad entry %+v", e)
			}
			again, err := parseLogLine(e.String())
			if err != nil || again.String() != e.String() {
				t.Fatalf("round trip of %+v: %+v %v", e, again, err)
			}
		}
	})
}

// Paths and ls-tree output come from the remote's trees: only the exact
// shapes are accepted.
func FuzzInboxPaths(f *testing.F) {
	f.Add("to/" + strings.Repeat("a", 64) + "/" + strings.Repeat("b", 32) + ".handoff")
	f.Add("to/../" + strings.Repeat("b", 32) + ".handoff")
	f.Add("log/" + strings.Repeat("c", 64) + ".log")
	f.Add("100644 blob abc 12\tto/x\x00120000 blob def 3\tlink\x00")
	f.Fuzz(func(t *testing.T, s string) {
		if rh, id, ok := parseBundlePath(s); ok {
			if BundlePath(rh, id) != s {
				t.Fatalf("%q parsed as %s %s", s, rh, id)
			}
		}
		if sh, ok := parseLogPath(s); ok && LogPath(sh) != s {
			t.Fatalf("%q parsed as %s", s, sh)
		}
		es, err := parseLsTree([]byte(s))
		if err == nil {
			for _, e := range es {
				if e.path == "" && e.mode == "" {
					t.Fatalf("empty entry from %q", s)
				}
			}
		}
	})
}
