// Package tsvconf reads and rewrites the small tab-separated configuration
// files in the configuration directory (the address book, the remotes):
// a header line naming the format and its version, then one record per
// line, fields separated by tabs. Blank lines and lines starting with '#'
// are skipped; a trailing '\r' is ignored. A field that could not be
// written as it is (it holds a tab, a newline or another control
// character, starts with a double quote, or is a first field that would
// make its line blank or a comment) is written as a Go string literal
// ("a\tb"), and a field that starts with a double quote and is such a
// literal is read as its value; every other field is read as written, so
// files written before fields were quoted read the same (Quote, Unquote).
// Reads are bounded and refuse
// what is not a regular file; errors name the file and the line; a
// rewrite is atomic and made under a lock file, through safefile.Update.
package tsvconf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
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
		fields := strings.Split(line, "\t")
		for i, f := range fields {
			fields[i] = Unquote(f)
		}
		if err := record(fields); err != nil {
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
		for i, field := range r {
			if i > 0 {
				s.WriteByte('\t')
			}
			s.WriteString(Quote(field, i == 0))
		}
		s.WriteByte('\n')
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

// Quote is field as a record line holds it: as it is, or, when it could
// not be read back so, as a Go string literal. first says the field
// starts its line, where a '#' or a blank field would hide the record.
func Quote(field string, first bool) string {
	if needsQuote(field, first) {
		return strconv.Quote(field)
	}
	return field
}

func needsQuote(field string, first bool) bool {
	if strings.HasPrefix(field, `"`) || (first && (strings.TrimSpace(field) == "" || strings.HasPrefix(field, "#"))) {
		return true
	}
	for i := 0; i < len(field); i++ {
		if c := field[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// Unquote is the value of a field as a record line holds it: a Go string
// literal's value when the field is one, else the field as it is.
func Unquote(field string) string {
	if strings.HasPrefix(field, `"`) {
		if v, err := strconv.Unquote(field); err == nil {
			return v
		}
	}
	return field
}
