package legacy

import (
	"errors"
	"strings"
	"testing"
)

func TestTranslateArgs(t *testing.T) {
	for _, tc := range []struct {
		in, want string // space-separated
		notes    int
	}{
		{"render --id latest", "render latest", 1},
		{"render --id 20260312 --target claude-code", "render 20260312 --target claude-code", 1},
		{"--store /s render --id=X", "--store /s render X", 1},
		{"export --id latest --target claude-code --output handoff.md", "export latest --target claude-code --output handoff.md --format markdown", 2},
		{"export --id 20260312 --format json --output handoff.json", "export 20260312 --format json --output handoff.json", 1},
		{"import --input handoff.json --allow-unsigned", "import handoff.json --allow-unsigned", 1},
		{"import --input handoff.json --on-conflict skip --allow-unsigned", "import handoff.json --on-conflict skip --allow-unsigned", 1},
		{"export latest --passphrase -o f", "export latest --passphrase -o f", 0},
		{"export --passphrase latest -o f", "export --passphrase latest -o f", 0},
		{"list --id 20260312 --json", "list --id 20260312 --json", 0},
		{"select --id 20260312 --print-id", "select --id 20260312 --print-id", 0},
		{"save --title t -- --id x", "save --title t -- --id x", 0},
		{"render -- --id x", "render -- --id x", 0},
	} {
		got, err := TranslateArgs(strings.Fields(tc.in))
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if strings.Join(got.Args, " ") != tc.want || len(got.Notes) != tc.notes {
			t.Errorf("%q: got %q with notes %q, want %q with %d notes", tc.in, got.Args, got.Notes, tc.want, tc.notes)
		}
	}
}

// Flags that have no safe meaning now fail with the current form, and a
// passphrase given on the command line is never quoted back.
func TestTranslateArgsRefuses(t *testing.T) {
	for _, tc := range []struct{ in, msg, hint string }{
		{"import --input h.json --passphrase s3cr3t-Pa55", "no longer takes the passphrase", "import needs no --passphrase: write 'session-handoff import FILE'"},
		{"import h.json --passphrase=s3cr3t-Pa55", "no longer takes the passphrase", "--passphrase-file"},
		{"export --id latest --format json --passphrase s3cr3t-Pa55 --output x", "no longer takes the passphrase", "export ID --passphrase"},
		{"export latest --passphrase=s3cr3t-Pa55 -o x", "no longer takes the passphrase", "--passphrase-file"},
		{"export --passphrase 5EC7E7 -o x", "no longer takes the passphrase", "--passphrase-file"}, // an id prefix in shape, but not a whole id
		{"export --id latest --sign-key k.pem -o x", "--sign-key is gone", "keygen"},
		{"export --id latest --signer wregen -o x", "--signer is gone", "trust add"},
		{"render --id a --id b", "named twice", "render X"},
		{"import --input", "needs a value", "import X"},
		{"push --name bot", "session-handoff send", ""},
		{"--store /s auto /w --name bot", "session-handoff snapshot", ""},
		{"init . --name Aria", "memory init [DIR] [--force]'; the agent's name goes into SOUL.md", ""},
	} {
		_, err := TranslateArgs(strings.Fields(tc.in))
		var ae *ArgError
		if !errors.As(err, &ae) {
			t.Errorf("%q: %v, want an ArgError", tc.in, err)
			continue
		}
		if !strings.Contains(ae.Msg, tc.msg) || !strings.Contains(ae.Hint, tc.hint) {
			t.Errorf("%q: %q / %q, want %q / %q", tc.in, ae.Msg, ae.Hint, tc.msg, tc.hint)
		}
		if strings.Contains(ae.Msg+ae.Hint, "s3cr3t") || strings.Contains(ae.Msg+ae.Hint, "5EC7E7") {
			t.Errorf("%q: the passphrase is quoted: %q / %q", tc.in, ae.Msg, ae.Hint)
		}
	}
}
