package sqlitefile

import (
	"encoding/binary"
	"fmt"
	"math"
)

// varint decodes the SQLite variable-length integer at the start of b
// (§1.6: one to nine bytes, big-endian, seven bits each but the ninth's
// eight) and returns it with its length; n is 0 when b ends inside it.
func varint(b []byte) (v uint64, n int) {
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// Value is one column's value: nil (NULL), int64, float64, string (TEXT)
// or []byte (BLOB).
type Value any

// serialSize is the size of a value of serial type t in a record's body
// (§2.1); ok is false for the reserved types 10 and 11.
func serialSize(t uint64) (size uint64, ok bool) {
	switch {
	case t <= 4:
		return [...]uint64{0, 1, 2, 3, 4}[t], true
	case t == 5:
		return 6, true
	case t == 6, t == 7:
		return 8, true
	case t == 8, t == 9:
		return 0, true
	case t == 10, t == 11:
		return 0, false
	}
	return (t - 12) / 2, true
}

// recordHeader is a record's list of serial types and where each value
// starts in the record.
type recordHeader struct {
	types   []uint64
	offsets []uint64 // offsets[i] is where value i starts; offsets[len(types)] the record's end
}

// parseHeader reads the header of a record of size bytes from b, which
// holds at least the header (§2.1).
func parseHeader(b []byte, size uint64) (recordHeader, error) {
	return parseHeaderIn(b, size, nil)
}

// parseHeaderIn is parseHeader with its two lists in buf while they fit
// (a caller's array: no allocation), else in one allocation sized for up
// to 64 values, grown past them as the header is read.
func parseHeaderIn(b []byte, size uint64, buf []uint64) (recordHeader, error) {
	hsize, n := varint(b)
	if n == 0 || hsize < uint64(n) || hsize > size || hsize > uint64(len(b)) {
		return recordHeader{}, corrupt("record header of %d bytes in a record of %d", hsize, size)
	}
	// Each serial type takes a byte or more: the header's size bounds
	// how many there are.
	k := min(hsize-uint64(n), 64)
	if uint64(len(buf)) < 2*k+1 {
		buf = make([]uint64, 2*k+1)
	} else {
		k = uint64(len(buf)-1) / 2
	}
	h := recordHeader{types: buf[:0:k], offsets: buf[k : k : 2*k+1]}
	off := hsize
	for p := uint64(n); p < hsize; {
		t, m := varint(b[p:hsize])
		if m == 0 {
			return recordHeader{}, corrupt("serial type cut by the record header's end")
		}
		p += uint64(m)
		sz, ok := serialSize(t)
		if !ok {
			return recordHeader{}, corrupt("reserved serial type %d", t)
		}
		h.types = append(h.types, t)
		h.offsets = append(h.offsets, off)
		if sz > size-off {
			return recordHeader{}, corrupt("value of %d bytes past the record's end", sz)
		}
		off += sz
	}
	h.offsets = append(h.offsets, off)
	return h, nil
}

// decodeValue decodes a value of serial type t from b, which holds
// exactly its bytes (§2.1).
func decodeValue(t uint64, b []byte) (Value, error) {
	switch t {
	case 0:
		return nil, nil
	case 1, 2, 3, 4, 5, 6, 8, 9:
		v, _ := intValue(t, b)
		return v, nil
	case 7:
		if len(b) != 8 {
			return nil, corrupt("float of %d bytes", len(b))
		}
		return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
	}
	if t%2 == 0 {
		return append([]byte(nil), b...), nil
	}
	return string(b), nil
}

// intValue is the integer of serial type t in b (types 1 to 6, 8 and 9);
// false for a value of another type.
func intValue(t uint64, b []byte) (int64, bool) {
	switch t {
	case 1, 2, 3, 4, 5, 6:
		// Big-endian two's complement, sign-extended.
		var v int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			v = -1
		}
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v, true
	case 8:
		return 0, true
	case 9:
		return 1, true
	}
	return 0, false
}

// describe names a value's type for errors.
func describe(v Value) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case int64:
		return "integer"
	case float64:
		return "real"
	case string:
		return "text"
	case []byte:
		return "blob"
	}
	return fmt.Sprintf("%T", v)
}
