package changes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// SidecarKind names the sidecar (store.PutSidecar) that keeps a stored
// patch's file headers apart from it, so that CarriedState need not read
// the patch: blobs/sidecars/<the patch's SHA-256>.headers.
const SidecarKind = "headers"

// maxSidecar bounds a headers sidecar, written or read. A patch whose
// headers would not fit (thousands of files with very long paths) gets
// none, and is read for them as before.
const maxSidecar = 4 << 20

// sidecarHead starts the headers sidecar of the patch at: the patch's
// own first line, then the blob it was read from and its size.
func sidecarHead(at handoff.Attachment) string {
	return header + "\n# headers of " + at.SHA256 + " " + strconv.FormatInt(at.Size, 10) + "\n"
}

// sidecar is the headers sidecar of the patch at whose headers are
// files: a patch with everything but its "diff --git" lines and full
// index lines left out, which headers reads back as files, each path
// unquoted (checkPath allows no character git would quote but '"' and
// non-ASCII, which an unquoted header reads back as they are).
func sidecar(at handoff.Attachment, files []File) []byte {
	var b bytes.Buffer
	b.WriteString(sidecarHead(at))
	for _, f := range files {
		b.WriteString("diff --git a/" + f.Path + " b/" + f.Path + "\n")
		if f.OldBlob != "" && f.Blob != "" {
			b.WriteString("index " + f.OldBlob + ".." + f.Blob + "\n")
		}
	}
	return b.Bytes()
}

// storedHeaders is what the headers sidecar of the patch at says, when
// it reads as headers reads a patch (every path through checkPath), names
// at's blob and size, and that blob is in the store at that size; false
// when not (no sidecar, a damaged or planted one, the blob gone), and the
// patch is to be read. The blob's content is not read: OpenBlob checks it
// against its name when the patch is applied.
func storedHeaders(s *store.Store, at handoff.Attachment) ([]File, bool) {
	if size, err := s.BlobSize(at.SHA256); err != nil || size != at.Size {
		return nil, false
	}
	data, err := s.ReadSidecar(at.SHA256, SidecarKind, maxSidecar)
	if err != nil || !bytes.HasPrefix(data, []byte(sidecarHead(at))) {
		return nil, false
	}
	files, err := headers(bytes.NewReader(data))
	if err != nil {
		return nil, false
	}
	return files, true
}

// patchHeaders streams the patch at from s for its file headers, and
// with keep stores them beside it as its headers sidecar once the whole
// blob has been read and found to match its name and at's size.
func patchHeaders(s *store.Store, at handoff.Attachment, keep bool) ([]File, error) {
	r, size, err := s.OpenBlob(at.SHA256)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	defer r.Close()
	// headers reads to the end: a blob of at.Size bytes, at most
	// MaxPatch, is read whole, and so checked against its name.
	files, err := headers(io.LimitReader(r, MaxPatch+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	if keep && size == at.Size && at.Size <= MaxPatch {
		if data := sidecar(at, files); len(data) <= maxSidecar {
			if err := s.PutSidecar(at.SHA256, SidecarKind, data); err != nil {
				return files, fmt.Errorf("%s: %w", Name, err)
			}
		}
	}
	return files, nil
}

// KeepHeaders stores beside the changes.patch at in s its headers
// sidecar, so that the briefings need not read the patch: save calls it
// once the patch is stored, import once the bundle's record is. A patch
// over MaxPatch, or whose headers do not read (a bundle may bring such a
// one: apply refuses it), gets none, and no error. The sidecar is a
// cache: an error writing it costs the next briefing a read of the
// patch.
func KeepHeaders(s *store.Store, at handoff.Attachment) error {
	if at.Size > MaxPatch {
		return nil
	}
	_, err := patchHeaders(s, at, true)
	if err != nil && (errors.Is(err, ErrHostile) || errors.Is(err, store.ErrNotFound)) {
		return nil
	}
	return err
}
