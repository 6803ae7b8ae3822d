package bundle

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// armorEncode is what the writer makes of payload.
func armorEncode(t testing.TB, payload []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := newArmorWriter(&buf)
	if _, err := w.Write(payload); err != nil {
		t.Fatalf("armor writer: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("armor writer: close: %v", err)
	}
	return buf.Bytes()
}

// armorDecode runs our armor decoder over r as Read does.
func armorDecode(r io.Reader) ([]byte, error) {
	return io.ReadAll(newArmorReader(bufio.NewReaderSize(r, 64<<10)))
}

// canonicalArmor is text as the writer would have written it, given the
// variations the reader tolerates: CRLF line ends, and white space (or no
// line end) after the footer.
func canonicalArmor(text []byte) []byte {
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	return []byte(strings.TrimRight(s, " \t\r\n") + "\n")
}

// FuzzArmor feeds arbitrary text to our armor decoder (armorReader). It
// must not panic, must decide the same however the input is split into
// reads, and whatever it accepts must be canonical: encoding the decoded
// bytes again gives the input back, up to CRLF line ends and white space
// after the footer. Encoding then decoding any input as a payload must
// give it back too.
func FuzzArmor(f *testing.F) {
	line := func(s string) string { return s + "\n" }
	for _, p := range [][]byte{
		nil,
		[]byte("x"),
		bytes.Repeat([]byte("a"), armorBytesPerLine-1),
		bytes.Repeat([]byte("b"), armorBytesPerLine),
		bytes.Repeat([]byte("c"), armorBytesPerLine+1),
		[]byte(zstdMagic + "\x00\x01\x02\xff\xfe not really zstd"),
		bytes.Repeat([]byte{0, 0xff, 0x7f, '\n', '\r'}, 100),
	} {
		good := armorEncode(f, p)
		f.Add(good)
		f.Add(bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")))                         // CRLF
		f.Add(append(bytes.TrimSuffix(bytes.Clone(good), []byte("\n")), " \r\n\t\n"...))    // white space after the footer
		f.Add(bytes.TrimSuffix(bytes.Clone(good), []byte("\n")))                            // no final line end
		f.Add(good[:len(good)-len(ArmorFooter)-1])                                          // missing footer
		f.Add(append(bytes.Clone(good), "more text\n"...))                                  // trailing data
		f.Add(append(bytes.Clone(good), bytes.Repeat([]byte(" "), maxWhitespace+1)...))     // too much white space
		f.Add(bytes.Replace(good, []byte(ArmorHeader+"\n"), nil, 1))                        // missing header
		f.Add(bytes.Replace(good, []byte("BEGIN SESSION-HANDOFF"), []byte("BEGIN AGE"), 1)) // someone else's header
		f.Add(bytes.Replace(good, []byte(ArmorFooter), []byte("-----END AGE ENCRYPTED FILE-----"), 1))
	}
	big := armorEncode(f, bytes.Repeat([]byte("session-handoff armor "), 20))
	f.Add(bytes.Replace(big, []byte("\n"), nil, 2))                                    // overlong line (two joined)
	f.Add(bytes.Replace(big, []byte("\n"), []byte("A\n"), 2))                          // 65-column lines
	f.Add(bytes.Replace(big, []byte("c2Vz"), []byte("c2V*"), 1))                       // bad base64 character
	f.Add(bytes.Replace(big, []byte("\n"), []byte("=\n"), 2))                          // misplaced padding
	f.Add([]byte(line(ArmorHeader) + line("QUJD") + line("QUJD") + line(ArmorFooter))) // two short lines
	f.Add([]byte(line(ArmorHeader) + line("QUJ") + line(ArmorFooter)))                 // unpadded
	f.Add([]byte(line(ArmorHeader) + line("QUI=") + line(ArmorFooter)))
	f.Add([]byte(line(ArmorHeader) + line("QR==") + line(ArmorFooter))) // non-zero padding bits
	f.Add([]byte(line(ArmorHeader) + line("") + line(ArmorFooter)))     // empty line
	f.Add([]byte(line(ArmorHeader) + ArmorFooter))
	f.Add([]byte(line(ArmorHeader) + "QUFB\r\r\n" + line(ArmorFooter)))                                           // stray \r inside a line
	f.Add([]byte(line(ArmorHeader) + line(strings.Repeat("QUFB", 15)+"QQ==") + line("QUFB") + line(ArmorFooter))) // padding mid-armor
	f.Add([]byte(ArmorHeader))
	f.Add([]byte(line(ArmorHeader) + strings.Repeat("A", 5000) + "\n" + line(ArmorFooter)))

	f.Fuzz(func(t *testing.T, data []byte) {
		// The encoder round-trips any payload.
		enc := armorEncode(t, data)
		if got, err := armorDecode(bytes.NewReader(enc)); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("encoding of %d bytes does not decode back (err %v)", len(data), err)
		}

		// The decoder, over the same input in one piece and byte by byte.
		got, err := armorDecode(bytes.NewReader(data))
		got1, err1 := armorDecode(iotest.OneByteReader(bytes.NewReader(data)))
		if (err == nil) != (err1 == nil) || !bytes.Equal(got, got1) {
			t.Fatalf("decoding depends on read sizes: %v (%d bytes) vs %v (%d bytes) one byte at a time", err, len(got), err1, len(got1))
		}
		if err != nil {
			if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\r\n") {
				t.Fatalf("badly formed error message %q", msg)
			}
			return
		}
		if again := armorEncode(t, got); !bytes.Equal(again, canonicalArmor(data)) {
			t.Fatalf("accepted armor is not canonical: decoded %d bytes, which encode to\n%q\nnot\n%q", len(got), again, data)
		}
	})
}

// TestArmorRefusesNonCanonical pins two inputs Go's base64 decoder would
// accept: a stray carriage return inside a line, and a full line that ends
// in padding with more lines after it.
func TestArmorRefusesNonCanonical(t *testing.T) {
	line := func(s string) string { return s + "\n" }
	for name, in := range map[string]string{
		"stray CR":        line(ArmorHeader) + "QUFB\r\r\n" + line(ArmorFooter),
		"padding mid-way": line(ArmorHeader) + line(strings.Repeat("QUFB", 15)+"QQ==") + line("QUFB") + line(ArmorFooter),
	} {
		if _, err := io.ReadAll(newArmorReader(bufio.NewReader(strings.NewReader(in)))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
