package memory

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// BackupDir is where Migrate keeps the files it rewrote, inside the
// memory root (ignored by git through the root's .gitignore).
const BackupDir = ".backup"

// MigrateResult says what Migrate did, or with dry-run would do.
type MigrateResult struct {
	// Migrated are the files rewritten into the current form, relative to
	// the root, slash-separated.
	Migrated []string `json:"migrated"`
	// Backup is the directory holding each migrated file as it was, under
	// its path; empty when nothing was migrated or on a dry run.
	Backup string `json:"backup,omitempty"`
	// Problems are files left as they are, each with why.
	Problems []string `json:"problems,omitempty"`
}

// Migrate rewrites the files of the earlier agent-handover tool (header
// "<!-- agent-handover | layerN | DATE -->") into the current form, and
// puts a header on identity files another tool wrote without one
// (agent-handoff's SOUL.md, MEMORY.md, HANDOFF.md). Nothing is lost: a
// note or archive becomes one entry of its date holding its text, the
// state file keeps its text, an identity file keeps every byte.
//
// It is crash-safe and idempotent, like compaction: under the writers'
// lock, every file to migrate is first copied, as it is, into
// BackupDir/migrate-TIME/ (each copy written atomically and synced), and
// only then is each file replaced atomically. A crash leaves every file
// either as it was (and migrated by the next run) or migrated (and left
// alone by it), and the backup complete. With dryRun nothing is written.
func (d Dir) Migrate(dryRun bool, now time.Time) (MigrateResult, error) {
	res := MigrateResult{Migrated: []string{}}
	real, err := d.root(!dryRun)
	if err != nil {
		return res, err
	}
	if !dryRun {
		l, err := d.lock(real)
		if err != nil {
			return res, err
		}
		defer l.Unlock()
	}
	files, err := d.List(0, "")
	if err != nil {
		return res, err
	}
	type change struct {
		rel, path string
		old, new  []byte
	}
	var todo []change
	for _, f := range files {
		p, _, err := d.locate(real, f.Path, false)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		old, err := d.readRaw(p, f.Path)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		upd, err := d.migrated(p, f, old)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		if upd != nil {
			todo = append(todo, change{f.Path, p, old, upd})
			res.Migrated = append(res.Migrated, f.Path)
		}
	}
	if dryRun || len(todo) == 0 {
		return res, nil
	}
	backup, err := d.backupDir(real, now)
	if err != nil {
		return res, err
	}
	res.Backup = d.name(BackupDir + "/" + backup)
	for _, c := range todo {
		dst := filepath.Join(real, BackupDir, backup, filepath.FromSlash(c.rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return res, fmt.Errorf("backup: %w", err)
		}
		if err := safefile.WriteFile(dst, c.old, filePerm); err != nil {
			return res, fmt.Errorf("backup of %s: %w", d.name(c.rel), err)
		}
	}
	if err := ensureIgnored(real); err != nil {
		return res, err
	}
	for _, c := range todo {
		if err := safefile.WriteFile(c.path, c.new, filePerm); err != nil {
			return res, safefile.Wrap("write", d.name(c.rel), err)
		}
	}
	return res, nil
}

// migrated is the current form of the file f holding old, or nil when it
// is in the current form already.
func (d Dir) migrated(p string, f File, old []byte) ([]byte, error) {
	trimmed := bytes.TrimPrefix(old, []byte("\uFEFF"))
	if bytes.HasPrefix(trimmed, []byte(olderPrefix)) {
		doc, err := d.readDoc(p, f.Path)
		if err != nil {
			return nil, err
		}
		doc.Older = false
		out := doc.Format()
		if len(out) > MaxFileSize {
			return nil, fmt.Errorf("%s: would grow over the %d MiB limit for a memory file", d.name(f.Path), MaxFileSize>>20)
		}
		return out, nil
	}
	if f.Layer != 0 || f.Problem == "" {
		return nil, nil // current already, or damaged: left to the user
	}
	want, err := classify(f.Path)
	if err != nil {
		return nil, err
	}
	data, action, err := d.forceIdentity(p, f.Path, (&Doc{Header: want}).Format(), true)
	if err != nil || action == Kept {
		return nil, err
	}
	if !bytes.HasSuffix(data, old) {
		return nil, nil // an untouched template of ours: nothing to migrate
	}
	return data, nil
}

// backupDir picks a new directory name under BackupDir for this run.
func (d Dir) backupDir(real string, now time.Time) (string, error) {
	base := "migrate-" + now.UTC().Format("20060102T150405Z")
	for i := 0; i < 100; i++ {
		name := base
		if i > 0 {
			name = fmt.Sprintf("%s-%d", base, i+1)
		}
		_, err := os.Lstat(filepath.Join(real, BackupDir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return name, nil
		}
		if err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
	}
	return "", errors.New("backup: too many backups of this second")
}

// ensureIgnored adds BackupDir to the root's .gitignore, keeping every
// line it has.
func ensureIgnored(real string) error {
	p := filepath.Join(real, ".gitignore")
	old, err := safefile.ReadRegular(p, MaxFileSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf(".gitignore: %w", err)
	}
	merged, changed := mergeLines(old, []byte(gitignore+"# session-handoff memory migrate: the files as they were\n"+BackupDir+"/\n"))
	if !changed {
		return nil
	}
	if err := safefile.WriteFile(p, merged, filePerm); err != nil {
		return fmt.Errorf(".gitignore: %w", err)
	}
	return nil
}
