//go:build unix

package store

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// readOnlyEnv names, in the test binary run as nobody, the store to list.
const readOnlyEnv = "STORE_TEST_READ_ONLY_DIR"

// TestMain's helper: as nobody, list the store and print how many records.
func init() {
	if dir := os.Getenv(readOnlyEnv); dir != "" {
		s, err := Open(dir)
		if err == nil {
			var es []Entry
			if es, err = s.List(Filter{}); err == nil {
				fmt.Println("listed", len(es))
				os.Exit(0)
			}
		}
		fmt.Println("error:", err)
		os.Exit(1)
	}
}

// readAsNobody copies the store at dir where nobody (uid 65534) reaches
// it, owned by nobody but not writable (0500), and lists it as nobody
// through a copy of this test binary, which must list want records.
func readAsNobody(t *testing.T, dir string, want int) {
	t.Helper()
	const nobody = 65534
	base, err := os.MkdirTemp("", "readonly")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "store"), 0o700); os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(base, "store")
	if out, err := exec.Command("cp", "-a", dir, store).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	if out, err := exec.Command("chown", "-R", strconv.Itoa(nobody)+":"+strconv.Itoa(nobody), store).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v: %s", err, out)
	}
	if err := os.Chmod(store, 0o500); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "store.test")
	copyFile(t, self, bin)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), readOnlyEnv+"="+store)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "listed "+strconv.Itoa(want) {
		t.Fatalf("as nobody: %v: %s", err, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
