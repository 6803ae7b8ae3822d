package changes

import (
	"bytes"
	"compress/zlib"
	"errors"
	"io"
)

// base85 reads the lines of one block of a "GIT binary patch": each line
// a length character ('A'-'Z' for 1-26 bytes, 'a'-'z' for 27-52), then
// the bytes in git's base-85 (five characters for each four bytes, the
// last group cut to the length). It decodes a line at a time, as asked.
type base85 struct {
	lines [][]byte
	buf   []byte
}

// en85 is git's base-85 alphabet (base85.c).
const en85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"

var errBase85 = errors.New("bad binary patch line")

func (b *base85) Read(p []byte) (int, error) {
	for len(b.buf) == 0 {
		if len(b.lines) == 0 {
			return 0, io.EOF
		}
		line := bytes.TrimSuffix(b.lines[0], []byte("\n"))
		b.lines = b.lines[1:]
		if len(line) == 0 {
			return 0, errBase85
		}
		var n int
		switch c := line[0]; {
		case 'A' <= c && c <= 'Z':
			n = int(c-'A') + 1
		case 'a' <= c && c <= 'z':
			n = int(c-'a') + 27
		default:
			return 0, errBase85
		}
		enc := line[1:]
		if len(enc) != (n+3)/4*5 {
			return 0, errBase85
		}
		for i := 0; i < len(enc); i += 5 {
			var acc uint64
			for _, c := range enc[i : i+5] {
				d := bytes.IndexByte([]byte(en85), c)
				if d < 0 {
					return 0, errBase85
				}
				acc = acc*85 + uint64(d)
			}
			if acc > 0xffffffff {
				return 0, errBase85
			}
			group := []byte{byte(acc >> 24), byte(acc >> 16), byte(acc >> 8), byte(acc)}
			b.buf = append(b.buf, group[:min(4, n-len(b.buf))]...)
		}
	}
	k := copy(p, b.buf)
	b.buf = b.buf[k:]
	return k, nil
}

// deltaResultSize reads the header of a binary delta block (its lines,
// base-85 of zlib data) and returns the size the delta says its result
// has: the second of two base-128 numbers, after the size of its source
// (git's delta format, patch-delta.c). Only the first bytes are inflated.
func deltaResultSize(lines [][]byte) (uint64, error) {
	z, err := zlib.NewReader(&base85{lines: lines})
	if err != nil {
		return 0, errors.New("a binary delta that does not inflate")
	}
	defer z.Close()
	var head [20]byte
	n, err := io.ReadFull(z, head[:])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return 0, errors.New("a binary delta that does not inflate")
	}
	rest := head[:n]
	var sizes [2]uint64
	for i := range sizes {
		var shift uint
		for {
			if len(rest) == 0 || shift > 63 {
				return 0, errors.New("a binary delta without its sizes")
			}
			c := rest[0]
			rest = rest[1:]
			sizes[i] |= uint64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				break
			}
		}
	}
	return sizes[1], nil
}
