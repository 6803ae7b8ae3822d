package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// More inputs of the hostile campaign for the classes of issue 16, made by
// the campaign: look-alike and invisible signer names beyond the first
// four, record takeover of a handoff saved on this machine, dates just
// past the clock-skew bound, credentials in a remote's URL query, and
// transcripts that are not files.

// moreLookAlikes are signer names that must never be pinned on first use
// while alice@test is trusted, each with the words the refusal must hold.
var moreLookAlikes = []lookAlike{
	{"tofu-greek-alpha", "\u03b1lice@test", "looks like a principal already trusted"},
	{"tofu-fullwidth-letter", "\uff41lice@test", "looks like a principal already trusted"},
	{"tofu-dotless-i", "al\u0131ce@test", "looks like a principal already trusted"},
	{"tofu-digit-one-for-l", "a1ice@test", "looks like a principal already trusted"},
	{"tofu-combining-mark", "alice\u0301@test", "normal form C"},
	{"tofu-soft-hyphen", "al\u00adice@test", "invisible"},
	{"tofu-line-separator", "alice@test\u2028", "whitespace"},
	{"tofu-word-joiner", "alice\u2060@test", "invisible"},
	{"tofu-right-to-left-mark", "alice@test\u200f", "invisible"},
}

func moreExchangeInputs() []hostileInput {
	input := func(e *hostileEnv) string { return filepath.Join(e.root, "made.handoff") }
	out := lookAlikeInputs(moreLookAlikes)

	// The handoff saved on this machine ("mine"), sent back under its own
	// id with other content by a trusted signer: never replaced without
	// --on-conflict replace.
	out = append(out, hostileInput{kind: kindBundles, name: "made/takeover-of-a-saved-record",
		place: func(e *hostileEnv) error {
			r := runCLI(e.env, "", "list", "--json")
			if r.code != 0 {
				return fmt.Errorf("list: %s", r.stderr)
			}
			id, err := firstID(r.stdout)
			if err != nil {
				return err
			}
			rec, err := campaignRecord(time.Now().Add(-time.Hour), "rewritten by a trusted sender")
			if err != nil {
				return err
			}
			rec.ID = id
			e.input = input(e)
			return campaignBundle(e, e.input, "signing.key", "alice@test", rec, "")
		},
		runs: []hostileRun{
			{args: []string{"import", "{input}"}, code: exitFailure, errHas: []string{"{input}", "a different handoff with this id is already stored"}},
			{args: []string{"list"}, outHas: []string{"Baseline"}, outNot: []string{"rewritten by a trusted sender"}},
		}})

	// Dates around the clock-skew bound of a day.
	for _, c := range []struct {
		name  string
		ahead time.Duration
		ok    bool
	}{
		{"record-25-hours-ahead", 25 * time.Hour, false},
		{"record-23-hours-ahead", 23 * time.Hour, true},
	} {
		run := hostileRun{args: []string{"import", "{input}"}, code: exitFailure, errHas: []string{"{input}", "dated in the future"}}
		if c.ok {
			run = hostileRun{args: []string{"import", "{input}"}, mayChange: []string{"home:data/"}, outHas: []string{"imported"}}
		}
		out = append(out, hostileInput{kind: kindBundles, name: "made/" + c.name,
			place: func(e *hostileEnv) error {
				rec, err := campaignRecord(time.Now().Add(c.ahead), "skewed")
				if err != nil {
					return err
				}
				e.input = input(e)
				return campaignBundle(e, e.input, "signing.key", "alice@test", rec, "")
			},
			runs: []hostileRun{run}})
	}
	return out
}

// firstID is the id of the first entry of list --json.
func firstID(listJSON string) (handoff.ID, error) {
	var es []struct {
		ID handoff.ID `json:"id"`
	}
	if err := json.Unmarshal([]byte(listJSON), &es); err != nil || len(es) == 0 {
		return "", fmt.Errorf("list --json: %v (%d entries)", err, len(es))
	}
	return es[0].ID, nil
}

// credentialURLs are remote URLs that carry a secret in their query or
// fragment; the secret must never be printed or written anywhere but the
// remote's own configuration.
var credentialURLs = []struct{ name, url string }{
	{"remote-access-token-query", "https://git.example.com/team/handoffs.git?access_token=SECRETTOKEN1"},
	{"remote-private-token-query", "https://git.example.com/team/handoffs.git?ref=main&private_token=SECRETTOKEN2"},
	{"remote-token-in-fragment", "https://git.example.com/team/handoffs.git#token=SECRETTOKEN3"},
	{"remote-userinfo-and-query", "https://user:SECRETTOKEN4@git.example.com/h.git?sig=SECRETTOKEN5"},
}

func credentialInputs() []hostileInput {
	var out []hostileInput
	for _, c := range credentialURLs {
		out = append(out, hostileInput{kind: kindConfigs, name: "made/" + c.name,
			place: func(e *hostileEnv) error {
				for _, s := range []string{"SECRETTOKEN1", "SECRETTOKEN2", "SECRETTOKEN3", "SECRETTOKEN4", "SECRETTOKEN5"} {
					if strings.Contains(c.url, s) {
						e.secrets = append(e.secrets, s)
					}
				}
				return nil
			},
			runs: []hostileRun{
				{args: []string{"remote", "add", "team", c.url}, mayChange: []string{"home:config/"}},
				{args: []string{"remote", "list"}, outHas: []string{"team", "git.example.com"}},
			},
			// The remote's configuration is where the user put the
			// secret: only there may it be.
			after: func(e *hostileEnv, _ map[string]treeState) error {
				e.secrets = nil
				return nil
			}})
	}
	return out
}

// fileTypeInputs are transcripts that are not regular files: capture names
// the file and its type instead of reading (or blocking on) it.
func fileTypeInputs() []hostileInput {
	return []hostileInput{
		{kind: kindTranscripts, name: "made/session-is-a-fifo",
			place: func(e *hostileEnv) error {
				e.input = filepath.Join(e.root, "session.jsonl")
				return testsys.MkfifoFile(e.input)
			},
			runs: []hostileRun{{args: []string{"capture", "--from", "claude-code", "--session", "{input}", "--project", "{project}"}, code: exitFailure,
				errHas: []string{"{input}", "named pipe"}}}},
		{kind: kindTranscripts, name: "made/session-is-a-device",
			place: func(e *hostileEnv) error { e.input = os.DevNull; return nil },
			runs: []hostileRun{{args: []string{"capture", "--from", "claude-code", "--session", "{input}", "--project", "{project}"}, code: exitFailure,
				errHas: []string{os.DevNull, "device"}}}},
		{kind: kindTranscripts, name: "made/session-is-a-directory",
			place: func(e *hostileEnv) error {
				e.input = filepath.Join(e.root, "session.d")
				return os.Mkdir(e.input, 0o700)
			},
			runs: []hostileRun{{args: []string{"capture", "--from", "claude-code", "--session", "{input}", "--project", "{project}"}, code: exitFailure,
				errHas: []string{"{input}", "directory"}}}},
	}
}
