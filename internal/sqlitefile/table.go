package sqlitefile

import (
	"errors"
	"fmt"
	"strings"
)

// Table is a rowid table of the database: its root page and columns, as
// sqlite_schema says (§2.6).
type Table struct {
	db   *DB
	Name string
	// Columns are the column names in the order of the CREATE TABLE
	// statement, which is the order of a record's values.
	Columns []string
	root    uint32
	// real marks the columns of REAL affinity, whose integral values
	// SQLite may store as integers and reads back as reals
	// (https://www.sqlite.org/datatype3.html, §3.1 and §3.2).
	real []bool
	// rowidColumn is the INTEGER PRIMARY KEY column, an alias of the
	// rowid stored as NULL in the record (§2.1, "rowid alias"); -1 when
	// there is none.
	rowidColumn int
}

// schemaTable is sqlite_schema, whose root is page 1 (§2.6).
var schemaTable = Table{Name: "sqlite_schema", Columns: []string{"type", "name", "tbl_name", "rootpage", "sql"}, root: 1, rowidColumn: -1}

// Table finds the rowid table name (compared without regard to ASCII
// case, as SQL does) in sqlite_schema.
func (db *DB) Table(name string) (*Table, error) {
	schema := schemaTable
	schema.db = db
	var found *Table
	err := schema.Scan(func(r *Row) error {
		typ, _ := r.Value(0)
		tbl, _ := r.Value(1)
		if typ != "table" || !isString(tbl) || !strings.EqualFold(tbl.(string), name) {
			return nil
		}
		root, err := r.Value(3)
		if err != nil {
			return err
		}
		sql, err := r.Value(4)
		if err != nil {
			return err
		}
		rp, ok := root.(int64)
		if !ok || rp <= 0 || rp > int64(db.pages) {
			return corrupt("table %s: root page %v", name, root)
		}
		s, ok := sql.(string)
		if !ok {
			return corrupt("table %s: its CREATE statement is %s", name, describe(sql))
		}
		cols, real, alias, err := parseColumns(s)
		if err != nil {
			return fmt.Errorf("table %s: %w", name, err)
		}
		found = &Table{db: db, Name: tbl.(string), Columns: cols, real: real, root: uint32(rp), rowidColumn: alias}
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("sqlite_schema: %w", err)
	}
	if found == nil {
		return nil, fmt.Errorf("no table %s", name)
	}
	return found, nil
}

// MaxSchemaTables bounds the tables Schema lists.
const MaxSchemaTables = 4096

// Schema lists the database's rowid tables, each name with its column
// names, wherever sqlite_schema's pages lie (after a VACUUM, or once
// migrations have grown it, past the first page): what a reader needs to
// tell whose database it is. A table whose CREATE statement cannot be
// read is listed without columns; more than MaxSchemaTables is an error.
func (db *DB) Schema() (map[string][]string, error) {
	schema := schemaTable
	schema.db = db
	out := map[string][]string{}
	err := schema.Scan(func(r *Row) error {
		typ, _ := r.Value(0)
		name, _ := r.Value(1)
		if typ != "table" || !isString(name) {
			return nil
		}
		if len(out) == MaxSchemaTables {
			return corrupt("over %d tables", MaxSchemaTables)
		}
		var cols []string
		if sql, err := r.Value(4); err == nil && isString(sql) {
			cols, _, _, _ = parseColumns(sql.(string))
		}
		out[name.(string)] = cols
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite_schema: %w", err)
	}
	return out, nil
}

func isString(v Value) bool { _, ok := v.(string); return ok }

// Column is the index of the named column (ASCII case ignored), or -1.
func (t *Table) Column(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// ErrNoColumn is the error of a table that lacks a column a reader
// reads: the database is of another program, or another version of it.
var ErrNoColumn = errors.New("no such column")

// Named is a table with the indexes of the columns a reader reads, which
// it reads by name.
type Named struct {
	*Table
	cols map[string]int
}

// TableColumns finds the table name and the columns cols in it, or says
// which one it lacks (ErrNoColumn).
func (db *DB) TableColumns(name string, cols ...string) (*Named, error) {
	t, err := db.Table(name)
	if err != nil {
		return nil, err
	}
	n := &Named{Table: t, cols: make(map[string]int, len(cols))}
	for _, c := range cols {
		i := t.Column(c)
		if i < 0 {
			return nil, fmt.Errorf("table %s: %w %s", name, ErrNoColumn, c)
		}
		n.cols[c] = i
	}
	return n, nil
}

// TableOf is TableColumns for a reader that expects the database to be
// what (say "a Crush database"): a missing column says it is not one of a
// known version.
func (db *DB) TableOf(what, name string, cols ...string) (*Named, error) {
	t, err := db.TableColumns(name, cols...)
	if errors.Is(err, ErrNoColumn) {
		return nil, fmt.Errorf("%w: not %s of a known version", err, what)
	}
	return t, err
}

// Text and Int are Row.Text and Row.Int of the column named col, one of
// those TableColumns found.
func (n *Named) Text(r *Row, col string) (string, error) { return r.Text(n.index(col)) }
func (n *Named) Int(r *Row, col string) (int64, error)   { return r.Int(n.index(col)) }

// TextBytes is Row.TextBytes of the column named col.
func (n *Named) TextBytes(r *Row, col string) ([]byte, error) { return r.TextBytes(n.index(col)) }

// index is the column col's index; -1, which Row.Value refuses, for a
// column TableColumns was not asked for.
func (n *Named) index(col string) int {
	if i, ok := n.cols[col]; ok {
		return i
	}
	return -1
}

// Row is one row of a table during a Scan; it is valid only until the
// function given the row returns.
type Row struct {
	Rowid    int64
	t        *Table
	s        *scan
	local    []byte
	size     uint64
	overflow uint32
	full     []byte // the whole payload, once read
	header   *recordHeader
}

// ErrTooLarge is the error of a value that lies beyond the first page of
// a record larger than Limits.MaxRecord: the row is still scanned, and
// its values on the page can be read.
var ErrTooLarge = errors.New("record too large")

// TooLarge says whether the row's record is larger than
// Limits.MaxRecord: only the values stored on its leaf page can be read.
func (r *Row) TooLarge() bool { return r.size > uint64(r.t.db.lim.MaxRecord) }

// Scan calls fn with every row of the table in rowid order, until fn
// returns an error, which Scan returns. Each page is visited once per
// scan.
func (t *Table) Scan(fn func(r *Row) error) error {
	s := &scan{db: t.db}
	r := &Row{t: t, s: s}
	err := s.walk(t.root, 0, func(rowid int64, local []byte, size uint64, overflow uint32) error {
		*r = Row{Rowid: rowid, t: t, s: s, local: local, size: size, overflow: overflow}
		return fn(r)
	})
	if err != nil && !errors.Is(err, errStop) {
		return fmt.Errorf("table %s: %w", t.Name, err)
	}
	return err
}

// Value is the row's value of column i: nil (NULL), int64, float64,
// string or []byte. A column the record lacks (added by ALTER TABLE
// after the row was written) is NULL. Only the part of the payload the
// value needs is read: a value on the leaf page reads no overflow page.
func (r *Row) Value(i int) (Value, error) {
	if i < 0 || i >= len(r.t.Columns) {
		return nil, fmt.Errorf("table %s has no column %d", r.t.Name, i)
	}
	if i == r.t.rowidColumn {
		return r.Rowid, nil
	}
	t, b, err := r.raw(i)
	if err != nil {
		return nil, err
	}
	v, err := decodeValue(t, b)
	if err != nil {
		return nil, fmt.Errorf("row %d: %w", r.Rowid, err)
	}
	if n, ok := v.(int64); ok && r.t.real != nil && r.t.real[i] {
		return float64(n), nil
	}
	return v, nil
}

// raw is the serial type and the bytes of column i (a column of the
// record, not the rowid's alias); a column the record lacks is NULL.
func (r *Row) raw(i int) (uint64, []byte, error) {
	if r.header == nil {
		// The scan's, reused row after row.
		h, err := parseHeaderIn(r.bytes(), r.size, r.s.rowBuf[:])
		if err != nil && r.full == nil && r.overflow != 0 {
			// The header runs onto overflow pages.
			if err = r.readAll(); err == nil {
				h, err = parseHeaderIn(r.full, r.size, r.s.rowBuf[:])
			}
		}
		if err != nil {
			return 0, nil, fmt.Errorf("row %d: %w", r.Rowid, err)
		}
		r.s.row = h
		r.header = &r.s.row
	}
	h := r.header
	if i >= len(h.types) {
		return 0, nil, nil
	}
	start, end := h.offsets[i], h.offsets[i+1]
	if end > uint64(len(r.bytes())) {
		if err := r.readAll(); err != nil {
			return 0, nil, fmt.Errorf("row %d: %w", r.Rowid, err)
		}
	}
	return h.types[i], r.bytes()[start:end], nil
}

// TextBytes is Text's value as bytes, not copied: valid only until the
// function given the row returns, for a reader that decodes it at once
// (a JSON column). NULL is nil; any other type is Text's error.
func (r *Row) TextBytes(i int) ([]byte, error) {
	if i >= 0 && i < len(r.t.Columns) && i != r.t.rowidColumn {
		t, b, err := r.raw(i)
		switch {
		case err != nil:
			return nil, err
		case t == 0:
			return nil, nil
		case t >= 13 && t%2 == 1:
			return b, nil
		}
	}
	_, err := r.Text(i) // the error Text gives of another type
	return nil, err
}

// Text is column i's value as text: a TEXT value as it is, NULL as "";
// any other type is an error.
func (r *Row) Text(i int) (string, error) {
	v, err := r.Value(i)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	return "", fmt.Errorf("row %d: column %s is %s, not text", r.Rowid, r.t.Columns[i], describe(v))
}

// Int is column i's value as an integer: an INTEGER as it is, NULL as 0;
// any other type is an error.
func (r *Row) Int(i int) (int64, error) {
	v, err := r.Value(i)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case nil:
		return 0, nil
	case int64:
		return v, nil
	}
	return 0, fmt.Errorf("row %d: column %s is %s, not an integer", r.Rowid, r.t.Columns[i], describe(v))
}

func (r *Row) bytes() []byte {
	if r.full != nil {
		return r.full
	}
	return r.local
}

func (r *Row) readAll() error {
	if r.full != nil {
		return nil
	}
	if r.TooLarge() {
		return fmt.Errorf("%w: %d bytes, more than the %d read", ErrTooLarge, r.size, r.t.db.lim.MaxRecord)
	}
	if r.overflow == 0 {
		return corrupt("record of %d bytes with %d on its page and no overflow page", r.size, len(r.local))
	}
	b, err := r.s.payload(r.local, r.size, r.overflow)
	if err != nil {
		return err
	}
	r.full = b
	return nil
}

// parseColumns reads the column names from a CREATE TABLE statement,
// which of them have REAL affinity, and which column, if any, is an
// INTEGER PRIMARY KEY (an alias of the rowid). It knows enough SQL for
// the statements SQLite stores: quoted names ("x", `x`, [x], 'x'),
// nested parentheses, table constraints.
func parseColumns(sql string) (cols []string, real []bool, alias int, err error) {
	sql = stripComments(sql)
	open := strings.IndexByte(sql, '(')
	close := strings.LastIndexByte(sql, ')')
	if open < 0 || close < open {
		return nil, nil, -1, corrupt("not a CREATE TABLE with columns: %.60q", sql)
	}
	alias = -1
	var pkCols []string
	for _, def := range splitTop(sql[open+1 : close]) {
		toks := tokens(def)
		if len(toks) == 0 {
			continue
		}
		switch strings.ToUpper(toks[0]) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			if i := indexFold(toks, "PRIMARY"); i >= 0 && i+2 < len(toks) && strings.EqualFold(toks[i+1], "KEY") {
				pkCols = splitTop(strings.Trim(toks[i+2], "()"))
			}
			continue
		}
		cols = append(cols, unquote(toks[0]))
		real = append(real, len(toks) > 1 && realAffinity(toks[1]))
		if len(toks) > 1 && strings.EqualFold(toks[1], "INTEGER") {
			if i := indexFold(toks, "PRIMARY"); i >= 0 && i+1 < len(toks) && strings.EqualFold(toks[i+1], "KEY") && indexFold(toks, "DESC") < 0 {
				alias = len(cols) - 1
			}
		}
	}
	if len(cols) == 0 {
		return nil, nil, -1, corrupt("no columns in %.60q", sql)
	}
	if alias < 0 && len(pkCols) == 1 {
		name := unquote(strings.TrimSpace(pkCols[0]))
		for i, def := range splitTop(sql[open+1 : close]) {
			toks := tokens(def)
			if i < len(cols) && len(toks) > 1 && unquote(toks[0]) == name && strings.EqualFold(toks[1], "INTEGER") {
				alias = i
			}
		}
	}
	return cols, real, alias, nil
}

// realAffinity says whether a declared type gives a column REAL
// affinity (https://www.sqlite.org/datatype3.html, §3.1, whose rules go
// in this order). Only the type's first word is looked at.
func realAffinity(typ string) bool {
	t := strings.ToUpper(typ)
	switch {
	case strings.Contains(t, "INT"), strings.Contains(t, "CHAR"), strings.Contains(t, "CLOB"), strings.Contains(t, "TEXT"), strings.Contains(t, "BLOB"):
		return false
	}
	return strings.Contains(t, "REAL") || strings.Contains(t, "FLOA") || strings.Contains(t, "DOUB")
}

// splitTop splits s at the commas outside parentheses and quotes.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted(&quote, c):
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// quoted says whether c, the next byte of a statement, lies in a quoted
// name or string, quote holding the closing quote while in one.
func quoted(quote *byte, c byte) bool {
	switch {
	case *quote != 0:
		if c == *quote {
			*quote = 0
		}
	case c == '"' || c == '`' || c == '\'':
		*quote = c
	case c == '[':
		*quote = ']'
	default:
		return false
	}
	return true
}

// stripComments replaces each SQL comment outside quotes ("-- …" to the
// end of the line, "/* … */") with a space: sqlite_schema keeps a
// statement as it was written, comments and all.
func stripComments(sql string) string {
	if !strings.Contains(sql, "--") && !strings.Contains(sql, "/*") {
		return sql
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quoted(&quote, c):
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			end := strings.IndexByte(sql[i:], '\n')
			if end < 0 {
				end = len(sql) - i
			}
			i += end - 1
			c = ' '
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			end := strings.Index(sql[i+2:], "*/")
			if end < 0 {
				i = len(sql)
			} else {
				i += end + 3
			}
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// tokens splits a column definition into words, a quoted name or a
// parenthesised group being one word.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '"' || c == '`' || c == '\'' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := strings.IndexByte(s[i+1:], end)
			if j < 0 {
				return append(out, s[i:])
			}
			out = append(out, s[i:i+j+2])
			i += j + 2
			continue
		case c == '(':
			depth, j := 0, i
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			out = append(out, s[i:min(j+1, len(s))])
			i = j + 1
			continue
		}
		j := i
		for j < len(s) && !strings.ContainsRune(" \t\n\r(\"`'[", rune(s[j])) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func unquote(s string) string {
	if len(s) >= 2 {
		switch {
		case s[0] == '"' && s[len(s)-1] == '"', s[0] == '`' && s[len(s)-1] == '`', s[0] == '\'' && s[len(s)-1] == '\'', s[0] == '[' && s[len(s)-1] == ']':
			return s[1 : len(s)-1]
		}
	}
	return s
}

func indexFold(toks []string, word string) int {
	for i, t := range toks {
		if strings.EqualFold(t, word) {
			return i
		}
	}
	return -1
}
