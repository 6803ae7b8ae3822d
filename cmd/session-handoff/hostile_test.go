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
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// hostileBundle is one bundle of the hostile corpus in testdata/bundles/bad
// and how the CLI is to be given it: the sentinel error and message its
// .err file names, and what its .opts.json asks of the reader, turned into
// flags, environment and keyring changes.
type hostileBundle struct {
	name, path string
	// sentinel is the error the bundle package must give (first line of
	// the .err file), message a substring of its text (second line).
	sentinel, message string
	flags             []string // reader limits as flags
	passphrase        string   // replaces the corpus passphrase when set
	noIdentity        bool     // read without the reader's age identity
	noTrust           bool     // read with an empty trust store
	// skip, when set, says why the CLI cannot give this bundle what it
	// needs (the bundle package covers it).
	skip string
}

// hostileBundleCorpus is where the hostile bundles and the test keys are.
var hostileBundleCorpus = filepath.Join("..", "..", "testdata", "bundles")

// loadHostileBundles reads the hostile corpus and its sidecar files.
func loadHostileBundles(t *testing.T) []hostileBundle {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(hostileBundleCorpus, "bad", "*.handoff"))
	if err != nil || len(files) < 60 {
		t.Fatalf("hostile corpus missing or small: %d files, %v", len(files), err)
	}
	var out []hostileBundle
	for _, f := range files {
		base := strings.TrimSuffix(f, ".handoff")
		b := hostileBundle{name: filepath.Base(base), path: f}
		want, err := os.ReadFile(base + ".err")
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(strings.TrimRight(string(want), "\n"), "\n", 2)
		if len(lines) != 2 {
			t.Fatalf("%s.err: want the sentinel and a message on two lines", b.name)
		}
		b.sentinel, b.message = lines[0], lines[1]
		if opts, err := os.ReadFile(base + ".opts.json"); err == nil {
			var o struct {
				Limits       map[string]int64 `json:"limits"`
				Passphrase   string           `json:"passphrase"`
				Identity     string           `json:"identity"`
				NoPassphrase bool             `json:"no_passphrase"`
				Trust        string           `json:"trust"`
				MinSigners   int              `json:"min_signers"`
			}
			dec := json.NewDecoder(bytes.NewReader(opts))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&o); err != nil {
				t.Fatalf("%s.opts.json: %v", b.name, err)
			}
			for k, v := range o.Limits {
				if v != 0 {
					b.flags = append(b.flags, "--"+flagForLimit(k), strconv.FormatInt(v, 10))
				}
			}
			b.passphrase = o.Passphrase
			b.noIdentity = o.Identity == "none"
			b.noTrust = o.Trust == "none"
			switch {
			case o.Identity != "" && o.Identity != "none":
				b.skip = "needs the identity " + o.Identity
			case o.NoPassphrase:
				// The CLI would ask on the terminal, if there is one.
				b.skip = "needs a reader without any passphrase source"
			case o.MinSigners != 0:
				b.skip = "needs a minimum number of signers, which the CLI does not have"
			}
		}
		out = append(out, b)
	}
	return out
}

// setUpKeys puts the reader's keys of the corpus in the keys directory cfg:
// its age identity and trust store, unless the bundle asks to go without.
func (b hostileBundle) setUpKeys(t *testing.T, cfg string) {
	t.Helper()
	keys := filepath.Join(hostileBundleCorpus, "keys")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{"age.txt": "age_identity.txt", "allowed_signers": "allowed_signers"} {
		testsys.Absent(t, filepath.Join(cfg, to))
		if (to == "age_identity.txt" && b.noIdentity) || (to == "allowed_signers" && b.noTrust) {
			continue
		}
		copyFile(t, filepath.Join(keys, from), filepath.Join(cfg, to))
	}
}

// env is the environment the CLI reads the bundle with.
func (b hostileBundle) env(t *testing.T, home string) map[string]string {
	t.Helper()
	pass, err := os.ReadFile(filepath.Join(hostileBundleCorpus, "keys", "passphrase.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{paths.HomeEnv: home, passphraseEnv: strings.TrimSpace(string(pass))}
	if b.passphrase != "" {
		env[passphraseEnv] = b.passphrase
	}
	return env
}

// TestImportRefusesHostileBundles runs every bundle of the hostile corpus
// through the CLI's import and verify, as a user would, and checks the
// promises of the command line: a non-zero exit, one error line (and at
// most a hint) naming the command and the file, and nothing written to the
// store. The hostile-input campaign (TestHostileCampaign) runs the same
// corpus with stricter checks: exit codes, messages, whole trees hashed.
func TestImportRefusesHostileBundles(t *testing.T) {
	for _, b := range loadHostileBundles(t) {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip + " (covered by the bundle package)")
			}
			home := t.TempDir()
			// Import stages blobs under TMPDIR: give it one of its own, to
			// prove that a refused import leaves nothing there.
			staging := t.TempDir()
			t.Setenv("TMPDIR", staging)
			b.setUpKeys(t, filepath.Join(home, "config"))
			env := b.env(t, home)
			for _, cmd := range []string{"import", "verify"} {
				var stdout, stderr bytes.Buffer
				a := newTestApp(context.Background(), nil, &stdout, &stderr, env)
				code := a.execute(append([]string{cmd, b.path}, b.flags...))
				if code == exitOK {
					t.Fatalf("%s accepted a hostile bundle; stdout: %s", cmd, stdout.String())
				}
				lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
				if len(lines) > 2 || (len(lines) == 2 && !strings.HasPrefix(lines[1], "hint: ")) {
					t.Errorf("%s: want one error line and at most a hint, got %q", cmd, stderr.String())
				}
				if cmd == "import" && !strings.HasPrefix(lines[0], "session-handoff: import: "+b.path+": ") {
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
