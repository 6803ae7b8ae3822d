package changes

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/session-handoff/session-handoff/internal/redact"
)

// BenchmarkMake is what save --with-changes pays in memory for a patch of
// each size: Make (git diff streamed to a file, CheckReader), the secret
// scan and one read of the whole patch, as the store reads it. B/op
// stays flat: the patch is never held (it was 35 / 48 / 68 / 114 MiB of
// peak RSS for 4 / 8.5 / 16.7 / 29.6 MB, and an error over 32 MiB;
// issue 49). 64 MB is over MaxPatch: refused (ErrTooLarge) once git's
// output passes it, with the message save prints (logged).
//
//	go test -run '^$' -bench 'Make$' -benchmem ./internal/changes/
func BenchmarkMake(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	for _, mb := range []int{1, 8, 31, 64} {
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			dir := b.TempDir()
			git := func(args ...string) {
				cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
				cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			git("init", "-q", "-b", "main")
			path := filepath.Join(dir, "data.txt")
			if err := os.WriteFile(path, []byte("first\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			git("add", ".")
			git("commit", "-q", "-m", "base")
			// Lines of 200 bytes: 31 MiB in one hunk of fewer than
			// MaxHunkLines lines.
			var text strings.Builder
			for i := 0; text.Len() < mb<<20; i++ {
				fmt.Fprintf(&text, "%08d %s\n", i, strings.Repeat("y", 190))
			}
			if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			red := redact.Default()
			var refusal sync.Once
			b.SetBytes(int64(text.Len()))
			b.ResetTimer()
			for b.Loop() {
				m, err := Make(b.Context(), dir)
				if mb > MaxPatch>>20 {
					if !errors.Is(err, ErrTooLarge) {
						b.Fatalf("got %v, want ErrTooLarge", err)
					}
					refusal.Do(func() { b.Logf("refused: %v", err) })
					continue
				}
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.Secrets(red); err != nil {
					b.Fatal(err)
				}
				r, err := m.Open()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				if err := m.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
