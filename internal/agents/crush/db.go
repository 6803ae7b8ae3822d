package crush

// Crush's databases: where they are, and their tables as this reader
// reads them. The schema is that of internal/db/migrations of
// github.com/charmbracelet/crush v0.90.0 (checked against the databases
// it wrote, testdata/real-e2e): rowid tables
//
//	sessions (id, parent_session_id, title, message_count, prompt_tokens,
//	          completion_tokens, cost, updated_at, created_at,
//	          summary_message_id, todos)   todos: JSON
//	messages (id, session_id, role, parts, model, created_at, updated_at,
//	          finished_at, provider, is_summary_message)   parts: JSON
//
// with times in seconds since the epoch. Each project keeps its own
// database, <data directory>/crush.db, the data directory being the
// nearest .crush from the working directory up to the project's root,
// or --data-dir, or options.data_directory; the global data directory's
// projects.json lists every project with its data directory
// (internal/projects, v0.90.0).

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/sqlitefile"
)

// ownDirs are Crush's global directories: its configuration directory
// (crush.json, CRUSH.md), then its data directory (projects.json).
// $CRUSH_GLOBAL_CONFIG, else $XDG_CONFIG_HOME/crush, else ~/.config/crush;
// $CRUSH_GLOBAL_DATA, else $XDG_DATA_HOME/crush, else ~/.local/share/crush
// (GlobalConfig, GlobalConfigData of internal/config/load.go, v0.90.0).
func ownDirs(home string, getenv func(string) string) []string {
	dir := func(own, xdg, def string) string {
		if d := getenv(own); d != "" && filepath.IsAbs(d) {
			return d
		}
		if d := getenv(xdg); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "crush")
		}
		return filepath.Join(home, def, "crush")
	}
	return []string{dir("CRUSH_GLOBAL_CONFIG", "XDG_CONFIG_HOME", ".config"),
		dir("CRUSH_GLOBAL_DATA", "XDG_DATA_HOME", filepath.Join(".local", "share"))}
}

// dbName is a project's database file in its data directory
// (internal/db/connect.go, v0.90.0).
const dbName = "crush.db"

// project is a project's database and its working directory ("" when
// not known).
type project struct {
	db, dir string
}

// maxProjects bounds projects.json: it lists every project the user ran
// Crush in.
const maxProjects = 1 << 20

// databases are the databases root leads to: root itself when it is a
// file, its own crush.db when it is a data directory, and the databases
// of the projects its projects.json lists.
func databases(root string) []project {
	fi, err := os.Stat(root)
	if err != nil {
		return nil
	}
	if fi.Mode().IsRegular() {
		return []project{{db: root, dir: projectDir(root)}}
	}
	var out []project
	if fi, err := os.Stat(filepath.Join(root, dbName)); err == nil && fi.Mode().IsRegular() {
		out = append(out, project{db: filepath.Join(root, dbName), dir: projectDir(filepath.Join(root, dbName))})
	}
	list, err := readProjects(filepath.Join(root, "projects.json"))
	if err != nil {
		return out
	}
	for _, p := range list {
		if p.DataDir == "" || !filepath.IsAbs(p.DataDir) {
			continue
		}
		db := filepath.Join(p.DataDir, dbName)
		if fi, err := os.Stat(db); err == nil && fi.Mode().IsRegular() {
			out = append(out, project{db: db, dir: p.Path})
		}
	}
	return out
}

// projectEntry is one project of projects.json (Project of
// internal/projects, v0.90.0).
type projectEntry struct {
	Path    string `json:"path"`
	DataDir string `json:"data_dir"`
}

// readProjects reads a projects.json, at most maxProjects bytes.
func readProjects(path string) ([]projectEntry, error) {
	f, _, err := safefile.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxProjects+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxProjects {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxProjects)
	}
	var list struct {
		Projects []projectEntry `json:"projects"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return list.Projects, nil
}

// projectDir is the working directory of the database at path when its
// data directory is the default .crush in the project: its parent.
func projectDir(path string) string {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == ".crush" {
		return filepath.Dir(dir)
	}
	return ""
}

// maxDatabase bounds the database file (and its WAL): it holds every
// session of the project, not one.
const maxDatabase = sqlitefile.DefaultMaxFile

// minRow is the least row size read whatever the limit on a message's
// parts: a session row holds its title and todo list.
const minRow = 64 << 10

// openDB opens a Crush database read-only, one row at most maxRow bytes
// (but never less than minRow).
func openDB(path string, maxRow int) (*sqlitefile.DB, error) {
	return sqlitefile.Open(path, sqlitefile.Limits{MaxFile: maxDatabase, MaxRecord: int64(max(maxRow, minRow))})
}

// openTable finds table name with the columns cols, or says which one
// the database lacks.
func openTable(db *sqlitefile.DB, name string, cols ...string) (*sqlitefile.Named, error) {
	return db.TableOf("a Crush database", name, cols...)
}

// sessionRow is a row of the sessions table.
type sessionRow struct {
	id, parent, title, summary, todos string
	messages, created, updated        int64
	// todosTooLarge: the todo list lay beyond the row limit.
	todosTooLarge bool
}

// maxSessions bounds the sessions read from one database.
const maxSessions = 1 << 20

// sessions reads the sessions table.
func sessions(db *sqlitefile.DB) ([]sessionRow, error) {
	t, err := openTable(db, "sessions", "id", "parent_session_id", "title", "message_count", "created_at", "updated_at", "summary_message_id", "todos")
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
		}{{"id", &s.id}, {"parent_session_id", &s.parent}, {"title", &s.title}, {"summary_message_id", &s.summary}} {
			if *f.to, err = t.Text(r, f.col); err != nil {
				return err
			}
		}
		for _, f := range []struct {
			col string
			to  *int64
		}{{"message_count", &s.messages}, {"created_at", &s.created}, {"updated_at", &s.updated}} {
			if *f.to, err = t.Int(r, f.col); err != nil {
				return err
			}
		}
		// The todo list is the last column: a row too large to read
		// whole loses it, not the session.
		if s.todos, err = t.Text(r, "todos"); err != nil {
			if !r.TooLarge() {
				return err
			}
			s.todos, s.todosTooLarge = "", true
		}
		if len(out) >= maxSessions {
			return fmt.Errorf("more than %d sessions", maxSessions)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}
