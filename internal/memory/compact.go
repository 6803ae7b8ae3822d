package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// CompactResult says what Compact did. Paths are Root joined with the
// file's path in the root.
type CompactResult struct {
	// Archived are the layer-1 notes folded into archives and removed.
	Archived []string `json:"archived"`
	// Archives are the layer-3 archives written.
	Archives []string `json:"archives"`
}

// afterArchives, when set (by tests), runs once every archive is written
// and before any note is removed; an error stops Compact there, as a
// crash would.
var afterArchives func() error

// Compact folds layer-1 notes older than keepDays (relative to now), or
// all notes of a given month when month != "", into
// layer3/YYYY-MM-<tag>-archive.md: one archive per month and tag,
// appending to an existing archive, entries in date order. Then it removes
// the folded notes and month directories left empty.
//
// A note is older than keepDays when its date is before now's date (in
// now's location) minus keepDays days: with keepDays 30 on 2026-03-31 a
// note of 2026-03-01 stays and one of 2026-02-28 is folded; keepDays 0
// folds everything before today.
//
// Compaction is crash-safe and idempotent: every archive is complete,
// written atomically and fsynced, before any note is removed, and an
// entry already in the archive (the same date and key, or for an entry
// without a key the same date and text) is not added again, so running
// Compact again after a crash between the two never duplicates a note.
// Text a note holds before its first entry, other than the title
// WriteNote gives it, is archived as an entry without a key. Files in
// layer1/ that are not named as notes are left alone.
func (d Dir) Compact(month string, keepDays int, now time.Time) (CompactResult, error) {
	res := CompactResult{Archived: []string{}, Archives: []string{}}
	cutoff := ""
	if month != "" {
		if err := ValidMonth(month); err != nil {
			return res, err
		}
	} else {
		if keepDays < 0 {
			return res, fmt.Errorf("keep-days %d: want 0 or more", keepDays)
		}
		y, m, day := now.Date()
		cutoff = time.Date(y, m, day-keepDays, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	}
	if _, err := d.root(false); errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	real, err := d.root(true)
	if err != nil {
		return res, err
	}
	l, err := d.lock(real)
	if err != nil {
		return res, err
	}
	defer l.Unlock()

	layer1, err := d.dir(real, "layer1", false)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	groups, keys, monthDirs, err := d.collectNotes(real, layer1, month, cutoff)
	if err != nil {
		return res, err
	}
	// Every archive first, complete and durable; then the notes.
	folded, err := d.writeArchives(real, groups, keys, &res)
	if err != nil {
		return res, err
	}
	if afterArchives != nil {
		if err := afterArchives(); err != nil {
			return res, err
		}
	}
	err = d.removeFolded(layer1, folded, monthDirs, &res)
	return res, err
}

// compactNote is a layer-1 note Compact folds: its path in the root, on
// disk, and what it holds.
type compactNote struct {
	rel, path string
	doc       *Doc
}

// collectNotes is Compact's first phase: the notes to fold (those of
// month, or when month is "" those dated before cutoff), grouped by month
// and tag (tags compared without case), the groups' keys in order, and
// the month directories they lie in.
func (d Dir) collectNotes(real, layer1, month, cutoff string) (groups map[[2]string][]compactNote, keys [][2]string, monthDirs []string, err error) {
	months, err := os.ReadDir(layer1)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", d.name("layer1"), err)
	}
	groups = map[[2]string][]compactNote{} // by month and tag
	for _, md := range months {
		if ValidMonth(md.Name()) != nil || (month != "" && md.Name() != month) || (month == "" && md.Name() > cutoff[:7]) {
			continue
		}
		dirRel := "layer1/" + md.Name()
		dp, err := d.dir(real, dirRel, false)
		if err != nil {
			return nil, nil, nil, err
		}
		files, err := os.ReadDir(dp)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", d.name(dirRel), err)
		}
		found := false
		for _, f := range files {
			rel := dirRel + "/" + f.Name()
			h, err := classify(rel)
			if err != nil || (month == "" && h.Date >= cutoff) {
				continue
			}
			p, _, err := d.locate(real, rel, false)
			if err != nil {
				return nil, nil, nil, err
			}
			doc, err := d.readDoc(p, rel)
			if err != nil {
				return nil, nil, nil, err
			}
			// Notes of one tag but for case go into one archive.
			k := [2]string{h.Date[:7], strings.ToLower(h.Tag)}
			groups[k] = append(groups[k], compactNote{rel, p, doc})
			found = true
		}
		if found {
			monthDirs = append(monthDirs, dirRel)
		}
	}
	keys = make([][2]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	return groups, keys, monthDirs, nil
}

// writeArchives is Compact's second phase: each group of notes folded
// into its archive (layer3/YYYY-MM-<tag>-archive.md), entries in date
// order, an entry the archive holds already not added again, each archive
// written atomically and fsynced. It returns the notes folded and adds
// the archives written to res.
func (d Dir) writeArchives(real string, groups map[[2]string][]compactNote, keys [][2]string, res *CompactResult) ([]compactNote, error) {
	var folded []compactNote
	for _, k := range keys {
		month := k[0]
		notes := groups[k]
		sort.Slice(notes, func(i, j int) bool { return notes[i].doc.Header.Date < notes[j].doc.Header.Date })
		tag, err := d.tagInUse(real, Header{Layer: 3, Tag: notes[0].doc.Header.Tag, Date: month})
		if err != nil {
			return nil, err
		}
		arel := ArchivePath(tag, month)
		ap, exists, err := d.locate(real, arel, true)
		if err != nil {
			return nil, err
		}
		archive := &Doc{Header: Header{Layer: 3, Tag: tag, Date: month}, Text: archivePreamble(tag, month)}
		if exists {
			if archive, err = d.readDoc(ap, arel); err != nil {
				return nil, err
			}
		}
		have := map[string]int{}
		for _, e := range archive.Entries {
			have[identity(e)]++
		}
		changed := false
		for _, n := range notes {
			entries := n.doc.Entries
			if extra := handText(n.doc.Text, notePreamble(n.doc.Header.Tag, n.doc.Header.Date)); extra != "" {
				entries = append([]Entry{{Date: n.doc.Header.Date, Body: extra + "\n"}}, entries...)
			}
			for _, e := range entries {
				id := identity(e)
				if have[id] > 0 {
					have[id]--
					continue
				}
				if b := trimBlank(e.Body); b != "" {
					e.Body = b + "\n"
				} else {
					e.Body = ""
				}
				archive.insert(e)
				changed = true
			}
		}
		if changed {
			if err := d.writeDoc(ap, arel, archive); err != nil {
				return nil, err
			}
			res.Archives = append(res.Archives, d.name(arel))
		}
		folded = append(folded, notes...)
	}
	return folded, nil
}

// removeFolded is Compact's last phase, once every archive is durable:
// the folded notes removed, then the month directories they leave empty.
func (d Dir) removeFolded(layer1 string, folded []compactNote, monthDirs []string, res *CompactResult) error {
	for _, n := range folded {
		if err := safefile.Remove(n.path); err != nil {
			return safefile.Wrap("remove", d.name(n.rel), err)
		}
		res.Archived = append(res.Archived, d.name(n.rel))
	}
	removed := false
	for _, dirRel := range monthDirs {
		p := filepath.Join(layer1, filepath.Base(dirRel))
		if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
			continue // a link to a directory elsewhere in the root stays
		}
		if left, err := os.ReadDir(p); err != nil || len(left) > 0 {
			continue
		}
		if err := os.Remove(p); err != nil {
			return safefile.Wrap("remove", d.name(dirRel), err)
		}
		removed = true
	}
	if removed {
		if err := safefile.SyncDir(layer1); err != nil {
			return err
		}
	}
	return nil
}

// handText is what a note holds before its first entry besides the
// title WriteNote gave it.
func handText(text, title string) string {
	text = trimBlank(text)
	if rest, ok := strings.CutPrefix(text, strings.TrimSuffix(title, "\n")); ok && (rest == "" || rest[0] == '\n' || rest[0] == '\r') {
		text = trimBlank(rest)
	}
	return text
}

// identity is what makes two entries the same for compaction: their date
// and key, or for an entry without a key its date and text.
func identity(e Entry) string {
	if e.Key != "" {
		return e.Date + " key " + e.Key
	}
	sum := sha256.Sum256([]byte(trimBlank(e.Body)))
	return e.Date + " text " + hex.EncodeToString(sum[:])
}
