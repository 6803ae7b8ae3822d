// Package tsvconf reads and rewrites the small tab-separated configuration
// files in the configuration directory (the address book, the remotes):
// a header line naming the format and its version, then one record per
// line, fields separated by tabs. Blank lines and lines starting with '#'
// are skipped; a trailing '\r' is ignored. Reads are bounded and refuse
// what is not a regular file; errors name the file and the line; a
// rewrite is atomic and made under a lock file, through safefile.Update.
package tsvconf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// File describes one configuration file.
type File struct {
	// Path is the file.
	Path string
	// What names it in messages and for its lock ("address book").
	What string
	// Kind names the format when the header is wrong ("address book":
	// "not a session-handoff address book").
	Kind string
	// Header is the first line: the format and its version.
	Header string
	// Comment is the line written after the header, without its "# ".
	Comment string
	// MaxSize bounds the file, in bytes.
	MaxSize int64
	// Perm is the mode a rewrite gives the file.
	Perm os.FileMode
}

// Read reads the file and calls record with the fields of each record
// line, in order; an error from record is returned as "PATH:LINE: error".
// A missing file is no error and has no records.
func (f File) Read(record func(fields []string) error) error {
	data, err := safefile.ReadRegular(f.Path, f.MaxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s %s: %w", f.What, f.Path, err)
	}
	lines := strings.Split(string(data), "\n")
	if strings.TrimRight(lines[0], "\r") != f.Header {
		return fmt.Errorf("%s:1: not a session-handoff %s (want %q)", f.Path, f.Kind, f.Header)
	}
	for i, line := range lines[1:] {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := record(strings.Split(line, "\t")); err != nil {
			return fmt.Errorf("%s:%d: %w", f.Path, i+2, err)
		}
	}
	return nil
}

// Marshal renders records in the file's format: the header, the comment,
// then one line per record.
func (f File) Marshal(records [][]string) []byte {
	var s strings.Builder
	s.WriteString(f.Header + "\n")
	s.WriteString("# " + f.Comment + "\n")
	for _, r := range records {
		s.WriteString(strings.Join(r, "\t") + "\n")
	}
	return []byte(s.String())
}

// Update rewrites the file under its lock file (Path + ".lock"): records
// reads the current state (with Read) and returns the records to write.
// If records fails, nothing is written.
func (f File) Update(records func() ([][]string, error)) error {
	return safefile.Update(f.Path, f.What, f.Perm, func() ([]byte, error) {
		r, err := records()
		if err != nil {
			return nil, err
		}
		return f.Marshal(r), nil
	})
}
