package memory

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse feeds Parse any bytes, as a hand-edited or hostile memory
// file: it must never panic, and whatever it accepts must format to bytes
// that parse to the same document and format the same again.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"<!-- session-handoff:memory v=1 layer=0 tag=soul -->\n# Aria\n",
		"<!-- session-handoff:memory v=1 layer=2 date=2026-03-05 handoff=01JDZ3K4XQ2V8N5M7P9R0S1T2W -->\nstate\n<!-- entry date=2026-03-05 -->\n",
		"<!-- session-handoff:memory v=1 layer=1 tag=api date=2026-03-05 -->\n# t\n\n<!-- entry date=2026-03-05 key=a/b -->\nbody\n\n<!-- entry date=2026-03-05 -->\n\\<!-- entry x\nend",
		"<!-- session-handoff:memory v=1 layer=3 tag=api date=2026-03 -->\r\n<!-- entry date=2026-03-01 -->\r\n\\\\<!-- entry date=2026-03-01 -->\r\n<!-- entry date=2026-03-31 key=k -->",
		"\uFEFF<!-- session-handoff:memory  layer=1 v=1 date=2026-03-05 tag=x -->\t\n<!-- entry date=2026-03-05 -->",
		"<!-- session-handoff:memory v=1 layer=1 tag=x date=2026-03-05 -->\n<!-- entry date=2026-03-05 key=-->\n",
		"<!-- session-handoff:memory v=1 layer=1 tag=x date=2026-03-05 -->\n<!-- entry -->\n",
		"<!-- session-handoff:memory-->",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on two lines: %q", err)
			}
			return
		}
		out := doc.Format()
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("formatted document does not parse: %v\n%q", err, out)
		}
		if !reflect.DeepEqual(doc, again) {
			t.Fatalf("round trip changed the document\n got %#v\nwant %#v\n%q", again, doc, out)
		}
		if !bytes.Equal(again.Format(), out) {
			t.Fatalf("format is not stable:\n%q\n%q", again.Format(), out)
		}
	})
}

// FuzzEntries builds a note from any texts and key the writers accept and
// checks that it reads back as written: parse(format(x)) == x.
func FuzzEntries(f *testing.F) {
	f.Add("# title\n", "first", "second\n<!-- entry date=2026-03-05 -->", "run/step", uint8(1))
	f.Add("", "\\<!-- entry x", "\r\nx\r\n", "", uint8(3))
	f.Add("<!-- entry date=2026-03-05 -->", "", "", "k", uint8(0))
	f.Fuzz(func(t *testing.T, title, body1, body2, key string, layer uint8) {
		h := Header{Layer: int(layer % 4), Tag: "soul", Date: "2026-03-05"}
		switch h.Layer {
		case 1:
			h.Tag = "api"
		case 2:
			h.Tag = ""
		case 3:
			h.Tag, h.Date = "api", "2026-03"
		}
		doc := &Doc{Header: h}
		if t, err := CleanText(title); err == nil {
			doc.Text = t
		}
		for _, b := range []string{body1, body2} {
			clean, err := CleanText(b)
			if err != nil {
				continue
			}
			if !hasEntries(h.Layer) {
				doc.Text = clean
				continue
			}
			e := Entry{Date: "2026-03-05", Body: clean}
			if ValidKey(key) == nil {
				e.Key = key
			}
			doc.insert(e)
		}
		got, err := Parse(doc.Format())
		if err != nil {
			t.Fatalf("%v\n%q", err, doc.Format())
		}
		if !reflect.DeepEqual(got, doc) {
			t.Fatalf("round trip\n got %#v\nwant %#v", got, doc)
		}
	})
}
