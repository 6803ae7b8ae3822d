package bundle

import "io"

// frameScanner passes a zstd stream through unchanged while following its
// frame structure (frame header, block headers, checksum) without decoding
// anything, so that it can insist on exactly one frame: no skippable frames
// and no further frames, which a zstd decoder would accept silently and
// which could carry data the signature does not cover. Corruption inside
// the frame is left to the decoder.
type frameScanner struct {
	r     io.Reader
	st    *state
	state int
	need  int    // bytes still wanted in the current state
	hdr   []byte // frame or block header being collected
	check bool   // the frame has a content checksum
	err   error
}

const (
	zsFrameHeader = iota // collecting magic + frame header descriptor
	zsFrameRest          // collecting the rest of the frame header
	zsBlockHeader        // collecting a 3-byte block header
	zsBlockBody          // skipping block content
	zsLastBody           // skipping the content of the last block
	zsChecksum           // skipping the 4-byte checksum
	zsDone               // the frame ended: nothing may follow
)

func newFrameScanner(r io.Reader, st *state) *frameScanner {
	return &frameScanner{r: r, st: st, state: zsFrameHeader, need: 5}
}

func (s *frameScanner) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if n > 0 {
		if e := s.scan(p[:n]); e != nil {
			s.err = s.st.set(e)
			return 0, s.err
		}
	}
	if err == io.EOF && s.state == zsDone && len(s.hdr) > 0 {
		s.err = s.st.set(s.trailing())
		return 0, s.err
	}
	// A truncated frame is left to the decoder to report.
	return n, err
}

func (s *frameScanner) trailing() *Error {
	h := s.hdr
	if len(h) == 4 && h[0]&0xF0 == 0x50 && h[1] == 0x2A && h[2] == 0x4D && h[3] == 0x18 {
		return errorf(ErrMalformed, "zstd: skippable frame after the compressed stream")
	}
	return errorf(ErrMalformed, "zstd: trailing data after the compressed stream")
}

func (s *frameScanner) scan(b []byte) *Error {
	for len(b) > 0 {
		switch s.state {
		case zsDone:
			// Collect up to 4 bytes to say what trails.
			k := min(4-len(s.hdr), len(b))
			s.hdr = append(s.hdr, b[:k]...)
			if len(s.hdr) == 4 {
				return s.trailing()
			}
			return nil
		case zsBlockBody, zsLastBody, zsChecksum:
			k := min(s.need, len(b))
			s.need -= k
			b = b[k:]
			if s.need == 0 {
				s.advance()
			}
		default:
			k := min(s.need, len(b))
			s.hdr = append(s.hdr, b[:k]...)
			s.need -= k
			b = b[k:]
			if s.need == 0 {
				if e := s.header(); e != nil {
					return e
				}
			}
		}
	}
	return nil
}

// advance moves on after skipped content.
func (s *frameScanner) advance() {
	switch s.state {
	case zsBlockBody:
		s.state, s.need, s.hdr = zsBlockHeader, 3, s.hdr[:0]
	case zsLastBody:
		if s.check {
			s.state, s.need = zsChecksum, 4
		} else {
			s.state, s.hdr = zsDone, s.hdr[:0]
		}
	case zsChecksum:
		s.state, s.hdr = zsDone, s.hdr[:0]
	}
}

// header interprets a completed header.
func (s *frameScanner) header() *Error {
	switch s.state {
	case zsFrameHeader:
		if string(s.hdr[:4]) != zstdMagic {
			return errorf(ErrMalformed, "zstd: not a zstd frame")
		}
		fhd := s.hdr[4]
		single := fhd&0x20 != 0
		s.check = fhd&0x04 != 0
		if !s.check {
			// The checksum is what proves the decompressed bytes whole
			// before any of the archive is believed; the format
			// requires it.
			return errorf(ErrMalformed, "zstd: the frame has no content checksum")
		}
		rest := []int{0, 1, 2, 4}[fhd&0x03] // dictionary id
		rest += []int{0, 2, 4, 8}[fhd>>6]   // content size
		if single && fhd>>6 == 0 {
			rest++
		}
		if !single {
			rest++ // window descriptor
		}
		s.hdr = s.hdr[:0]
		if rest == 0 {
			s.state, s.need = zsBlockHeader, 3
		} else {
			s.state, s.need = zsFrameRest, rest
		}
	case zsFrameRest:
		s.state, s.need, s.hdr = zsBlockHeader, 3, s.hdr[:0]
	case zsBlockHeader:
		h := int(s.hdr[0]) | int(s.hdr[1])<<8 | int(s.hdr[2])<<16
		last, typ, size := h&1 == 1, (h>>1)&3, h>>3
		if typ == 1 { // RLE: one byte repeated size times
			size = 1
		}
		s.hdr = s.hdr[:0]
		s.state, s.need = zsBlockBody, size
		if last {
			s.state = zsLastBody
		}
		if size == 0 {
			s.advance()
		}
	}
	return nil
}
