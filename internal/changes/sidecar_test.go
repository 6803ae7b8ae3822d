package changes

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
	"github.com/session-handoff/session-handoff/store"
)

// storedPatch stores patch in a new store as the changes.patch of a
// record, as save does (with its headers sidecar when keep is set), and
// returns the store, its directory, the record and the blob's path.
func storedPatch(t *testing.T, patch []byte, keep bool) (*store.Store, string, *handoff.Record, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	s, err := store.Open(dir)
	testsys.Check(t, err)
	sha, size, err := s.PutBlob(bytes.NewReader(patch), MaxPatch)
	testsys.Check(t, err)
	rec, err := handoff.New(time.Now(), "codex", "with changes")
	testsys.Check(t, err)
	at := handoff.Attachment{Name: Name, MediaType: handoff.ChangesMediaType, SHA256: sha, Size: size}
	rec.Attachments = []handoff.Attachment{at}
	if keep {
		testsys.Check(t, KeepHeaders(s, at))
	}
	return s, dir, rec, filepath.Join(dir, "blobs", "sha256", sha)
}

// sidecarPath is the headers sidecar's path of rec's patch in the store
// at dir.
func sidecarPath(dir string, rec *handoff.Record) string {
	at, _ := rec.Changes()
	return filepath.Join(dir, "blobs", "sidecars", at.SHA256+"."+SidecarKind)
}

// With the patch's headers sidecar, CarriedState reads none of the patch
// (issue 49: the session-start hook read the whole patch for its file
// headers, about 1 ms a MB): its bytes are damaged here, at the same
// size, which a read would find (the blob no longer matches its name),
// and the answer is the sidecar's. Without the sidecar the same call
// reads the patch and refuses it.
func TestCarriedStateReadsNoPatchWithItsSidecar(t *testing.T) {
	patch := bigPatch(1 << 20)
	s, dir, rec, blob := storedPatch(t, patch, true)
	if _, err := os.Lstat(sidecarPath(dir, rec)); err != nil {
		t.Fatalf("KeepHeaders wrote no sidecar: %v", err)
	}
	damaged := bytes.Replace(patch, []byte("+xxxx"), []byte("+yyyy"), 1)
	testsys.Check(t, os.WriteFile(blob, damaged, 0o600))
	n, st, err := CarriedState(s, rec, t.TempDir())
	if err != nil || n != 1 || st != NoneApplied {
		t.Errorf("with the sidecar: %d files, %v, %v; want 1, NoneApplied (the patch unread)", n, st, err)
	}
	testsys.Check(t, os.Remove(sidecarPath(dir, rec)))
	if _, _, err := CarriedState(s, rec, t.TempDir()); err == nil || !strings.Contains(err.Error(), "does not match its name") {
		t.Errorf("without the sidecar the damaged patch is read and refused; got %v", err)
	}
}

// Without a sidecar (a store of an earlier version), CarriedState reads
// the patch, as before, and writes the sidecar, which then says the
// same.
func TestCarriedStateWritesTheSidecarItLacked(t *testing.T) {
	s, dir, rec, _ := storedPatch(t, bigPatch(64<<10), false)
	root := t.TempDir()
	n, st, err := CarriedState(s, rec, root)
	if err != nil || n != 1 || st != NoneApplied {
		t.Fatalf("%d files, %v, %v", n, st, err)
	}
	data, err := os.ReadFile(sidecarPath(dir, rec))
	testsys.Check(t, err)
	at, _ := rec.Changes()
	files, ok := storedHeaders(s, at)
	if !ok || len(files) != 1 || files[0].Path != "big.txt" || files[0].Blob != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("the sidecar written:\n%s\nreads as %+v, %v", data, files, ok)
	}
}

// The sidecar reads back as exactly what headers read of the patch: the
// paths (one with a space, a quote, non-ASCII; git quotes the last two),
// the ids given in full, and none for a file whose index line lacks them.
func TestSidecarSaysWhatThePatchSays(t *testing.T) {
	patch := header + "\n# base " + strings.Repeat("a", 40) + "\n" +
		"diff --git a/plain.go b/plain.go\nindex " + strings.Repeat("1", 40) + ".." + strings.Repeat("2", 40) + " 100644\n--- a/plain.go\n+++ b/plain.go\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git \"a/odd \\\"n\\303\\251\\\" name\" \"b/odd \\\"n\\303\\251\\\" name\"\nnew file mode 100644\nindex " + strings.Repeat("0", 40) + ".." + strings.Repeat("3", 40) + "\n--- /dev/null\n+++ \"b/odd \\\"n\\303\\251\\\" name\"\n@@ -0,0 +1 @@\n+c\n" +
		"diff --git a/short.go b/short.go\nindex 1234567..89abcde 100644\n--- a/short.go\n+++ b/short.go\n@@ -1 +1 @@\n-a\n+b\n"
	want, err := headers(strings.NewReader(patch))
	testsys.Check(t, err)
	if len(want) != 3 || want[1].Path != "odd \"né\" name" || want[2].Blob != "" {
		t.Fatalf("the patch's headers: %+v", want)
	}
	s, _, rec, _ := storedPatch(t, []byte(patch), true)
	at, _ := rec.Changes()
	got, ok := storedHeaders(s, at)
	if !ok || len(got) != len(want) {
		t.Fatalf("the sidecar: %+v, %v; want %+v", got, ok, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d: the sidecar says %+v, the patch %+v", i, got[i], want[i])
		}
	}
}

// A damaged or planted sidecar is ignored: the patch is read as without
// one (one file, not applied), never what the sidecar says, and the
// sidecar is written again from the patch.
func TestCarriedStateIgnoresABadSidecar(t *testing.T) {
	patch := bigPatch(64 << 10)
	other := strings.Repeat("cd", 32)
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, path, head string)
	}{
		{"garbage", func(t *testing.T, path, _ string) {
			write(t, filepath.Dir(path), filepath.Base(path), "\x00\xffnot a sidecar")
		}},
		{"empty", func(t *testing.T, path, _ string) { write(t, filepath.Dir(path), filepath.Base(path), "") }},
		{"another patch's", func(t *testing.T, path, head string) {
			head = strings.Replace(head, head[len(header)+14:len(header)+14+64], other, 1)
			write(t, filepath.Dir(path), filepath.Base(path), head+"diff --git a/a b/a\ndiff --git a/b b/b\n")
		}},
		{"another size", func(t *testing.T, path, head string) {
			write(t, filepath.Dir(path), filepath.Base(path), strings.Replace(head, " 6", " 16", 1)+"diff --git a/a b/a\ndiff --git a/b b/b\n")
		}},
		{"a path out", func(t *testing.T, path, head string) {
			write(t, filepath.Dir(path), filepath.Base(path), head+"diff --git a/../../x b/../../x\n")
		}},
		{"a path into .git", func(t *testing.T, path, head string) {
			write(t, filepath.Dir(path), filepath.Base(path), head+"diff --git a/.git/config b/.git/config\n")
		}},
		{"no file", func(t *testing.T, path, head string) { write(t, filepath.Dir(path), filepath.Base(path), head) }},
		{"over the bound", func(t *testing.T, path, head string) {
			write(t, filepath.Dir(path), filepath.Base(path), head+"diff --git a/a b/a\ndiff --git a/b b/b\n# "+strings.Repeat("x", maxSidecar)+"\n")
		}},
		{"a link", func(t *testing.T, path, head string) {
			good := filepath.Join(t.TempDir(), "good")
			write(t, filepath.Dir(good), "good", head+"diff --git a/a b/a\ndiff --git a/b b/b\n")
			testsys.Check(t, os.Symlink(good, path))
		}},
		{"a directory", func(t *testing.T, path, _ string) { testsys.Check(t, os.Mkdir(path, 0o700)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir, rec, _ := storedPatch(t, patch, true)
			at, _ := rec.Changes()
			path := sidecarPath(dir, rec)
			testsys.Check(t, os.Remove(path))
			c.plant(t, path, sidecarHead(at))
			n, st, err := CarriedState(s, rec, t.TempDir())
			if err != nil || n != 1 || st != NoneApplied {
				t.Errorf("%d files, %v, %v; want the patch's 1 file, NoneApplied", n, st, err)
			}
			if c.name == "a directory" {
				return // left alone: the rename over it fails
			}
			if files, ok := storedHeaders(s, at); !ok || len(files) != 1 {
				t.Errorf("the sidecar was not written again from the patch: %+v, %v", files, ok)
			}
		})
	}
}

// A sidecar whose patch is gone says nothing: CarriedState reports the
// missing patch, as without a sidecar.
func TestCarriedStateWithASidecarButNoPatch(t *testing.T) {
	s, _, rec, blob := storedPatch(t, bigPatch(64<<10), true)
	testsys.Check(t, os.Remove(blob))
	if _, _, err := CarriedState(s, rec, t.TempDir()); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a sidecar without its patch: %v", err)
	}
}

// FuzzSidecarSaysWhatThePatchSays: whatever headers reads of a patch, the
// headers sidecar made of it reads back as exactly the same files.
func FuzzSidecarSaysWhatThePatchSays(f *testing.F) {
	f.Add([]byte(pre + fileDiff("a.go")))
	f.Add(bigPatch(4 << 10))
	for _, c := range hostile(f) {
		f.Add([]byte(c[0]))
	}
	at := handoff.Attachment{SHA256: strings.Repeat("ab", 32), Size: 1}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, err := headers(bytes.NewReader(data))
		if err != nil {
			return
		}
		side := sidecar(at, want)
		got, err := headers(bytes.NewReader(side))
		if err != nil || len(got) != len(want) {
			t.Fatalf("the sidecar\n%q\nreads as %+v, %v; the patch as %+v", side, got, err, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("file %d: the sidecar says %+v, the patch %+v", i, got[i], want[i])
			}
		}
	})
}
