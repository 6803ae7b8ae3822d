package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestUnsafeDriverNameIsQuotedWhole: the error for a driver name git cannot
// switch off quotes a bounded part of it without cutting a character in
// two (the name is the repository's, any bytes).
func TestUnsafeDriverNameIsQuotedWhole(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil && os.Getenv("CI") == "" {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	name := strings.Repeat("a", 79) + "€=" + strings.Repeat("b", 5000)
	cfg := filepath.Join(dir, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("[filter \"" + name + "\"]\n\tclean = false\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Runner{Dir: dir}.Untrusted(context.Background())
	if !errors.Is(err, ErrUnsafeConfig) {
		t.Fatalf("want ErrUnsafeConfig, got %v", err)
	}
	msg := err.Error()
	if strings.Contains(msg, `\x`) || !utf8.ValidString(msg) || strings.Contains(msg, "bbbbbbbbbb") {
		t.Errorf("the name is cut inside a character or not bounded: %s", msg)
	}
}
