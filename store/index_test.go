package store

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

func TestIndexLineRoundTrip(t *testing.T) {
	id, _ := handoff.NewID(baseTime)
	for _, e := range []indexEntry{
		{ID: id, CreatedMS: baseTime.UnixMilli(), Tool: "codex", ProjectName: "p", ProjectPath: "/src/p", Title: "t", Source: "hand"},
		{ID: id, CreatedMS: -62135596800000, Tool: "x", Title: "tab\there, newline\nthere, cr\r, back\\slash, \\t literal",
			ProjectName: "ünï\tcode", ProjectPath: "/a\\b", Branch: "feat/x", Source: "import", Tags: []string{"a", "b:c", "π"},
			Summary: "s\\\n\t"},
		{ID: id, Tags: []string{""}},
	} {
		line := appendLine(nil, &e, "")
		if bytes.Count(line, []byte{'\n'}) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("line %q is not one line", line)
		}
		got, del, err := parseLine(line[:len(line)-1])
		if err != nil || del {
			t.Fatalf("parseLine(%q) = %v, %v", line, del, err)
		}
		if len(e.Tags) == 1 && e.Tags[0] == "" {
			e.Tags = nil // an empty tags field means no tags
		}
		if !reflect.DeepEqual(got, e) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, e)
		}
	}
	tomb := appendTombstone(nil, id)
	got, del, err := parseLine(tomb[:len(tomb)-1])
	if err != nil || !del || got.ID != id {
		t.Errorf("tombstone: %+v %v %v", got, del, err)
	}
}

func TestParseLineRejects(t *testing.T) {
	id, _ := handoff.NewID(baseTime)
	good := string(appendLine(nil, &indexEntry{ID: id, Tool: "codex", Title: "t"}, ""))
	good = good[:len(good)-1]
	for name, line := range map[string]string{
		"empty":           "",
		"unknown op":      "?" + good[1:],
		"no tab":          "+" + good[2:],
		"short id":        "+\t0123",
		"lower-case id":   "+\t" + strings.ToLower(string(id)) + good[28:],
		"id out of range": "+\t8" + good[3:],
		"tombstone extra": "-\t" + string(id) + "\tx",
		"too few fields":  strings.Replace(good, "\t", " ", 3),
		"too many fields": good + "\t",
		"bad time":        strings.Replace(good, "\t"+appendIntS(0)+"\t", "\tnow\t", 1),
		"huge time":       strings.Replace(good, "\t0\t", "\t1234567890123456789\t", 1),
		"bad escape":      strings.Replace(good, "codex", `co\dex`, 1),
		"trailing escape": good + `\`,
	} {
		if _, _, err := parseLine([]byte(line)); err == nil {
			t.Errorf("%s: %q accepted", name, line)
		}
	}
}

func appendIntS(v int64) string { return string(appendInt(nil, v)) }

func TestParseIndexLastLineWins(t *testing.T) {
	mk := func(at time.Duration, title string) indexEntry {
		id, _ := handoff.NewID(baseTime.Add(at))
		return indexEntry{ID: id, Tool: "codex", Title: title}
	}
	a, b, c := mk(0, "a"), mk(time.Second, "b"), mk(2*time.Second, "c")
	b2 := b
	b2.Title = "b2"
	buf := []byte(indexHeader + "\n")
	buf = appendLine(buf, &c, "") // out of order, as concurrent machines may write
	buf = appendLine(buf, &a, c.ID)
	buf = appendLine(buf, &b, c.ID)
	buf = appendTombstone(buf, a.ID)
	buf = appendLine(buf, &b2, c.ID)
	buf = appendTombstone(buf, c.ID)
	buf = appendLine(buf, &c, c.ID)
	buf = append(buf, "+\tgarbage without newline"...)
	ix, err := parseIndex(buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.torn || ix.lines != 7 || len(ix.live) != 2 {
		t.Fatalf("torn=%v lines=%d live=%d", ix.torn, ix.lines, len(ix.live))
	}
	e0, _ := ix.entry(0)
	e1, _ := ix.entry(1)
	if e0.ID != b.ID || e0.Title != "b2" || e1.ID != c.ID {
		t.Errorf("live = %+v, %+v", e0, e1)
	}

	// Damage in the middle is corruption, with the line number.
	bad := bytes.Replace(buf, []byte("-\t"+a.ID), []byte("?\t"+a.ID), 1)
	_, err = parseIndex(bad, nil)
	var ie *indexError
	if !errors.As(err, &ie) || ie.Line != 5 || !errors.Is(err, errCorruptIndex) {
		t.Errorf("err = %v", err)
	}
}

func TestDecodeIDOrderIsStringOrder(t *testing.T) {
	var prev string
	var ph, pl uint64
	for i := 0; i < 2000; i++ {
		id, _ := handoff.NewID(baseTime.Add(time.Duration(i%7) * time.Hour).Add(time.Duration(i) * time.Microsecond))
		hi, lo, ok := decodeID([]byte(id))
		if !ok {
			t.Fatalf("decodeID(%s) failed", id)
		}
		if prev != "" {
			if (string(id) < prev) != (hi < ph || hi == ph && lo < pl) {
				t.Fatalf("order of %s and %s differs", prev, id)
			}
		}
		prev, ph, pl = string(id), hi, lo
	}
	if _, _, ok := decodeID([]byte("8ZZZZZZZZZZZZZZZZZZZZZZZZZ")); ok {
		t.Error("out-of-range id decoded")
	}
	if _, _, ok := decodeID([]byte("7ZZZZZZZZZZZZZZZZZZZZZZZZZ")); !ok {
		t.Error("largest id rejected")
	}
}

func TestPrefixUTF8(t *testing.T) {
	s := strings.Repeat("a", 199) + "é" // é straddles byte 200
	if got := prefixUTF8(s, 200); got != strings.Repeat("a", 199) {
		t.Errorf("cut inside a character: %q", got[190:])
	}
}

// FuzzParseIndex feeds arbitrary bytes to the index reader. It must not
// panic, and whatever it accepts must read back the same after being
// written out again.
func FuzzParseIndex(f *testing.F) {
	id1, _ := handoff.NewID(baseTime)
	id2, _ := handoff.NewID(baseTime.Add(time.Hour))
	e := indexEntry{ID: id1, CreatedMS: baseTime.UnixMilli(), Tool: "codex", ProjectName: "p", ProjectPath: "/src/p",
		Title: "a\ttitle\\with\nescapes", Branch: "main", Source: "hand", Tags: []string{"x", "y"}, Summary: "sum"}
	good := appendLine([]byte(indexHeader+"\n"), &e, "")
	f.Add(good)
	f.Add(appendTombstone(bytes.Clone(good), id1))
	f.Add(appendLine(appendTombstone(bytes.Clone(good), id2), &e, e.ID))
	f.Add(append(bytes.Clone(good), "+\t"+string(id2)+"\t1"...))
	f.Add([]byte(indexHeader + "\n"))
	f.Add([]byte(indexHeader))
	f.Add([]byte(""))
	f.Add([]byte(indexHeader + "\n+\t" + string(id1) + "\t\t\t\t\t\t\t\t\t\n"))
	f.Add([]byte(indexHeader + "\n+\t" + string(id1) + "\t-5\t\\\t\t\t\t\t\t\t\t\n"))
	f.Add([]byte(indexHeader + "\n-\t" + string(id1) + "\n-\t" + string(id1) + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := parseIndex(data, nil)
		if err != nil {
			if !errors.Is(err, errCorruptIndex) {
				t.Fatalf("error does not mark corruption: %v", err)
			}
			return
		}
		// Every live line: decoding and matching must not panic.
		m, _ := newMatcher(Filter{Tool: "codex", Project: "/src", Query: "tItLe", Since: baseTime, IDPrefix: "0"})
		var entries []indexEntry
		ok := true
		for i := range ix.live {
			m.match(ix.line(i))
			ie, del, err := parseLine(ix.line(i))
			if err != nil {
				ok = false
				continue
			}
			if del {
				t.Fatal("a tombstone is live")
			}
			entries = append(entries, ie)
		}
		if !ok {
			return
		}
		// Written out again (as a rebuild would), it reads back the same.
		out := []byte(indexHeader + "\n")
		var greatest handoff.ID
		for i := range entries {
			out = appendLine(out, &entries[i], greatest)
			greatest = max(greatest, entries[i].ID)
		}
		ix2, err := parseIndex(out, nil)
		if err != nil {
			t.Fatalf("rewritten index does not parse: %v\n%q", err, out)
		}
		if len(ix2.live) != len(entries) || ix2.torn {
			t.Fatalf("rewritten index has %d live entries, want %d", len(ix2.live), len(entries))
		}
		for i := range entries {
			got, _, err := parseLine(ix2.line(i))
			if err != nil || !reflect.DeepEqual(got, entries[i]) {
				t.Fatalf("entry %d: %+v, %v; want %+v", i, got, err, entries[i])
			}
		}
	})
}

func TestIndexFoldASCII(t *testing.T) {
	for _, c := range []struct {
		h, q string
		want bool
	}{
		{"Hello World", "world", true},
		{"Hello World", "hello world", true},
		{"Hello World", "worlds", false},
		{"", "", true},
		{"abc", "", true},
		{"", "a", false},
		{"aaab", "aab", true},
		{"AaAaB", "aab", true},
		{"xyz-123", "-12", true},
		{"xyz-123", "z-1", true},
		{"xyZ", "z", true},
		{"Zebra", "zebra", true},
		{"abc", "abcd", false},
		{"ab", "b", true},
		{"aB", "ab", true},
	} {
		if got := indexFoldASCII([]byte(c.h), c.q); got != c.want {
			t.Errorf("indexFoldASCII(%q, %q) = %v", c.h, c.q, got)
		}
		if want := strings.Contains(strings.ToLower(c.h), c.q); want != c.want {
			t.Fatalf("bad case %q %q", c.h, c.q)
		}
	}
	for _, c := range []struct {
		s    string
		want bool
	}{{"", true}, {"plain ascii text over eight bytes", true}, {"twelve bytes é", false}, {"é", false}, {"12345678é", false}} {
		if isASCII([]byte(c.s)) != c.want {
			t.Errorf("isASCII(%q) != %v", c.s, c.want)
		}
	}
}
