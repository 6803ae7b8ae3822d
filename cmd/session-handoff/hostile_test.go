package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/paths"
)

// TestImportRefusesHostileBundles runs every bundle of the hostile corpus
// through the CLI's import and verify, as a user would, and checks the
// promises of the command line: a non-zero exit, one error line (and at
// most a hint) naming the command and the file, and nothing written to the
// store.
func TestImportRefusesHostileBundles(t *testing.T) {
	corpus := filepath.Join("..", "..", "testdata", "bundles")
	files, err := filepath.Glob(filepath.Join(corpus, "bad", "*.handoff"))
	if err != nil || len(files) < 60 {
		t.Fatalf("hostile corpus missing or small: %d files, %v", len(files), err)
	}
	keys := filepath.Join(corpus, "keys")
	pass, err := os.ReadFile(filepath.Join(keys, "passphrase.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".handoff")
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			// Import stages blobs under TMPDIR: give it one of its own, to
			// prove that a refused import leaves nothing there.
			staging := t.TempDir()
			t.Setenv("TMPDIR", staging)
			cfg := filepath.Join(home, "config")
			if err := os.MkdirAll(cfg, 0o700); err != nil {
				t.Fatal(err)
			}
			copyFile(t, filepath.Join(keys, "age.txt"), filepath.Join(cfg, "age_identity.txt"))
			copyFile(t, filepath.Join(keys, "allowed_signers"), filepath.Join(cfg, "allowed_signers"))
			env := map[string]string{paths.HomeEnv: home, passphraseEnv: strings.TrimSpace(string(pass))}
			var extra []string
			if opts, err := os.ReadFile(strings.TrimSuffix(f, ".handoff") + ".opts.json"); err == nil {
				var o struct {
					Limits     map[string]int64 `json:"limits"`
					Passphrase string           `json:"passphrase"`
				}
				if err := json.Unmarshal(opts, &o); err != nil {
					t.Fatal(err)
				}
				if len(o.Limits) == 0 && o.Passphrase == "" {
					t.Skip("needs reader options the CLI does not have (covered by the bundle package)")
				}
				for k, v := range o.Limits {
					if v != 0 {
						extra = append(extra, "--"+flagForLimit(k), strconv.FormatInt(v, 10))
					}
				}
				if o.Passphrase != "" {
					env[passphraseEnv] = o.Passphrase
				}
			}
			for _, cmd := range []string{"import", "verify"} {
				var stdout, stderr bytes.Buffer
				a := &app{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
					getenv: func(k string) string { return env[k] }}
				code := a.run(append([]string{cmd, f}, extra...))
				if code == exitOK {
					t.Fatalf("%s accepted a hostile bundle; stdout: %s", cmd, stdout.String())
				}
				lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
				if len(lines) > 2 || (len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ")) {
					t.Errorf("%s: want one error line and at most a hint, got %q", cmd, stderr.String())
				}
				if cmd == "import" && !strings.HasPrefix(lines[0], "session-handoff: import: "+f+": ") {
					t.Errorf("import: error does not name the command and file: %q", lines[0])
				}
				if _, err := os.Stat(filepath.Join(home, "data")); !os.IsNotExist(err) {
					t.Fatalf("%s wrote to the store: %v", cmd, err)
				}
				if left, _ := os.ReadDir(staging); len(left) > 0 {
					t.Errorf("%s left %d files in the staging directory", cmd, len(left))
				}
			}
		})
	}
}

func flagForLimit(field string) string {
	return map[string]string{
		"MaxInput": "max-input", "MaxDecompressed": "max-decompressed", "MaxWindow": "max-window",
		"MaxEntries": "max-entries", "MaxEntrySize": "max-entry-size", "MaxManifest": "max-manifest",
		"MaxScryptWorkFactor": "max-scrypt-work-factor",
	}[field]
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
