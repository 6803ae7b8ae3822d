package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// DirName is the index's directory under the data directory.
const DirName = "search-index"

// Health is what Check found of an index.
type Health struct {
	// Exists says the index has been built.
	Exists bool
	// Segments and Docs count the segment files and the documents that
	// answer; Unreadable the sources left out because they could not be
	// read; Bytes is the index's size on disk.
	Segments, Docs, Unreadable int
	Bytes                      int64
	// Problems are what is wrong, one line each: an index with problems
	// is rebuilt by search --reindex.
	Problems []string
}

// Check reads the whole index and reports its health: every segment the
// manifest lists opens and matches its checksum, and every live
// document lies in one.
func (ix *Index) Check() Health {
	var h Health
	m, err := ix.readManifest()
	if err != nil {
		h.Exists = true
		h.Problems = append(h.Problems, err.Error())
		return h
	}
	if _, err := os.Stat(filepath.Join(ix.dir, manifestName)); errors.Is(err, fs.ErrNotExist) {
		return h
	}
	h.Exists = true
	ndocs := map[string]int{}
	for _, name := range m.Segments {
		path := filepath.Join(ix.dir, name)
		seg, err := openSegment(path, name)
		if err != nil {
			h.Problems = append(h.Problems, err.Error())
			continue
		}
		if err := seg.verify(); err != nil {
			h.Problems = append(h.Problems, fmt.Sprintf("%s: %v", path, err))
		}
		h.Segments++
		h.Bytes += seg.size
		ndocs[name] = seg.ndocs
		seg.close()
	}
	for _, e := range m.Live {
		switch n, ok := ndocs[e.Seg]; {
		case e.Seg == "":
			h.Unreadable++
		case !ok || e.Doc >= n:
			h.Problems = append(h.Problems, fmt.Sprintf("a document of %s is missing", e.Seg))
		default:
			h.Docs++
		}
		if len(h.Problems) > 20 {
			break
		}
	}
	return h
}

// Built says the index has been built: it has a manifest.
func (ix *Index) Built() bool {
	_, err := os.Stat(filepath.Join(ix.dir, manifestName))
	return err == nil
}

// Outdated says the index exists but its manifest cannot be read as this
// version's (another version of the format, or damage): a catch-up
// rebuilds it.
func (ix *Index) Outdated() bool {
	_, _, f, err := ix.readHeader()
	if err == nil {
		f.Close()
		return false
	}
	return !errors.Is(err, fs.ErrNotExist)
}

// Remove deletes the index; search builds it again.
func (ix *Index) Remove() error { return os.RemoveAll(ix.dir) }
