package remote

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

func TestConfigAddListRemove(t *testing.T) {
	dir := t.TempDir()
	add := func(r Remote) error { return UpdateConfig(dir, func(c *Config) error { return c.Add(r) }) }
	if err := add(Remote{Name: "team", URL: "git@host:team/handoffs.git"}); err != nil {
		t.Fatal(err)
	}
	if err := add(Remote{Name: "ci", URL: "https://bot:tok3n@example.com/x.git", Branch: "inbox/v1"}); err != nil {
		t.Fatal(err)
	}
	if err := add(Remote{Name: "team", URL: "/elsewhere"}); !errors.Is(err, ErrRemoteExists) {
		t.Fatalf("duplicate: %v", err)
	}
	c, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	list := c.List()
	if len(list) != 2 || list[0].Name != "ci" || list[1].Branch != DefaultBranch || list[0].Branch != "inbox/v1" {
		t.Fatalf("list: %+v", list)
	}
	if strings.Contains(list[0].DisplayURL(), "tok3n") {
		t.Fatalf("display URL: %s", list[0].DisplayURL())
	}
	if info, err := os.Stat(ConfigPath(dir)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("remotes file mode: %v %v", info.Mode(), err)
	}
	if err := UpdateConfig(dir, func(c *Config) error { return c.Remove("ci") }); err != nil {
		t.Fatal(err)
	}
	if err := UpdateConfig(dir, func(c *Config) error { return c.Remove("ci") }); !errors.Is(err, ErrNoRemote) {
		t.Fatalf("second rm: %v", err)
	}
}

func TestConfigRefusesBadRemotes(t *testing.T) {
	for _, r := range []Remote{
		{Name: "Team", URL: "u"},
		{Name: "a.b", URL: "u"},
		{Name: "", URL: "u"},
		{Name: strings.Repeat("a", 33), URL: "u"},
		{Name: "t", URL: ""},
		{Name: "t", URL: "--upload-pack=evil"},
		{Name: "t", URL: "has space"},
		{Name: "t", URL: "tab\there"},
		{Name: "t", URL: "u", Branch: "../x"},
		{Name: "t", URL: "u", Branch: "-x"},
		{Name: "t", URL: "u", Branch: "a..b"},
		{Name: "t", URL: "u", Branch: "x.lock"},
		{Name: "t", URL: "u", Branch: "x/"},
	} {
		if err := (&Config{}).Add(r); err == nil {
			t.Errorf("Add(%+v) accepted", r)
		}
	}
	dir := t.TempDir()
	testsys.Check(t, os.WriteFile(ConfigPath(dir), []byte("team\turl\thandoffs\n"), 0o600))
	if _, err := LoadConfig(dir); err == nil || !strings.Contains(err.Error(), ":1: not a session-handoff remotes file") {
		t.Fatalf("load: %v", err)
	}
}

// A torn last line of the ledger (a crash mid-append) is ignored, and the
// next append starts on its own line.
func TestLedgerTornLine(t *testing.T) {
	dir := t.TempDir()
	l, err := loadLedger(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	a, b := strings.Repeat("a", 32), strings.Repeat("b", 32)
	if err := l.recordAll([]ledgerEntry{ledgerEntry{Time: now, BundleID: a, Outcome: ledgerRejected, Remote: "team", Detail: "bad\tthing\nhere"}}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, LedgerFile), os.O_APPEND|os.O_WRONLY, 0)
	testsys.Check(t, err)
	_, err = f.WriteString("2026-11-23T09:00:00.000Z\t" + b + "\timpor")
	testsys.Check(t, err)
	testsys.Check(t, f.Close())
	if l, err = loadLedger(dir); err != nil || len(l.entries) != 1 || l.entries[a].Detail != "bad thing here" {
		t.Fatalf("after torn append: %+v %v", l, err)
	}
	if err := l.recordAll([]ledgerEntry{ledgerEntry{Time: now, BundleID: b, Outcome: ledgerImported, Remote: "team", Detail: "01M83T4CM0"}}); err != nil {
		t.Fatal(err)
	}
	l, err = loadLedger(dir)
	if err != nil || len(l.entries) != 2 || l.entries[b].Outcome != ledgerImported {
		t.Fatalf("after repair: %+v %v", l, err)
	}
	// A ledger whose only line is torn starts over with its header.
	dir2 := t.TempDir()
	testsys.Check(t, os.WriteFile(filepath.Join(dir2, LedgerFile), []byte("session-handoff-inb"), 0o600))
	l2, err := loadLedger(dir2)
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.recordAll([]ledgerEntry{ledgerEntry{Time: now, BundleID: a, Outcome: ledgerImported, Remote: "t"}}); err != nil {
		t.Fatal(err)
	}
	if l2, err = loadLedger(dir2); err != nil || len(l2.entries) != 1 {
		t.Fatalf("%+v %v", l2, err)
	}
}

// The remotes file keeps the format users' files hold, byte for byte.
func TestConfigFileFormat(t *testing.T) {
	dir := t.TempDir()
	err := UpdateConfig(dir, func(c *Config) error {
		if err := c.Add(Remote{Name: "team", URL: "git@host:team/handoffs.git"}); err != nil {
			return err
		}
		return c.Add(Remote{Name: "ci", URL: "/srv/x.git", Branch: "inbox/v1"})
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ConfigPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	want := "session-handoff-remotes 1\n# NAME<TAB>URL<TAB>BRANCH; managed by 'session-handoff remote'\n" +
		"ci\t/srv/x.git\tinbox/v1\nteam\tgit@host:team/handoffs.git\t" + DefaultBranch + "\n"
	if string(data) != want {
		t.Fatalf("remotes file:\n%q\nwant\n%q", data, want)
	}
}

// The clone's configuration is written without git: every value reads
// back as it was, whatever characters it holds.
func TestAppendConfigReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte("[core]\n\tbare = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	odd := `file:///a "quoted" \back\slash; # not a comment` + "\ttab"
	if err := appendConfig(path, [][2]string{{"remote.origin.url", odd}, {"core.hooksPath", "/x y/z"}}); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"remote.origin.url": odd, "core.hooksPath": "/x y/z", "core.bare": "false"} {
		if got := gitT(t, "", "config", "--file", path, "--get", key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
}
