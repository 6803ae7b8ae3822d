package exchange

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/store"
)

// TestRedactedBlob checks both passes of an attachment with a secret: the
// described hash and size are those of the redacted bytes, Open streams
// exactly those bytes, and the report counts the secret once.
func TestRedactedBlob(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deploy.env")
	secret := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	// Enough lines that the redactor works through several windows.
	content := strings.Repeat("PLAIN=line of ordinary text\n", 20000) + "GITHUB_TOKEN=" + secret + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := &redact.Report{}
	src, err := redactedBlob(context.Background(), redact.Default(), path, rep)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Total() != 1 {
		t.Fatalf("report counts %d secrets, want 1", rep.Total())
	}
	rc, err := src.Open()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte(secret)) {
		t.Fatal("the streamed blob still holds the secret")
	}
	sum := sha256.Sum256(got)
	if int64(len(got)) != src.Size || hex.EncodeToString(sum[:]) != src.SHA256 {
		t.Fatalf("streamed %d bytes with sha256 %x; described as %d bytes, %s", len(got), sum, src.Size, src.SHA256)
	}
	if rep.Total() != 1 {
		t.Fatalf("opening the blob counted again: report has %d", rep.Total())
	}
}

// TestRedactedBlobChangedBetweenPasses: a file that changes after it was
// hashed must fail the export, whether or not the redactor found anything
// in it, and the bundle must not carry the new bytes under the old hash.
func TestRedactedBlobChangedBetweenPasses(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"clean", "just text\n", "just text, and more\n"},
		{"clean to secret", "TOKEN=placeholder\n", "GITHUB_TOKEN=ghp_" + strings.Repeat("x9", 18) + "\n"},
		{"secret", "GITHUB_TOKEN=ghp_" + strings.Repeat("y7", 18) + "\n", "GITHUB_TOKEN=ghp_" + strings.Repeat("z5", 18) + "\nmore\n"},
		// The same length, so the replay of the first pass's replacements
		// reads the new file in step: once the secret itself changed (the
		// redacted bytes stay the same), once the text around it.
		{"secret in place", "GITHUB_TOKEN=ghp_" + strings.Repeat("y7", 18) + "\n", "GITHUB_TOKEN=ghp_" + strings.Repeat("z5", 18) + "\n"},
		{"text beside a secret", "A=1\nGITHUB_TOKEN=ghp_" + strings.Repeat("y7", 18) + "\n", "A=2\nGITHUB_TOKEN=ghp_" + strings.Repeat("y7", 18) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.txt")
			if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
				t.Fatal(err)
			}
			src, err := redactedBlob(context.Background(), redact.Default(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.after), 0o600); err != nil {
				t.Fatal(err)
			}
			rec, err := handoff.New(time.Now(), "codex", "changed attachment")
			if err != nil {
				t.Fatal(err)
			}
			// Attached, as every blob of a bundle must be.
			rec.Attachments = []handoff.Attachment{{Name: src.Name, MediaType: src.MediaType, Size: src.Size, SHA256: src.SHA256}}
			m := &bundle.Manifest{Record: rec, Producer: bundle.Producer{Name: "session-handoff", Version: "test"}}
			err = bundle.Write(io.Discard, m, []bundle.BlobSource{src}, bundle.WriteOptions{NoEncrypt: true})
			if !errors.Is(err, bundle.ErrHashMismatch) {
				t.Fatalf("Write after the file changed: %v, want a hash mismatch", err)
			}
		})
	}
}

// TestRedactedBlobManySecrets: past maxReplayEdits replacements the second
// pass runs the redactor again rather than replaying them; either way it
// streams exactly the bytes the first pass hashed.
func TestRedactedBlobManySecrets(t *testing.T) {
	for _, n := range []int{3, maxReplayEdits + 1} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %d\nGITHUB_TOKEN=ghp_%036d\n", i, i)
		}
		path := filepath.Join(t.TempDir(), "many.env")
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		rep := &redact.Report{}
		src, err := redactedBlob(context.Background(), redact.Default(), path, rep)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Total() != n {
			t.Fatalf("%d secrets: report counts %d", n, rep.Total())
		}
		rc, err := src.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := redact.Default().String(b.String(), "x", nil)
		sum := sha256.Sum256(got)
		if string(got) != want || hex.EncodeToString(sum[:]) != src.SHA256 {
			t.Fatalf("%d secrets: the second pass streamed other bytes than the first hashed", n)
		}
	}
}

// TestExportStoredBlobChanged: a stored attachment is exported without a
// first pass and hashed once, by the store's reader as it streams; a blob
// whose bytes no longer match its name (the same size, or another) fails
// the export.
func TestExportStoredBlobChanged(t *testing.T) {
	for _, after := range []string{"hellO world\n", "hello world, and more\n", "hello\n"} {
		t.Run(fmt.Sprintf("%d bytes", len(after)), func(t *testing.T) {
			s, err := store.Open(filepath.Join(t.TempDir(), "data"))
			if err != nil {
				t.Fatal(err)
			}
			before := "hello world\n"
			sha, size, err := s.PutBlob(strings.NewReader(before), 1<<10)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := handoff.New(time.Now(), "codex", "stored attachment")
			if err != nil {
				t.Fatal(err)
			}
			rec.Attachments = []handoff.Attachment{{Name: "notes.txt", MediaType: "text/plain", Size: size, SHA256: sha}}
			var out bytes.Buffer
			if _, err := Export(context.Background(), &out, s, rec, ExportOptions{NoEncrypt: true, Producer: bundle.Producer{Name: "session-handoff", Version: "test"}}); err != nil {
				t.Fatalf("export of the blob as stored: %v", err)
			}
			path := filepath.Join(s.Dir(), "blobs", "sha256", sha)
			if err := os.Chmod(path, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(after), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Export(context.Background(), io.Discard, s, rec, ExportOptions{NoEncrypt: true, Producer: bundle.Producer{Name: "session-handoff", Version: "test"}})
			if err == nil || !strings.Contains(err.Error(), "notes.txt") {
				t.Fatalf("export after the blob changed to %q: %v", after, err)
			}
		})
	}
}
