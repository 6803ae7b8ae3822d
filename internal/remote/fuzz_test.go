package remote

import (
	"strings"
	"testing"
)

// Lines of the pending-sends file: parsing never panics, and what it
// returns is well-formed and written back the same.
func FuzzParseLog(f *testing.F) {
	f.Add("2026-11-23T09:00:00.123Z\t" + strings.Repeat("a", 32) + "\tsha256:" + strings.Repeat("b", 64))
	f.Add("garbage\t\t")
	f.Add("2026-11-23T09:00:00Z\tAAAA\tsha256:x,sha256:")
	f.Fuzz(func(t *testing.T, line string) {
		e, err := parseLogLine(line)
		if err != nil {
			return
		}
		if !isHex(e.BundleID, 32) || len(e.Recipients) == 0 {
			t.Fatalf("bad entry %+v", e)
		}
		again, err := parseLogLine(e.String())
		if err != nil || again.String() != e.String() {
			t.Fatalf("round trip of %+v: %+v %v", e, again, err)
		}
	})
}

// Paths and ls-tree output come from the remote's trees: only the exact
// shapes are accepted, in my directories only, in both layouts.
func FuzzInboxPaths(f *testing.F) {
	me := "sha256:" + strings.Repeat("a", 64)
	f.Add("to/" + strings.Repeat("a", 64) + "/" + strings.Repeat("b", 32) + ".handoff")
	f.Add("inbox/" + strings.Repeat("a", 64) + "/" + strings.Repeat("b", 32) + ".handoff")
	f.Add("to/../" + strings.Repeat("b", 32) + ".handoff")
	f.Add("inbox/" + strings.Repeat("a", 64) + "/sub/" + strings.Repeat("b", 32) + ".handoff")
	f.Add("100644 blob abc 12\tto/x\x00120000 blob def 3\tlink\x00")
	r := Remote{Name: "team", URL: "file:///x", Branch: DefaultBranch}
	f.Fuzz(func(t *testing.T, s string) {
		for _, layout := range []int{1, 2} {
			v := &view{c: &clone{remote: r}, version: layout, dirs: []string{me}}
			if rh, id, ok := v.parse(s); ok && (rh != me || v.dir(rh)+"/"+id+bundleExt != s) {
				t.Fatalf("layout %d: %q parsed as %s %s", layout, s, rh, id)
			}
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
