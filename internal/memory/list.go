package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// File describes one memory file, as List finds it.
type File struct {
	// Layer is 0 for the identity files, else 1, 2 or 3.
	Layer int `json:"layer"`
	// Path is relative to the root, slash-separated.
	Path string `json:"path"`
	// Tag, Date and HandoffID are the header's (from the file name when
	// the file cannot be read).
	Tag       string `json:"tag,omitempty"`
	Date      string `json:"date,omitempty"`
	HandoffID string `json:"handoff,omitempty"`
	// Entries counts the entries of a note or archive.
	Entries int `json:"entries"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// Problem, when set, says why the file could not be read; the other
	// fields then come from its name.
	Problem string `json:"problem,omitempty"`
}

// List returns the memory files of layer (1 to 3; 0 means every layer,
// identity files included) whose tag is tag ("" for all; the identity
// files' tags are soul, memory and handoff), ordered by layer and path. A
// file that cannot be read or parsed is listed with its Problem rather
// than failing the listing; files whose names are not memory file names
// are not listed. A missing root is an error wrapping fs.ErrNotExist.
func (d Dir) List(layer int, tag string) ([]File, error) {
	if layer < 0 || layer > 3 {
		return nil, fmt.Errorf("layer %d: want 1, 2 or 3, or 0 for all", layer)
	}
	if tag != "" {
		if err := ValidTag(tag); err != nil {
			return nil, err
		}
	}
	real, err := d.root(false)
	if err != nil {
		return nil, err
	}
	var rels []string
	if layer == 0 {
		rels = append(rels, SoulFile, MemoryFile, HandoffFile)
	}
	if layer == 0 || layer == 1 {
		months, err := d.readDir(real, "layer1")
		if err != nil {
			return nil, err
		}
		for _, m := range months {
			if ValidMonth(m) != nil {
				continue
			}
			names, err := d.readDir(real, "layer1/"+m)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				rels = append(rels, "layer1/"+m+"/"+n)
			}
		}
	}
	if layer == 0 || layer == 2 {
		rels = append(rels, StateFile)
	}
	if layer == 0 || layer == 3 {
		names, err := d.readDir(real, "layer3")
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			rels = append(rels, "layer3/"+n)
		}
	}
	out := []File{}
	for _, rel := range rels {
		h, err := classify(rel)
		if err != nil || (tag != "" && !SameTag(h.Tag, tag)) {
			continue
		}
		p, exists, err := d.locate(real, rel, false)
		f := File{Layer: h.Layer, Path: rel, Tag: h.Tag, Date: h.Date}
		if err == nil && !exists {
			continue
		}
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Lstat(p); err == nil {
				f.Size = fi.Size()
				var doc *Doc
				if doc, err = d.readDoc(p, rel); err == nil {
					f.Date, f.HandoffID, f.Entries = doc.Header.Date, doc.Header.HandoffID, len(doc.Entries)
				}
			}
		}
		if err != nil {
			f.Problem = err.Error()
		}
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Layer < out[j].Layer || out[i].Layer == out[j].Layer && out[i].Path < out[j].Path
	})
	return out, nil
}

// readDir lists the names in the root-relative directory rel, none when
// it does not exist.
func (d Dir) readDir(real, rel string) ([]string, error) {
	p, err := d.dir(real, rel, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.name(rel), err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// Read reads the memory file at rel (relative to the root,
// slash-separated, and named as a memory file: SOUL.md,
// layer1/2026-03/api-2026-03-05.md, layer2/current-state.md, …) and
// returns what List would say of it and its parsed content. A damaged file
// is an error naming the file and the cause; a missing one wraps
// fs.ErrNotExist.
func (d Dir) Read(rel string) (File, *Doc, error) {
	h, err := classify(rel)
	if err != nil {
		return File{}, nil, err
	}
	real, err := d.root(false)
	if err != nil {
		return File{}, nil, err
	}
	p, exists, err := d.locate(real, rel, false)
	if err != nil {
		return File{}, nil, err
	}
	if !exists {
		return File{}, nil, fmt.Errorf("%s: %w", d.name(rel), fs.ErrNotExist)
	}
	doc, err := d.readDoc(p, rel)
	if err != nil {
		return File{}, nil, err
	}
	f := File{Layer: h.Layer, Path: rel, Tag: h.Tag, Date: doc.Header.Date, HandoffID: doc.Header.HandoffID, Entries: len(doc.Entries)}
	if fi, err := os.Lstat(p); err == nil {
		f.Size = fi.Size()
	}
	return f, doc, nil
}

// Latest is the newest readable note of layer (1 or 3) whose tag holds
// tag ("" for any), ignoring case, by date and then path; nil when there
// is none. As agent-handover's read_latest matched the tag anywhere in
// the file name, "api" finds the notes of api and of api-auth.
func (d Dir) Latest(layer int, tag string) (*File, error) {
	if layer != 1 && layer != 3 {
		return nil, fmt.Errorf("layer %d: the newest note is of layer 1 or 3", layer)
	}
	if tag != "" {
		if err := ValidTag(tag); err != nil {
			return nil, err
		}
	}
	files, err := d.List(layer, "")
	if err != nil {
		return nil, err
	}
	var best *File
	for i, f := range files {
		if f.Problem != "" || !strings.Contains(strings.ToLower(f.Tag), strings.ToLower(tag)) {
			continue
		}
		if best == nil || f.Date > best.Date || f.Date == best.Date && f.Path > best.Path {
			best = &files[i]
		}
	}
	return best, nil
}
