package search

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// A document's record holds its fields, then its units in chunks, each
// compressed by itself:
//
//	10 strings  key, type, agent, id, path, title, cwd, root commit,
//	            remote, machine: each a uvarint length and its bytes
//	time        varint, Unix seconds
//	units       uvarint count of units, uvarint count of chunks, then
//	            per chunk: uvarint units in it, uvarint length of their
//	            encoding, a byte of method (0 stored, 1 zstd), uvarint
//	            length stored, and the bytes stored
//
// A unit's encoding is a byte of kind, a uvarint length and the text.
// A search reads the fields of every hit it weighs and, of those it
// shows, the one chunk that holds the unit its snippet is cut from: the
// units are most of an index, text compresses, and a chunk of
// chunkBytes decompresses in microseconds.
const (
	unitsStored = 0
	unitsZstd   = 1
	// chunkBytes is the least text a chunk gathers before the next unit
	// starts another (a unit longer than it is a chunk of its own).
	chunkBytes = 16 << 10
)

// The compressors of the records' chunks, made on first use (a command
// that does not search pays nothing for them: the package has no init)
// and shared: EncodeAll and DecodeAll may be called from many goroutines
// at once.
var (
	encoderOnce, decoderOnce sync.Once
	encoder                  *zstd.Encoder
	decoder                  *zstd.Decoder
)

// recordEncoder compresses a record's chunks.
func recordEncoder() *zstd.Encoder {
	encoderOnce.Do(func() {
		var err error
		encoder, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)))
		if err != nil {
			panic(err) // only for options out of range
		}
	})
	return encoder
}

// recordDecoder decompresses a record's chunks, each within maxRecord
// bytes whatever its frame claims.
func recordDecoder() *zstd.Decoder {
	decoderOnce.Do(func() {
		var err error
		decoder, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
			zstd.WithDecoderMaxMemory(maxRecord), zstd.WithDecoderMaxWindow(maxRecord))
		if err != nil {
			panic(err)
		}
	})
	return decoder
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeDoc is d's record.
func encodeDoc(d *Doc) []byte {
	var b []byte
	for _, s := range []string{d.Key, d.Type, d.Agent, d.ID, d.Path, d.Title, d.CWD, d.RootCommit, d.Remote, d.Machine} {
		b = appendString(b, s)
	}
	b = binary.AppendVarint(b, d.Time.Unix())
	b = binary.AppendUvarint(b, uint64(len(d.Units)))
	var chunks [][]byte
	var counts []int
	var raw []byte
	for i, u := range d.Units {
		raw = append(raw, byte(u.Kind))
		raw = appendString(raw, u.Text)
		if len(counts) == len(chunks) {
			counts = append(counts, 0)
		}
		counts[len(counts)-1]++
		if len(raw) >= chunkBytes || i == len(d.Units)-1 {
			chunks = append(chunks, raw)
			raw = nil
		}
	}
	b = binary.AppendUvarint(b, uint64(len(chunks)))
	for i, c := range chunks {
		b = binary.AppendUvarint(b, uint64(counts[i]))
		b = binary.AppendUvarint(b, uint64(len(c)))
		z := recordEncoder().EncodeAll(c, make([]byte, 0, len(c)/2+64))
		if len(z) < len(c) {
			b = append(b, unitsZstd)
			c = z
		} else {
			b = append(b, unitsStored)
		}
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b
}

// decodeDoc reads the fields of a record encodeDoc wrote and returns them
// with what follows, its units still encoded (decodeUnits, unitText).
func decodeDoc(rec []byte) (*Doc, []byte, error) {
	r := bytes.NewReader(rec)
	d := &Doc{}
	for _, p := range []*string{&d.Key, &d.Type, &d.Agent, &d.ID, &d.Path, &d.Title, &d.CWD, &d.RootCommit, &d.Remote, &d.Machine} {
		s, err := readString(r, maxRecord)
		if err != nil {
			return nil, nil, err
		}
		*p = s
	}
	t, err := binary.ReadVarint(r)
	if err != nil {
		return nil, nil, errCorrupt
	}
	d.Time = time.Unix(t, 0).UTC()
	return d, rec[len(rec)-r.Len():], nil
}

// chunk is one chunk of a record's units, as stored.
type chunk struct {
	units  int
	raw    uint64
	method byte
	data   []byte
}

// eachChunk calls fn with each chunk of units (what decodeDoc left) and
// the number of the chunk's first unit, until fn returns false.
func eachChunk(units []byte, fn func(c chunk, first int) (bool, error)) error {
	r := bytes.NewReader(units)
	n, err1 := binary.ReadUvarint(r)
	nc, err2 := binary.ReadUvarint(r)
	if err1 != nil || err2 != nil || n > maxRecord || nc > n {
		return errCorrupt
	}
	first := 0
	for range nc {
		k, e1 := binary.ReadUvarint(r)
		raw, e2 := binary.ReadUvarint(r)
		method, e3 := r.ReadByte()
		size, e4 := binary.ReadUvarint(r)
		if e1 != nil || e2 != nil || e3 != nil || e4 != nil || k == 0 || k > n-uint64(first) || raw > maxRecord || size > uint64(r.Len()) {
			return errCorrupt
		}
		at := len(units) - r.Len()
		r.Seek(int64(size), 1)
		more, err := fn(chunk{units: int(k), raw: raw, method: method, data: units[at : at+int(size)]}, first)
		if err != nil || !more {
			return err
		}
		first += int(k)
	}
	if first != int(n) || r.Len() != 0 {
		return errCorrupt
	}
	return nil
}

// open is the chunk's encoded units, decompressed.
func (c chunk) open() ([]byte, error) {
	out := c.data
	switch c.method {
	case unitsStored:
	case unitsZstd:
		var err error
		// The length is the record's word: room for it is made only as
		// far as the compressed bytes could plausibly hold, and the
		// decoder stops at maxRecord whatever the frame says.
		if out, err = recordDecoder().DecodeAll(c.data, make([]byte, 0, min(c.raw, 16*uint64(len(c.data))+4096))); err != nil {
			return nil, fmt.Errorf("%w: %v", errCorrupt, err)
		}
	default:
		return nil, errCorrupt
	}
	if uint64(len(out)) != c.raw {
		return nil, errCorrupt
	}
	return out, nil
}

// eachUnit calls fn with each unit of c, its text valid only during the
// call, until fn returns false.
func (c chunk) eachUnit(fn func(k Kind, text []byte) bool) error {
	raw, err := c.open()
	if err != nil {
		return err
	}
	for range c.units {
		if len(raw) == 0 || Kind(raw[0]) >= numKinds {
			return errCorrupt
		}
		k := Kind(raw[0])
		n, m := binary.Uvarint(raw[1:])
		if m <= 0 || n > uint64(len(raw)-1-m) {
			return errCorrupt
		}
		text := raw[1+m : 1+m+int(n)]
		raw = raw[1+m+int(n):]
		if !fn(k, text) {
			return nil
		}
	}
	if len(raw) != 0 {
		return errCorrupt
	}
	return nil
}

// decodeUnits reads every unit of a record (what decodeDoc left).
func decodeUnits(units []byte) ([]Unit, error) {
	var list []Unit
	err := eachChunk(units, func(c chunk, _ int) (bool, error) {
		return true, c.eachUnit(func(k Kind, text []byte) bool {
			list = append(list, Unit{Kind: k, Text: string(text)})
			return true
		})
	})
	return list, err
}

// unitText is the text of unit u of a record (what decodeDoc left),
// reading only the chunk that holds it; "" when there is no such unit.
func unitText(units []byte, u int) (string, error) {
	var text string
	err := eachChunk(units, func(c chunk, first int) (bool, error) {
		if u >= first+c.units {
			return true, nil
		}
		i := first
		return false, c.eachUnit(func(_ Kind, t []byte) bool {
			if i == u {
				text = string(t)
				return false
			}
			i++
			return true
		})
	})
	return text, err
}
