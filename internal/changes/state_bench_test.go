package changes

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/store"
)

// BenchmarkCarriedState is what the session-start briefing pays to tell
// whether the worktree holds the latest handoff's changes, by the patch's
// size: it reads the patch's headers sidecar (written here as save and
// import write it) and hashes the files it names, so the
// patch is not read and the cost does not grow with it (no git apply,
// which took 0.28 / 1.86 / 8.68 / 15.65 s for 4 / 8.5 / 16.7 / 29.6 MB;
// issue 49). A patch over MaxPatch (64 MiB here), which save refuses and
// a bundle may bring, is refused by its size, unread.
//
//	go test -run '^$' -bench CarriedState -benchmem ./internal/changes/
func BenchmarkCarriedState(b *testing.B) {
	for _, mb := range []int{1, 4, 16, 31, 64} {
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			s, err := store.Open(filepath.Join(b.TempDir(), "store"))
			if err != nil {
				b.Fatal(err)
			}
			patch := bigPatch(mb << 20)
			sha, size, err := s.PutBlob(bytes.NewReader(patch), int64(len(patch))+1)
			if err != nil {
				b.Fatal(err)
			}
			rec, err := handoff.New(time.Now(), "codex", "big")
			if err != nil {
				b.Fatal(err)
			}
			rec.Attachments = []handoff.Attachment{{Name: Name, MediaType: handoff.ChangesMediaType, SHA256: sha, Size: size}}
			if err := KeepHeaders(s, rec.Attachments[0]); err != nil {
				b.Fatal(err)
			}
			root := b.TempDir()
			b.ResetTimer()
			for b.Loop() {
				n, st, err := CarriedState(s, rec, root)
				if mb<<20 > MaxPatch {
					// Over what save writes (a bundle may bring one):
					// refused by its size, unread.
					if err == nil || !strings.Contains(err.Error(), "over") {
						b.Fatalf("a patch over MaxPatch: %d files, %v, %v", n, st, err)
					}
					continue
				}
				if err != nil || n != 1 || st == AllApplied {
					b.Fatalf("%d files, %v, %v", n, st, err)
				}
			}
		})
	}
}

// bigPatch is a session-handoff patch of about n bytes: one new file of
// many lines.
func bigPatch(n int) []byte {
	line := "+" + strings.Repeat("x", 99) + "\n"
	lines := n / len(line)
	var b bytes.Buffer
	b.WriteString(header + "\n# base 0123456789abcdef0123456789abcdef01234567\n")
	b.WriteString("diff --git a/big.txt b/big.txt\nnew file mode 100644\nindex 0000000000000000000000000000000000000000..0123456789abcdef0123456789abcdef01234567\n--- /dev/null\n+++ b/big.txt\n")
	fmt.Fprintf(&b, "@@ -0,0 +1,%d @@\n", lines)
	for range lines {
		b.WriteString(line)
	}
	return b.Bytes()
}
