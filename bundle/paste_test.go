package bundle

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func unwrap(t *testing.T, in string) (string, error) {
	t.Helper()
	out, err := io.ReadAll(newPasteReader(bufio.NewReader(strings.NewReader(in))))
	return string(out), err
}

func TestPasteReader(t *testing.T) {
	block := ArmorHeader + "\nQUJD\n" + ArmorFooter + "\n"
	for _, tc := range []struct{ name, in string }{
		{"clean", block},
		{"text around", "see below\n" + block + "thanks\n"},
		{"fence", "```\n" + block + "```\n"},
		{"quoted", "> " + strings.ReplaceAll(strings.TrimSuffix(block, "\n"), "\n", "\n> ") + "\n"},
		{"nested quote", ">> " + strings.ReplaceAll(strings.TrimSuffix(block, "\n"), "\n", "\n> > ") + "\n"},
		{"indented", "    " + strings.ReplaceAll(strings.TrimSuffix(block, "\n"), "\n", "\n    ") + "\n"},
		{"trailing spaces and CRLF", strings.ReplaceAll(block, "\n", "  \r\n")},
		{"no final newline", strings.TrimSuffix(block, "\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := unwrap(t, tc.in)
			if err != nil || got != block {
				t.Fatalf("got %q, %v; want %q", got, err, block)
			}
		})
	}
	for _, tc := range []struct{ name, in, want string }{
		{"no block", "hello\nworld\n", "holds no armored bundle"},
		{"empty", "", "holds no armored bundle"},
		{"two blocks", block + "and\n" + block, "more than one armored bundle"},
		{"too much text before", strings.Repeat("x", maxPasteText+1) + "\n" + block, "text before"},
		{"too much text after", block + strings.Repeat("y\n", maxPasteText/2+1), "text after"},
		{"long line inside", ArmorHeader + "\n" + strings.Repeat("A", armorColumns+maxPasteIndent+1) + "\n" + ArmorFooter + "\n", "line longer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := unwrap(t, tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}
