package opencode

// OpenCode's database: where it is, and its tables as this reader reads
// them. The schema is opencode 1.18.33's (packages/opencode/src/session/
// session.sql.ts of github.com/anomalyco/opencode, formerly sst/opencode;
// checked against the databases the binary wrote, testdata/real-e2e):
// rowid tables
//
//	session (id, project_id, parent_id, slug, directory, title, version, …,
//	         time_created, time_updated, time_archived)
//	message (id, session_id, time_created, time_updated, data)  data: JSON
//	part    (id, message_id, session_id, time_created, time_updated, data)
//	todo    (session_id, content, status, priority, position, …)
//
// with times in milliseconds since the epoch. The database is in WAL mode
// and OpenCode does not checkpoint it when it exits: internal/sqlitefile
// reads it with its -wal file, as of the last commit, without writing.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-handoff/session-handoff/internal/sqlitefile"
)

// Dirs are the directories of a program in OpenCode's layout (OwnDirs):
// its configuration directory (opencode.json, AGENTS.md, plugin/), then
// the database file itself when l.DBVar names one, then its data
// directory, where the database is. They are xdg-basedir's
// ($XDG_CONFIG_HOME, else ~/.config; $XDG_DATA_HOME, else ~/.local/share)
// joined with l.Stem (Global.Path of opencode 1.18.33); l.DBVar
// (OPENCODE_DB), absolute or relative to the data directory, replaces the
// database's file.
func Dirs(l Layout) func(home string, getenv func(string) string) []string {
	return func(home string, getenv func(string) string) []string {
		base := func(v, def string) string {
			if d := getenv(v); d != "" && filepath.IsAbs(d) {
				return d
			}
			return filepath.Join(home, def)
		}
		config := filepath.Join(base("XDG_CONFIG_HOME", ".config"), l.Stem)
		data := filepath.Join(base("XDG_DATA_HOME", filepath.Join(".local", "share")), l.Stem)
		if db := getenv(l.DBVar); db != "" && db != ":memory:" {
			if !filepath.IsAbs(db) {
				db = filepath.Join(data, db)
			}
			return []string{config, db, data}
		}
		return []string{config, data}
	}
}

// databases are the database files under root: root itself when it is a
// file (OPENCODE_DB), else its <stem>.db and the channels' databases,
// <stem>-<channel>.db (a build of the dev or another channel keeps its
// own: packages/opencode/src/storage/db.ts of opencode 1.18.33).
func databases(root, stem string) []string {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if fi.Mode().IsRegular() {
		return []string{root}
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if n == stem+".db" || strings.HasPrefix(n, stem+"-") && strings.HasSuffix(n, ".db") {
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(root, n))
			}
		}
	}
	return out
}

// maxDatabase bounds the database file (and its WAL): it holds every
// session the user had, not one.
const maxDatabase = sqlitefile.DefaultMaxFile

// openDB opens an OpenCode database read-only, one row at most maxRow
// bytes (but never less than minRow: a session's own row must read).
func openDB(path string, maxRow int) (*sqlitefile.DB, error) {
	return sqlitefile.Open(path, rowLimits(maxRow))
}

// minRow is the least row size read whatever the limit on a message's
// or a part's data: a session row holds its title, directory and
// permissions, a few kilobytes.
const minRow = 64 << 10

func rowLimits(maxRow int) sqlitefile.Limits {
	return sqlitefile.Limits{MaxFile: maxDatabase, MaxRecord: int64(max(maxRow, minRow))}
}

// openTable finds table name with the columns cols, or says which one
// the database lacks.
func openTable(db *sqlitefile.DB, name string, cols ...string) (*sqlitefile.Named, error) {
	return db.TableOf("an OpenCode database", name, cols...)
}

// sessionRow is a row of the session table.
type sessionRow struct {
	id, parent, title, directory, version string
	created, updated                      int64
}

// sessions reads the session table.
func sessions(db *sqlitefile.DB) ([]sessionRow, error) {
	t, err := openTable(db, "session", "id", "parent_id", "title", "directory", "version", "time_created", "time_updated")
	if err != nil {
		return nil, err
	}
	var out []sessionRow
	err = t.Scan(func(r *sqlitefile.Row) error {
		var s sessionRow
		var err error
		for _, f := range []struct {
			col string
			to  *string
		}{{"id", &s.id}, {"parent_id", &s.parent}, {"title", &s.title}, {"directory", &s.directory}, {"version", &s.version}} {
			if *f.to, err = t.Text(r, f.col); err != nil {
				return err
			}
		}
		if s.created, err = t.Int(r, "time_created"); err != nil {
			return err
		}
		if s.updated, err = t.Int(r, "time_updated"); err != nil {
			return err
		}
		if len(out) >= maxSessions {
			return fmt.Errorf("more than %d sessions", maxSessions)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// maxSessions bounds the sessions read from one database.
const maxSessions = 1 << 20
