package doctor

import (
	"os"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/devsync"
	"github.com/session-handoff/session-handoff/internal/paths"
)

// The sync line: absent until sync is set up; a warning naming the fix
// when it is on with no device paired; a failure when its remote is not
// configured or the file is damaged; ok where it is off.
func TestCheckSync(t *testing.T) {
	dir := t.TempDir()
	s := Setup{ConfigDir: dir, DataDir: t.TempDir(), Project: "/work/app"}
	if _, ok := checkSync(s); ok {
		t.Fatal("a sync line before sync was set up")
	}
	if err := devsync.Set(dir, devsync.Setting{Scope: devsync.Global, On: true}); err != nil {
		t.Fatal(err)
	}
	if c, _ := checkSync(s); c.Status != Fail || c.Fix != "session-handoff remote add NAME URL" {
		t.Errorf("on without a remote: %+v", c)
	}
	if err := os.WriteFile(paths.ConfigDir(dir).Remotes(), []byte("session-handoff-remotes 1\nmine\tfile:///nowhere\thandoffs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, _ := checkSync(s); c.Status != Warn || c.Fix != "session-handoff devices add" {
		t.Errorf("on without a device: %+v", c)
	}
	if err := devsync.Set(dir, devsync.Setting{Scope: "/work/app", On: false}); err != nil {
		t.Fatal(err)
	}
	if c, _ := checkSync(s); c.Status != OK || !strings.Contains(c.Detail, "off") {
		t.Errorf("off for the project: %+v", c)
	}
	if err := os.WriteFile(paths.ConfigDir(dir).Sync(), []byte("garbage\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, _ := checkSync(s); c.Status != Fail || !strings.Contains(c.Detail, "sync:1:") {
		t.Errorf("a damaged file: %+v", c)
	}
}
