package bundle

import (
	"bufio"
	"bytes"
	"io"

	"filippo.io/age/armor"
)

// Pasted armor
//
// An armored bundle pasted from chat or mail arrives wrapped: text before
// and after it, Markdown fences around it, a quote prefix ("> ") or
// indentation on every line, trailing spaces, CRLF line ends. pasteReader
// unwraps those forms as a stream and hands the armor reader the canonical
// block: it finds the first line that is an armor header once its prefix of
// white space and '>' is taken off, takes the same prefix class and any
// trailing white space off every line up to the footer, and ignores the
// text around the block. What it keeps is checked as strictly as before
// (64-column base64, header and footer), and age authenticates every byte
// of an encrypted bundle, so unwrapping costs no security. Bounds: text
// before the block and after it at most maxPasteText bytes each, a line
// inside the block at most armorColumns+maxPasteIndent bytes, and a second
// armor header after the first block is refused (two bundles in one paste
// would make "which one was read" a question).

const (
	// maxPasteText bounds the text before and after the armored block.
	maxPasteText = 1 << 20
	// maxPasteIndent bounds the prefix and trailing white space of a line
	// inside the block.
	maxPasteIndent = 256
)

// errNoArmorInPaste is the error for text that holds no armored bundle.
var errNoArmorInPaste = errorf(ErrMalformed, "not a session-handoff bundle: input starts with neither age, zstd nor armor, and holds no armored bundle")

// pasteReader is the canonical armored block found in pasted text.
type pasteReader struct {
	r       *bufio.Reader
	out     []byte // the canonical lines not yet read
	phase   int    // 0: before the header, 1: inside the block, 2: done
	footer  string
	skipped int
	// midLine is set while a line longer than the buffer is read in
	// pieces: a piece that does not start a line is never a header.
	midLine bool
	err     error
}

func newPasteReader(r *bufio.Reader) *pasteReader { return &pasteReader{r: r} }

// unquote takes off a line's prefix of white space and quote markers, and
// its trailing white space (CR included).
func unquote(line []byte) []byte {
	line = bytes.TrimLeft(line, " \t>")
	return bytes.TrimRight(line, " \t\r\n")
}

// readLine reads one line; a line longer than the buffer is read in
// pieces, and start says whether this piece starts a line.
func (p *pasteReader) readLine() (line []byte, start bool, err error) {
	start = !p.midLine
	line, err = p.r.ReadSlice('\n')
	p.midLine = err == bufio.ErrBufferFull
	if err == bufio.ErrBufferFull {
		err = nil
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	return line, start, err
}

func (p *pasteReader) Read(b []byte) (int, error) {
	for len(p.out) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		p.err = p.next()
	}
	n := copy(b, p.out)
	p.out = p.out[n:]
	return n, nil
}

func (p *pasteReader) next() error {
	switch p.phase {
	case 0:
		return p.findHeader()
	case 1:
		return p.blockLine()
	}
	return p.trailer()
}

func (p *pasteReader) findHeader() error {
	for {
		line, start, err := p.readLine()
		if err == io.EOF {
			return errNoArmorInPaste
		}
		if err != nil {
			return err
		}
		p.skipped += len(line)
		if p.skipped > maxPasteText {
			return armorErrorf("more than %d bytes of text before the armored bundle", maxPasteText)
		}
		if !start || p.midLine {
			continue
		}
		switch string(unquote(line)) {
		case ArmorHeader:
			p.footer = ArmorFooter
		case armor.Header:
			p.footer = armor.Footer
		default:
			continue
		}
		p.phase, p.skipped = 1, 0
		p.out = append(unquote(line), '\n')
		return nil
	}
}

func (p *pasteReader) blockLine() error {
	line, start, err := p.readLine()
	if err == io.EOF {
		// The armor reader reports the missing footer.
		return io.EOF
	}
	if err != nil {
		return err
	}
	if !start || p.midLine || len(line) > armorColumns+maxPasteIndent {
		return armorErrorf("line longer than %d characters", armorColumns)
	}
	kept := unquote(line)
	if string(kept) == p.footer {
		p.phase = 2
	}
	p.out = append(kept, '\n')
	return nil
}

// trailer reads the text after the block: bounded, and without a second
// bundle in it.
func (p *pasteReader) trailer() error {
	for {
		line, start, err := p.readLine()
		if err == io.EOF {
			return io.EOF
		}
		if err != nil {
			return err
		}
		p.skipped += len(line)
		if p.skipped > maxPasteText {
			return armorErrorf("more than %d bytes of text after the armored bundle", maxPasteText)
		}
		if !start || p.midLine {
			continue
		}
		if h := string(unquote(line)); h == ArmorHeader || h == armor.Header {
			return armorErrorf("more than one armored bundle in the text")
		}
	}
}
