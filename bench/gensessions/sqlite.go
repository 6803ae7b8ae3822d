package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OpenCode, Kilo and Crush keep their sessions in one SQLite database:
// the database each wrote (the fixture, gunzipped) is put in its place,
// and each new session copies the rows of the fixture's session (its
// messages and parts repeated until it reaches its size), ids renamed,
// prose appended, its times moved to its own, inserted by the sqlite3
// command (this machine's: gensessions needs it for these three agents).

// dbFixture is an agent's database as it wrote it, and how a session's
// rows lie in it.
type dbFixture struct {
	dir     string   // under the fixtures directory, holding NAME.gz (and NAME-wal.gz)
	name    string   // the database's file name
	id      string   // the fixture's session id
	session string   // the table of sessions (column id)
	once    []string // tables of the session's rows, written once (column session_id)
	repeat  []string // tables of the session's rows, repeated
	at      string   // where it goes under home
}

var (
	opencodeDB = dbFixture{"opencode/testdata/real-e2e/work", "opencode.db", "ses_de29c8592ffexxmRHdDAjDEbDi", "session", []string{"todo"}, []string{"message", "part"}, ".local/share/opencode"}
	kiloDB     = dbFixture{"kilo/testdata/real-e2e/work", "kilo.db", "ses_de1aa7557ffe240NC9knYglJoz", "session", []string{"todo"}, []string{"message", "part"}, ".local/share/kilo"}
	crushDB    = dbFixture{"crush/testdata/real-e2e/work", "crush.db", "4372de9c-a6a7-4110-8730-2c84aff8d6fe", "sessions", []string{"files"}, []string{"messages"}, ".local/share/crush"}
)

// dbWriter gathers one agent's sessions and inserts them a batch at a
// time.
type dbWriter struct {
	f    dbFixture
	db   string
	rows map[string][]map[string]any // the fixture session's rows, by table
	sql  bytes.Buffer
}

// newDBWriter puts the fixture's database in its place under home, when
// none is there yet, and reads the fixture session's rows.
func newDBWriter(fixtures, home string, f dbFixture) (*dbWriter, error) {
	if _, err := exec.LookPath("sqlite3"); err != nil {
		return nil, fmt.Errorf("the sqlite3 command writes OpenCode's, Kilo's and Crush's sessions: apt-get install sqlite3")
	}
	w := &dbWriter{f: f, db: filepath.Join(home, f.at, f.name), rows: map[string][]map[string]any{}}
	if _, err := os.Stat(w.db); err != nil {
		for _, n := range []string{f.name, f.name + "-wal"} {
			if err := gunzip(filepath.Join(fixtures, f.dir, n+".gz"), filepath.Join(home, f.at, n)); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
		// Written back into the database file, no WAL beside it.
		if err := sqlite(w.db, "PRAGMA journal_mode=DELETE;"); err != nil {
			return nil, err
		}
	}
	for _, t := range slices.Concat([]string{f.session}, f.once, f.repeat) {
		col := "session_id"
		if t == f.session {
			col = "id"
		}
		out, err := exec.Command("sqlite3", "-json", w.db, fmt.Sprintf("SELECT * FROM %s WHERE %s = '%s'", t, col, f.id)).Output()
		if err != nil {
			return nil, fmt.Errorf("sqlite3 %s: %w", w.db, err)
		}
		var rows []map[string]any
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if len(bytes.TrimSpace(out)) > 0 {
			if err := dec.Decode(&rows); err != nil {
				return nil, fmt.Errorf("sqlite3 %s: %w", w.db, err)
			}
		}
		w.rows[t] = rows
	}
	if len(w.rows[f.session]) != 1 {
		return nil, fmt.Errorf("%s: no session %s in the fixture", w.db, f.id)
	}
	return w, nil
}

// add writes session seq, about size bytes, with id as its id, begun at
// start.
func (w *dbWriter) add(seq int, id string, seed uint64, size int, start time.Time) error {
	p := &replayer{r: rand.New(rand.NewPCG(seed, 0x7e91a4)), id: id, seq: seq, shared: true}
	shift := start.Sub(fixtureStart(w.rows[w.f.session][0]))
	insert := func(t string, row map[string]any) int {
		n := w.sql.Len()
		cols := make([]string, 0, len(row))
		for c := range row {
			cols = append(cols, c)
		}
		slices.Sort(cols)
		vals := make([]string, len(cols))
		for i, c := range cols {
			v := row[c]
			if s, ok := v.(string); ok && s == w.f.id {
				v = id
			} else if c != "id" && c != "session_id" || !ok {
				v = p.walk(v, c)
			} else {
				v = p.rename(s)
			}
			vals[i] = sqlValue(moveTime(c, v, shift))
		}
		fmt.Fprintf(&w.sql, "INSERT INTO %s (%s) VALUES (%s);\n", t, strings.Join(cols, ","), strings.Join(vals, ","))
		return w.sql.Len() - n
	}
	insert(w.f.session, clone(w.rows[w.f.session][0]))
	for _, t := range w.f.once {
		for _, r := range w.rows[t] {
			insert(t, clone(r))
		}
	}
	for n := 0; n < size; p.rep++ {
		for _, t := range w.f.repeat {
			for _, r := range w.rows[t] {
				n += insert(t, clone(r))
			}
		}
	}
	if w.sql.Len() >= 64<<20 {
		return w.flush()
	}
	return nil
}

// flush inserts what add gathered, in one transaction.
func (w *dbWriter) flush() error {
	if w.sql.Len() == 0 {
		return nil
	}
	err := sqlite(w.db, "BEGIN;\n"+w.sql.String()+"COMMIT;\n")
	w.sql.Reset()
	return err
}

func sqlite(db, sql string) error {
	cmd := exec.Command("sqlite3", "-bail", db)
	cmd.Stdin = strings.NewReader(sql)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("sqlite3 %s: %v: %s", db, err, bytes.TrimSpace(out))
	}
	return nil
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// timeColumns are the columns that hold a time, in milliseconds or
// seconds since 1970.
var timeColumns = []string{"time_created", "time_updated", "created_at", "updated_at", "finished_at"}

// fixtureStart is when the fixture's session began.
func fixtureStart(row map[string]any) time.Time {
	for _, c := range []string{"time_created", "created_at"} {
		if n, ok := row[c].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return unixAny(i)
			}
		}
	}
	return time.Time{}
}

func unixAny(i int64) time.Time {
	if i > 1e12 {
		return time.UnixMilli(i)
	}
	return time.Unix(i, 0)
}

// moveTime moves a time column's value by shift, in its own unit.
func moveTime(col string, v any, shift time.Duration) any {
	n, ok := v.(json.Number)
	if !ok || !slices.Contains(timeColumns, col) {
		return v
	}
	i, err := n.Int64()
	if err != nil || i == 0 {
		return v
	}
	if i > 1e12 {
		return json.Number(strconv.FormatInt(i+shift.Milliseconds(), 10))
	}
	return json.Number(strconv.FormatInt(i+int64(shift.Seconds()), 10))
}

// sqlValue is v as an SQL literal.
func sqlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case json.Number:
		return x.String()
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		if x {
			return "1"
		}
		return "0"
	}
	b, _ := json.Marshal(v)
	return "'" + strings.ReplaceAll(string(b), "'", "''") + "'"
}

func gunzip(from, to string) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, z); err != nil {
		out.Close()
		return fmt.Errorf("%s: %w", from, err)
	}
	return out.Close()
}
