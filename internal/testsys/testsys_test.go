package testsys

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMkfifoMakesANamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	Mkfifo(t, p)
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is %v, want a named pipe", p, fi.Mode())
	}
}
