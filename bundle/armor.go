package bundle

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
)

// The armor of an unencrypted bundle. (An encrypted bundle uses age's own
// armor, "-----BEGIN AGE ENCRYPTED FILE-----", so that `age -d` reads it.)
// Like age's it is strict PEM: the header line, standard base64 with
// padding in lines of exactly 64 characters (the last may be shorter), the
// footer line, no headers. Lines may end in CRLF; white space may precede
// the header and follow the footer.
const (
	ArmorHeader = "-----BEGIN SESSION-HANDOFF BUNDLE-----"
	ArmorFooter = "-----END SESSION-HANDOFF BUNDLE-----"
)

const (
	armorColumns      = 64
	armorBytesPerLine = armorColumns / 4 * 3
	maxWhitespace     = 1024
)

// armorWriter base64-encodes what is written to it in 64-column lines
// between ArmorHeader and ArmorFooter.
type armorWriter struct {
	dst     io.Writer
	started bool
	buf     [armorBytesPerLine]byte
	n       int
	line    [armorColumns + 1]byte
	closed  bool
}

func newArmorWriter(dst io.Writer) *armorWriter { return &armorWriter{dst: dst} }

func (a *armorWriter) start() error {
	if a.started {
		return nil
	}
	a.started = true
	_, err := io.WriteString(a.dst, ArmorHeader+"\n")
	return err
}

func (a *armorWriter) flushLine(n int) error {
	enc := base64.StdEncoding.EncodedLen(n)
	base64.StdEncoding.Encode(a.line[:enc], a.buf[:n])
	a.line[enc] = '\n'
	_, err := a.dst.Write(a.line[:enc+1])
	return err
}

func (a *armorWriter) Write(p []byte) (int, error) {
	if a.closed {
		return 0, errors.New("armor writer closed")
	}
	if err := a.start(); err != nil {
		return 0, err
	}
	written := 0
	for len(p) > 0 {
		c := copy(a.buf[a.n:], p)
		a.n += c
		p = p[c:]
		written += c
		if a.n == armorBytesPerLine {
			if err := a.flushLine(a.n); err != nil {
				return written, err
			}
			a.n = 0
		}
	}
	return written, nil
}

func (a *armorWriter) Close() error {
	if a.closed {
		return nil
	}
	a.closed = true
	if err := a.start(); err != nil {
		return err
	}
	if a.n > 0 {
		if err := a.flushLine(a.n); err != nil {
			return err
		}
	}
	_, err := io.WriteString(a.dst, ArmorFooter+"\n")
	return err
}

// armorReader decodes our armor strictly: the header (the caller has
// already skipped leading white space), full 64-column lines of strict
// base64, one shorter last line, the footer, then only white space.
type armorReader struct {
	r       *bufio.Reader
	started bool
	done    bool
	unread  []byte
	buf     [armorBytesPerLine]byte
	err     error
}

func newArmorReader(r *bufio.Reader) *armorReader { return &armorReader{r: r} }

// armorErrorf reports malformed armor; Read prefixes "armor: ".
func armorErrorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}

// readLine reads one line of at most armorColumns+2 bytes, without its
// line ending (LF or CRLF).
func (a *armorReader) readLine() ([]byte, error) {
	line, err := a.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull || len(line) > armorColumns+2 {
		return nil, armorErrorf("line longer than %d characters", armorColumns)
	}
	if err == io.EOF {
		if len(line) == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		// A last line without a line ending.
	} else if err != nil {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}

func (a *armorReader) Read(p []byte) (int, error) {
	for len(a.unread) == 0 {
		if a.err != nil {
			return 0, a.err
		}
		a.err = a.next()
	}
	n := copy(p, a.unread)
	a.unread = a.unread[n:]
	return n, nil
}

// next decodes the next line into a.unread, or returns the error (io.EOF
// at the proper end) that ends the stream.
func (a *armorReader) next() error {
	if !a.started {
		line, err := a.readLine()
		if err == io.ErrUnexpectedEOF {
			return armorErrorf("missing header line")
		} else if err != nil {
			return err
		}
		if string(line) != ArmorHeader {
			return armorErrorf("invalid header line")
		}
		a.started = true
	}
	if a.done {
		return io.EOF
	}
	line, err := a.readLine()
	if err == io.ErrUnexpectedEOF {
		return armorErrorf("truncated: no footer line")
	} else if err != nil {
		return err
	}
	if string(line) == ArmorFooter {
		return a.finish()
	}
	if len(line) == 0 || len(line) > armorColumns {
		return armorErrorf("line of %d characters, want at most %d", len(line), armorColumns)
	}
	// Go's decoder skips \r and \n even in strict mode; armor is
	// canonical, so any byte outside the alphabet is refused here, and a
	// line with padding must be the last one.
	for _, c := range line {
		if !isBase64Char(c) {
			return armorErrorf("invalid base64")
		}
	}
	n, err := base64.StdEncoding.Strict().Decode(a.buf[:], line)
	if err != nil {
		return armorErrorf("invalid base64")
	}
	a.unread = a.buf[:n]
	if len(line) < armorColumns || n < armorColumns/4*3 {
		// A short or padded line is the last one: the footer must follow.
		footer, err := a.readLine()
		if err != nil || string(footer) != ArmorFooter {
			return armorErrorf("missing footer line after the last short line")
		}
		a.done = true
		if err := a.finish(); err != io.EOF {
			return err
		}
	}
	return nil
}

// finish checks that only a bounded amount of white space follows the
// footer.
func (a *armorReader) finish() error {
	a.done = true
	rest, err := io.ReadAll(io.LimitReader(a.r, maxWhitespace+1))
	if err != nil {
		return err
	}
	// Only the white space a paste adds: spaces, tabs and line ends
	// (bytes.TrimSpace would also pass form feeds and Unicode spaces).
	if len(bytes.Trim(rest, " \t\r\n")) != 0 {
		return armorErrorf("trailing data after the footer")
	}
	if len(rest) > maxWhitespace {
		return armorErrorf("too much trailing white space")
	}
	return io.EOF
}

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '='
}
