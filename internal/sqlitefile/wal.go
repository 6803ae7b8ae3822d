package sqlitefile

import (
	"encoding/binary"
	"fmt"
	"io"
)

// The WAL's magic numbers (§4.1): the low bit says the checksums' byte
// order, big-endian when set.
const (
	walMagicLE = 0x377f0682
	walMagicBE = 0x377f0683
)

// walHeaderSize and walFrameHeaderSize are the sizes of the WAL header
// and of each frame's header (§4.1).
const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
)

// readWAL reads the write-ahead log as SQLite recovers it (§4.1-4.3): the
// frames from the start whose salts match the header's and whose
// cumulative checksums are right, up to the first that is not; of those,
// the frames up to the last commit frame (one with a non-zero database
// size) are the database's newest content, the later frame of a page
// winning. A WAL whose header is not valid is ignored, as SQLite ignores
// it; so is a WAL of another page size.
func (db *DB) readWAL(wal io.ReaderAt, size int64) error {
	if size > db.lim.MaxFile {
		return fmt.Errorf("%d bytes, more than the %d read", size, db.lim.MaxFile)
	}
	var h [walHeaderSize]byte
	if size < walHeaderSize {
		return nil
	}
	if _, err := wal.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("read the header: %w", err)
	}
	magic := binary.BigEndian.Uint32(h[0:4])
	if magic != walMagicLE && magic != walMagicBE {
		return nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if magic == walMagicBE {
		order = binary.BigEndian
	}
	if ps := int(binary.BigEndian.Uint32(h[8:12])); ps != db.pageSize {
		return nil
	}
	s0, s1 := walChecksum(order, h[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(h[24:28]) || s1 != binary.BigEndian.Uint32(h[28:32]) {
		return nil
	}
	salt1, salt2 := binary.BigEndian.Uint32(h[16:20]), binary.BigEndian.Uint32(h[20:24])

	frame := make([]byte, walFrameHeaderSize+db.pageSize)
	committed := map[uint32]int64{}
	pending := map[uint32]int64{}
	var dbSize uint32
	for off := int64(walHeaderSize); off+int64(len(frame)) <= size; off += int64(len(frame)) {
		if _, err := wal.ReadAt(frame, off); err != nil {
			return fmt.Errorf("read the frame at %d: %w", off, err)
		}
		fh := frame[:walFrameHeaderSize]
		pg, commit := binary.BigEndian.Uint32(fh[0:4]), binary.BigEndian.Uint32(fh[4:8])
		if pg == 0 || binary.BigEndian.Uint32(fh[8:12]) != salt1 || binary.BigEndian.Uint32(fh[12:16]) != salt2 {
			break
		}
		c0, c1 := walChecksum(order, fh[:8], s0, s1)
		c0, c1 = walChecksum(order, frame[walFrameHeaderSize:], c0, c1)
		if c0 != binary.BigEndian.Uint32(fh[16:20]) || c1 != binary.BigEndian.Uint32(fh[20:24]) {
			break
		}
		s0, s1 = c0, c1
		pending[pg] = off + walFrameHeaderSize
		if commit != 0 {
			for p, o := range pending {
				committed[p] = o
			}
			clear(pending)
			dbSize = commit
		}
	}
	if dbSize == 0 {
		return nil // no committed frame: the main file is the database
	}
	for p := range committed {
		if p > dbSize {
			delete(committed, p) // a page past the end the commit set: truncated away
		}
	}
	db.wal, db.walPages, db.pages = wal, committed, dbSize
	return nil
}

// walChecksum continues the WAL checksum s0, s1 over b, whose length is
// a multiple of 8, its 32-bit words in order (§4.1).
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}
