package instructions

import "testing"

// FuzzBlock checks, for any content and body, that InsertBlock and
// RemoveBlock are exact inverses on content without a block, that
// inserting is idempotent and leaves exactly one block whatever the body
// holds, that replacing keeps the text around an existing block, and that
// damaged content is refused by both.
func FuzzBlock(f *testing.F) {
	for _, seed := range []struct{ content, body string }{
		{"", ""},
		{"# Rules\n", "hello"},
		{"no newline", "x\n"},
		{"a\r\nb\r\n", "c\r\n"},
		{"a\r", "b"},
		{"intro\n\n" + BlockBegin + "\nold\n" + BlockEnd + "\noutro", "new"},
		{"  " + BlockBegin + " \r\nold\r\n\t" + BlockEnd, ""},
		{BlockBegin + "\nno end\n", "x"},
		{BlockEnd + "\n", "x"},
		{"x\n", BlockEnd + "\n" + BlockBegin + "\nx\r" + BlockEnd},
		{"see " + BlockEnd + " inline\n", "<!-- session-handoff:"},
	} {
		f.Add([]byte(seed.content), seed.body)
	}
	f.Fuzz(func(t *testing.T, content []byte, body string) {
		checkBlockProperties(t, content, body)
	})
}
