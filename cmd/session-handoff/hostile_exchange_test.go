package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
)

// Inputs of the hostile campaign that are bundles valid in themselves but
// hostile to the store they are imported into (issue 16): made by the
// campaign, since they depend on what the store holds and on keys and
// names no corpus file can carry.

// campaignBundle writes rec, signed by the corpus key keyFile (alice's
// signing.key or the stranger's) under the signer name given, encrypted to
// the reader, under bundleID ("" for a fresh one), to path.
func campaignBundle(e *hostileEnv, path, keyFile, signerName string, rec *handoff.Record, bundleID string) error {
	data, err := campaignBundleBytes(e, keyFile, signerName, rec, bundleID, false)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

// campaignBundleBytes is the bundle campaignBundle writes, armored when
// armor is set.
func campaignBundleBytes(e *hostileEnv, keyFile, signerName string, rec *handoff.Record, bundleID string, armor bool) ([]byte, error) {
	return campaignBundleBlobs(e, keyFile, signerName, rec, bundleID, armor, nil)
}

// campaignBundleBlobs is campaignBundleBytes with blobs, which rec's
// attachments must name.
func campaignBundleBlobs(e *hostileEnv, keyFile, signerName string, rec *handoff.Record, bundleID string, armor bool, blobs []bundle.BlobSource) ([]byte, error) {
	sk, err := crypto.LoadSigningKey(filepath.Join(hostileBundleCorpus, "keys", keyFile), nil)
	if err != nil {
		return nil, err
	}
	sk.Comment = signerName
	r, canon, err := crypto.ParseRecipient(e.template.recipient)
	if err != nil {
		return nil, err
	}
	m := &bundle.Manifest{Format: bundle.Format, Version: bundle.Version, BundleID: bundleID,
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond), Producer: bundle.Producer{Name: "session-handoff", Version: "campaign"}, Record: rec}
	for _, b := range blobs {
		m.Blobs = append(m.Blobs, b.Blob)
	}
	var buf bytes.Buffer
	if err := bundle.Write(&buf, m, blobs, bundle.WriteOptions{SigningKeys: []*crypto.SigningKey{sk}, Armor: armor,
		Recipients: []crypto.RecipientInfo{{Recipient: r, Canonical: canon}}}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func campaignRecord(at time.Time, title string) (*handoff.Record, error) {
	rec, err := handoff.New(at, "codex", title)
	if err != nil {
		return nil, err
	}
	rec.Project = handoff.Project{Path: "/work/app", Name: "app"}
	rec.Source = handoff.Source{Kind: handoff.SourceHand}
	return rec, nil
}

func exchangeInputs() []hostileInput {
	const takeoverBundleID = "16161616161616161616161616161616"
	input := func(e *hostileEnv) string { return filepath.Join(e.root, "made.handoff") }
	var out []hostileInput

	// Another signer's record under a stored record's id and bundle id:
	// never a takeover, trusted on first use or not; the refusal names
	// both signers.
	out = append(out, hostileInput{kind: kindBundles, name: "made/takeover-by-record-id",
		place: func(e *hostileEnv) error {
			rec, err := campaignRecord(time.Now().Add(-time.Hour), "alice's plan")
			if err != nil {
				return err
			}
			first := filepath.Join(e.root, "alice.handoff")
			if err := campaignBundle(e, first, "signing.key", "alice@test", rec, takeoverBundleID); err != nil {
				return err
			}
			if r := runCLI(e.env, "", "import", first); r.code != 0 {
				return fmt.Errorf("importing alice's bundle: exit %d: %s", r.code, r.stderr)
			}
			forged := *rec
			forged.Title = "mallory's plan"
			e.input = input(e)
			return campaignBundle(e, e.input, "stranger.key", "mallory@test", &forged, takeoverBundleID)
		},
		runs: []hostileRun{
			{args: []string{"import", "{input}", "--allow-untrusted"}, code: exitFailure,
				errHas: []string{"a different handoff with this id is already stored", "alice@test", aliceFingerprint, malloryFingerprint}},
			{args: []string{"import", "{input}", "--tofu"}, code: exitFailure,
				errHas: []string{"a different handoff with this id is already stored", aliceFingerprint, malloryFingerprint}},
			{args: []string{"list"}, outHas: []string{"alice's plan"}, outNot: []string{"mallory's plan"}},
		}})

	// Trust on first use under a name that shows as alice@test, the
	// trusted signer: never pinned.
	out = append(out, lookAlikeInputs([]lookAlike{
		{"tofu-cyrillic-look-alike", "\u0430lice@test", "looks like a principal already trusted"},
		{"tofu-case-variant", "Alice@test", "looks like a principal already trusted"},
		{"tofu-zero-width-space", "alice\u200b@test", "invisible"},
		{"tofu-bidi-override", "alice@\u202etset", "invisible"},
		// A forged "me": a stranger's key under the name of one of my
		// devices. Only pairing ('devices add') makes a key mine.
		{"tofu-forged-me", "me@laptop", "names one of my devices, and only pairing"},
	})...)

	// A record of the year 9999 would stay "latest" for ever.
	out = append(out, hostileInput{kind: kindBundles, name: "made/record-from-the-future",
		place: func(e *hostileEnv) error {
			rec, err := campaignRecord(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), "latest for ever")
			if err != nil {
				return err
			}
			e.input = input(e)
			return campaignBundle(e, e.input, "signing.key", "alice@test", rec, "")
		},
		runs: []hostileRun{
			{args: []string{"import", "{input}"}, code: exitFailure, errHas: []string{"{input}", "dated in the future", "9999-12-31T00:00:00Z"}},
		}})
	// So would a record of today under an id of the year 10889.
	out = append(out, hostileInput{kind: kindBundles, name: "made/id-from-the-future",
		place: func(e *hostileEnv) error {
			rec, err := campaignRecord(time.Now(), "latest by id")
			if err != nil {
				return err
			}
			rec.ID = "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
			e.input = input(e)
			return campaignBundle(e, e.input, "signing.key", "alice@test", rec, "")
		},
		runs: []hostileRun{
			{args: []string{"import", "{input}"}, code: exitFailure, errHas: []string{"{input}", "dated in the future", "its id says 10889-"}},
		}})
	// trust add takes a name from a key's comment only when it does not
	// look like a trusted one; --principal names it all the same.
	strangerKey := func(comment string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			data, err := os.ReadFile(filepath.Join(hostileBundleCorpus, "keys", "stranger.pub"))
			if err != nil {
				return err
			}
			f := strings.Fields(string(data))
			e.input = filepath.Join(e.root, "stranger.pub")
			return os.WriteFile(e.input, []byte(f[0]+" "+f[1]+" "+comment+"\n"), 0o600)
		}
	}
	out = append(out, hostileInput{kind: kindTrust, name: "made/add-look-alike-comment", place: strangerKey("Alice@test"),
		runs: []hostileRun{
			// Refused under the trust store's lock: the lock file stays,
			// as after every update; the trust store does not change.
			{args: []string{"trust", "add", "{input}"}, code: exitFailure, errHas: []string{`"Alice@test" looks like a principal already trusted: "alice@test"`},
				mayChange: []string{"home:config/allowed_signers.lock"}},
			{args: []string{"trust", "add", "{input}", "--principal", "Alice@test"}, mayChange: []string{"home:config/allowed_signers"},
				outHas: []string{"trusted " + malloryFingerprint + " as Alice@test"}},
		}})
	out = append(out, hostileInput{kind: kindTrust, name: "made/rm-ambiguous-principal", place: strangerKey("mallory@test"),
		runs: []hostileRun{
			{args: []string{"trust", "add", "{input}", "--principal", "alice@test"}, mayChange: []string{"home:config/allowed_signers"}},
			{args: []string{"trust", "rm", "alice@test"}, code: exitFailure, errHas: []string{"names several keys", aliceFingerprint, malloryFingerprint}},
			{args: []string{"trust", "rm", malloryFingerprint}, mayChange: []string{"home:config/allowed_signers"}},
			{args: []string{"trust", "list"}, outHas: []string{aliceFingerprint}, outNot: []string{malloryFingerprint}},
		}})
	return out
}

// lookAlike is a signer name that must never be pinned on first use while
// alice@test is trusted, and the words its refusal must hold.
type lookAlike struct{ name, signer, cause string }

// lookAlikeInputs are bundles signed by the stranger under each name,
// imported with --tofu: refused, and the trust store keeps only alice.
func lookAlikeInputs(cases []lookAlike) []hostileInput {
	var out []hostileInput
	for _, c := range cases {
		out = append(out, hostileInput{kind: kindBundles, name: "made/" + c.name,
			place: func(e *hostileEnv) error {
				rec, err := campaignRecord(time.Now().Add(-time.Hour), "looks like alice")
				if err != nil {
					return err
				}
				e.input = filepath.Join(e.root, "made.handoff")
				return campaignBundle(e, e.input, "stranger.key", c.signer, rec, "")
			},
			runs: []hostileRun{
				{args: []string{"import", "{input}", "--tofu"}, code: exitFailure, errHas: []string{"{input}", "cannot trust on first use", c.cause}},
				{args: []string{"trust", "list"}, outHas: []string{aliceFingerprint}, outNot: []string{malloryFingerprint}},
			}})
	}
	return out
}
