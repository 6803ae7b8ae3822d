package bundle

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
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
		{"header inside a long line", strings.Repeat("x", 70000) + block, "holds no armored bundle"},
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

// FuzzPaste feeds arbitrary text to the paste unwrapper. It must not
// panic, must give the same answer however the input is split into reads,
// and what it keeps must be one block: a header line first, and no line
// with white space or a quote marker around it.
func FuzzPaste(f *testing.F) {
	block := ArmorHeader + "\nQUJD\n" + ArmorFooter + "\n"
	f.Add("")
	f.Add(block)
	f.Add("hi\n> " + strings.ReplaceAll(block, "\n", "\n> "))
	f.Add("```\n" + strings.ReplaceAll(block, "\n", "  \r\n") + "```\n")
	f.Add(block + block)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := io.ReadAll(newPasteReader(bufio.NewReader(strings.NewReader(in))))
		got1, err1 := io.ReadAll(newPasteReader(bufio.NewReaderSize(iotestOneByte(strings.NewReader(in)), 1024)))
		if (err == nil) != (err1 == nil) || string(got) != string(got1) {
			t.Fatalf("split reads differ: %q %v / %q %v", got, err, got1, err1)
		}
		if err != nil || len(got) == 0 {
			return
		}
		lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
		if lines[0] != ArmorHeader && lines[0] != "-----BEGIN AGE ENCRYPTED FILE-----" {
			t.Fatalf("first line %q", lines[0])
		}
		for _, l := range lines {
			if strings.TrimRight(strings.TrimLeft(l, " \t>"), " \t\r") != l {
				t.Fatalf("line %q kept its wrapping", l)
			}
		}
	})
}

// iotestOneByte reads one byte at a time.
func iotestOneByte(r io.Reader) io.Reader { return oneByte{r} }

type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// TestSplicedArmorIsNamedDamaged: a pasted bundle whose header lines were
// taken from another bundle to the same reader cannot be opened, and the
// error says the paste may be damaged before it says the bundle may be
// someone else's (age cannot tell the two apart).
func TestSplicedArmorIsNamedDamaged(t *testing.T) {
	k := loadKeys(t)
	opts := WriteOptions{Armor: true, Recipients: []crypto.RecipientInfo{k.recipient()}}
	a := strings.Split(string(writeBundle(t, testManifest(fixedRecord()), nil, opts)), "\n")
	other := fixedRecord()
	other.Title = "another handoff"
	b := strings.Split(string(writeBundle(t, testManifest(other), nil, opts)), "\n")
	spliced := strings.Join(append(append(append([]string{"here it is:", ""}, a[:2]...), b[2]), a[3:]...), "\n")
	_, err := Read(strings.NewReader(spliced), k.readOptions())
	if !errors.Is(err, ErrNoIdentity) || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("spliced paste: %v, want ErrNoIdentity saying it may be damaged", err)
	}
	// A whole bundle to someone else still says so.
	stranger := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{Armor: true, Recipients: []crypto.RecipientInfo{k.strangerRecipient()}})
	if _, err := Read(bytes.NewReader(stranger), k.readOptions()); !errors.Is(err, ErrNoIdentity) || !strings.Contains(err.Error(), "someone else") {
		t.Fatalf("stranger's bundle: %v", err)
	}
}
