package bundle

// The generator of testdata/bundles: good vectors, the hostile corpus and
// the golden files. It runs only with -update:
//
//	go test ./bundle -run TestVectors -update
//
// Every generated file is read back at once and must give the outcome the
// generator intended, so a regenerated corpus cannot silently drift.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/klauspost/compress/zstd"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// vecOptions adjust the default read options for one vector; they are
// stored beside it as <name>.opts.json.
type vecOptions struct {
	// Identity: "" (the test identity), "stranger" or "none".
	Identity string `json:"identity,omitempty"`
	// Passphrase overrides the test passphrase; NoPassphrase gives none.
	Passphrase   string  `json:"passphrase,omitempty"`
	NoPassphrase bool    `json:"no_passphrase,omitempty"`
	Trust        string  `json:"trust,omitempty"` // "" (the test key) or "none"
	MinSigners   int     `json:"min_signers,omitempty"`
	Limits       *Limits `json:"limits,omitempty"`
}

func (o *vecOptions) apply(k *testKeys, ro ReadOptions) ReadOptions {
	if o == nil {
		return ro
	}
	switch o.Identity {
	case "stranger":
		ro.Identities = []age.Identity{k.strangerID}
	case "none":
		ro.Identities = nil
	}
	if o.Passphrase != "" {
		p := []byte(o.Passphrase)
		ro.Passphrase = func() ([]byte, error) { return p, nil }
	}
	if o.NoPassphrase {
		ro.Passphrase = nil
	}
	if o.Trust == "none" {
		ro.Trusted = nil
	}
	ro.MinSigners = o.MinSigners
	if o.Limits != nil {
		ro.Limits = *o.Limits
	}
	return ro
}

// want is a good vector's expectation, <name>.want.json.
type want struct {
	Status             Status     `json:"status"`
	Principals         []string   `json:"principals,omitempty"`
	Fingerprint        string     `json:"fingerprint,omitempty"`
	Encryption         Encryption `json:"encryption"`
	ManifestEncryption Encryption `json:"manifest_encryption"`
	Armored            bool       `json:"armored"`
	BundleID           string     `json:"bundle_id"`
	RecordID           string     `json:"record_id"`
	Title              string     `json:"title"`
	Blobs              []Blob     `json:"blobs"`
}

func wantOf(res *Result) want {
	return want{
		Status:             res.Verification.Status,
		Principals:         res.Verification.Principals,
		Fingerprint:        res.Verification.Fingerprint,
		Encryption:         res.Encryption,
		ManifestEncryption: res.Manifest.Encryption,
		Armored:            res.Armored,
		BundleID:           res.Manifest.BundleID,
		RecordID:           string(res.Manifest.Record.ID),
		Title:              res.Manifest.Record.Title,
		Blobs:              res.Manifest.Blobs,
	}
}

// badVec is one member of the hostile corpus.
type badVec struct {
	name string
	data []byte
	kind string // sentinel name
	msg  string // substring of the message
	opts *vecOptions
}

func generate(t *testing.T) {
	k := loadKeys(t)
	defer crypto.SetScryptWorkFactorForTesting(10)()
	for _, dir := range []string{vecDir, badDir} {
		old, _ := filepath.Glob(filepath.Join(dir, "*.handoff"))
		for _, ext := range []string{"*.want.json", "*.err", "*.opts.json"} {
			more, _ := filepath.Glob(filepath.Join(dir, ext))
			old = append(old, more...)
		}
		for _, f := range old {
			testsys.Check(t, os.Remove(f))
		}
	}
	generateGolden(t, k)
	generateGood(t, k)
	generateBad(t, k)
	generateFuzzSeeds(t)
}

// generateFuzzSeeds commits seed corpora for FuzzManifest (the golden
// manifest and the payloads of the manifest-* corpus) and FuzzReadTar (the
// archives of the unencrypted vectors and corpus), in Go's corpus format.
func generateFuzzSeeds(t *testing.T) {
	for _, target := range []string{"FuzzManifest", "FuzzReadTar"} {
		old, _ := filepath.Glob(filepath.Join("testdata", "fuzz", target, "seed-*"))
		for _, f := range old {
			testsys.Check(t, os.Remove(f))
		}
	}
	seed := func(target, name string, data []byte) {
		writeFile(t, filepath.Join("testdata", "fuzz", target, "seed-"+name), []byte("go test fuzz v1\n[]byte("+strconv.Quote(string(data))+")\n"))
	}
	seed("FuzzManifest", "golden", mustRead(t, filepath.Join(vecDir, "golden", "manifest.json")))
	files, _ := filepath.Glob(filepath.Join(badDir, "manifest-*.handoff"))
	for _, p := range files {
		if payload := corpusPayload(p); payload != nil {
			seed("FuzzManifest", strings.TrimSuffix(filepath.Base(p), ".handoff"), payload)
		}
	}
	// A few archives; FuzzReadTar adds the rest of the corpus at run time.
	for _, p := range append(mustGlob(filepath.Join(vecDir, "no-encrypt.handoff")), mustGlob(filepath.Join(badDir, "tar-pax-*.handoff"))...) {
		data := mustRead(t, p)
		if len(data) < 1<<16 && len(data) >= 4 && string(data[:4]) == zstdMagic {
			if tb := unzstOrNil(data); tb != nil {
				seed("FuzzReadTar", strings.TrimSuffix(filepath.Base(p), ".handoff"), tb)
			}
		}
	}
}

func mustGlob(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

// goldenManifest is a fixed manifest: every field deterministic.
func goldenManifest(k *testKeys) *Manifest {
	blobs := goldenBlobs()
	m := testManifest(withAttachments(fixedRecord(), blobs))
	m.Format, m.Version = Format, Version
	m.BundleID = "00112233445566778899aabbccddeeff"
	m.Signer = &Signer{Key: k.signer.Public().String(), Fingerprint: k.signer.Public().Fingerprint(), Name: "alice@test"}
	m.Encryption = EncryptRecipients
	m.Recipients = []string{crypto.RecipientHash(k.id.Recipient().String())}
	for _, b := range blobs {
		m.Blobs = append(m.Blobs, b.Blob)
	}
	return m
}

func goldenBlobs() []BlobSource {
	return []BlobSource{
		memBlob("transcript.jsonl", "application/x-ndjson", []byte(`{"type":"user","text":"make the reader tolerate pasted armor"}`+"\n")),
		memBlob("changes.diff", "text/x-diff", []byte("--- a/read.go\n+++ b/read.go\n@@ -1 +1 @@\n-old\n+new\n")),
	}
}

func generateGolden(t *testing.T, k *testKeys) {
	m := goldenManifest(k)
	payload, err := MarshalManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(vecDir, "golden", "manifest.json"), payload)
	writeFile(t, filepath.Join(vecDir, "golden", "manifest.pae"), crypto.PAE(PayloadType, payload))
	writeFile(t, filepath.Join(vecDir, "golden", "envelope.json"), envelopeOf(t, PayloadType, payload, k.signer))
}

func generateGood(t *testing.T, k *testKeys) {
	signer := []*crypto.SigningKey{k.signer}
	recips := []crypto.RecipientInfo{k.recipient()}
	transcript := memBlob("transcript.jsonl", "application/x-ndjson", []byte(`{"type":"user","text":"hello"}`+"\n"+`{"type":"assistant","text":"hi"}`+"\n"))
	attachments := []BlobSource{
		transcript,
		memBlob("changes.diff", "text/x-diff", bytes.Repeat([]byte("+func f() {}\n"), 500)),
		memBlob("MEMORY.md", "text/markdown", []byte("# Memory\n\n- use `go test -race`\n")),
		memBlob("empty.txt", "text/plain", nil),
	}
	type goodVec struct {
		name  string
		opts  WriteOptions
		blobs []BlobSource
		post  func([]byte) []byte
		title string
	}
	vecs := []goodVec{
		{name: "signed-encrypted", opts: WriteOptions{SigningKeys: signer, Recipients: recips}, blobs: []BlobSource{transcript}},
		{name: "signed-encrypted-armored", opts: WriteOptions{SigningKeys: signer, Recipients: recips, Armor: true}},
		{name: "passphrase", opts: WriteOptions{SigningKeys: signer, Passphrase: k.passphrase}, blobs: []BlobSource{transcript}},
		{name: "passphrase-armored", opts: WriteOptions{SigningKeys: signer, Passphrase: k.passphrase, Armor: true}},
		{name: "unsigned", opts: WriteOptions{Recipients: recips}},
		{name: "attachments", opts: WriteOptions{SigningKeys: signer, Recipients: recips}, blobs: attachments},
		{name: "no-encrypt", opts: WriteOptions{SigningKeys: signer, NoEncrypt: true}, blobs: []BlobSource{transcript}},
		{name: "no-encrypt-armored", opts: WriteOptions{SigningKeys: signer, NoEncrypt: true, Armor: true}, blobs: []BlobSource{transcript}},
		{name: "multi-recipient", opts: WriteOptions{SigningKeys: signer, Recipients: []crypto.RecipientInfo{k.strangerRecipient(), k.recipient()}}},
		{name: "pasted-crlf-age-armor", opts: WriteOptions{SigningKeys: signer, Recipients: recips, Armor: true}, post: pasted},
		{name: "pasted-crlf-own-armor", opts: WriteOptions{SigningKeys: signer, NoEncrypt: true, Armor: true}, post: pasted},
		{name: "pasted-chat-own-armor", opts: WriteOptions{SigningKeys: signer, NoEncrypt: true, Armor: true}, post: pastedInChat},
		{name: "pasted-mail-age-armor", opts: WriteOptions{SigningKeys: signer, Recipients: recips, Armor: true}, post: quotedInMail},
		{name: "none-then-age-r", opts: WriteOptions{SigningKeys: signer, NoEncrypt: true}, post: func(b []byte) []byte {
			// What `age -r` does to an unencrypted bundle.
			return encryptTo(t, b, k.id.Recipient())
		}},
		{name: "unicode", opts: WriteOptions{SigningKeys: signer, Recipients: recips},
			blobs: []BlobSource{memBlob("Übergabe — notes ✓.md", "text/markdown; charset=utf-8", []byte("Grüße\n"))},
			title: "Übergabe: 日本語 & <html> \"quotes\""},
	}
	for _, v := range vecs {
		rec := withAttachments(fixedRecord(), v.blobs)
		if v.title != "" {
			rec.Title = v.title
		}
		m := testManifest(rec)
		data := writeBundle(t, m, v.blobs, v.opts)
		if v.post != nil {
			data = v.post(data)
		}
		res, err := Read(bytes.NewReader(data), k.readOptions())
		if err != nil {
			t.Fatalf("good vector %s does not read: %v", v.name, err)
		}
		wantStatus := StatusVerified
		if len(v.opts.SigningKeys) == 0 {
			wantStatus = StatusUnsigned
		}
		if res.Verification.Status != wantStatus {
			t.Fatalf("good vector %s: status %s", v.name, res.Verification.Status)
		}
		w, _ := json.MarshalIndent(wantOf(res), "", "  ")
		writeFile(t, filepath.Join(vecDir, v.name+".handoff"), data)
		writeFile(t, filepath.Join(vecDir, v.name+".want.json"), append(w, '\n'))
	}
}

// pasted turns armor into what arrives from a chat window: CRLF line
// endings, blank lines and spaces before, white space after.
func pasted(b []byte) []byte {
	s := strings.ReplaceAll(string(b), "\n", "\r\n")
	return []byte("\r\n  \r\n\t" + s + "  \r\n\r\n")
}

// pastedInChat is armor as a chat shows it: words before it, a Markdown
// fence around it, indented, with trailing spaces, and words after it.
func pastedInChat(b []byte) []byte {
	var out strings.Builder
	out.WriteString("Here is the handoff for tomorrow:\n\n```text\n")
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" {
			out.WriteString("    " + strings.TrimSuffix(line, "\n") + "   \n")
		}
	}
	out.WriteString("```\n\nThanks!\n")
	return []byte(out.String())
}

// quotedInMail is armor quoted in a reply: "> " before every line, CRLF
// line ends, a greeting before and a signature after.
func quotedInMail(b []byte) []byte {
	var out strings.Builder
	out.WriteString("Hi Bob,\r\n\r\nOn Monday Alice wrote:\r\n> Here it is:\r\n>\r\n")
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" {
			out.WriteString("> " + strings.TrimSuffix(line, "\n") + "\r\n")
		}
	}
	out.WriteString(">\r\n\r\n-- \r\nBob\r\n")
	return []byte(out.String())
}

func generateBad(t *testing.T, k *testKeys) {
	var bad []badVec
	add := func(name string, data []byte, kind, msg string, opts ...*vecOptions) {
		v := badVec{name: name, data: data, kind: kind, msg: msg}
		if len(opts) > 0 {
			v.opts = opts[0]
		}
		bad = append(bad, v)
	}
	signer := []*crypto.SigningKey{k.signer}
	recips := []crypto.RecipientInfo{k.recipient()}
	blob := []byte(`{"type":"user","text":"hello"}` + "\n")
	blob2 := []byte("second blob\n")
	blobs := []BlobSource{memBlob("transcript.jsonl", "application/x-ndjson", blob), memBlob("notes.txt", "text/plain", blob2)}
	sum, sum2 := blobs[0].SHA256, blobs[1].SHA256

	// A manifest completed as Write completes it, for bundles built by hand.
	manifest := func(enc Encryption, signerHint *crypto.SigningKey, bs []BlobSource, recipients ...string) *Manifest {
		m := testManifest(withAttachments(fixedRecord(), bs))
		m.Format, m.Version, m.BundleID = Format, Version, "0123456789abcdef0123456789abcdef"
		m.Encryption = enc
		for _, r := range recipients {
			m.Recipients = append(m.Recipients, crypto.RecipientHash(r))
		}
		if signerHint != nil {
			m.Signer = &Signer{Key: signerHint.Public().String(), Fingerprint: signerHint.Public().Fingerprint(), Name: signerHint.Comment}
		}
		m.Blobs = nil
		for _, b := range bs {
			m.Blobs = append(m.Blobs, b.Blob)
		}
		return m
	}
	marshal := func(m *Manifest) []byte {
		b, err := MarshalManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plainM := manifest(EncryptNone, k.signer, blobs)
	plainPayload := marshal(plainM)
	env := envelopeOf(t, PayloadType, plainPayload, k.signer)
	goodEntries := []tarEntry{regEntry(EnvelopeName, env), regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2)}
	goodTar := tarOf(t, goodEntries...)
	// zbundle packs tar bytes as an unencrypted bundle.
	zbundle := func(tarBytes []byte) []byte { return zst(t, tarBytes) }
	// withPayload builds a signed unencrypted bundle around a manifest.
	withPayload := func(payload []byte, keys ...*crypto.SigningKey) []byte {
		return zbundle(tarOf(t, regEntry(EnvelopeName, envelopeOf(t, PayloadType, payload, keys...)),
			regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2)))
	}
	// withEntries builds a signed unencrypted bundle of the standard
	// manifest with the given entries after the envelope.
	withEntries := func(entries ...tarEntry) []byte {
		return zbundle(tarOf(t, append([]tarEntry{regEntry(EnvelopeName, env)}, entries...)...))
	}

	goodAge := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{SigningKeys: signer, Recipients: recips})
	goodZstd := zbundle(goodTar)
	goodArmor := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{SigningKeys: signer, Recipients: recips, Armor: true})
	goodOwnArmor := writeBundle(t, testManifest(withAttachments(fixedRecord(), blobs)), blobs, WriteOptions{SigningKeys: signer, NoEncrypt: true, Armor: true})

	// Outer layers and framing.
	add("empty", nil, "ErrMalformed", "empty input")
	add("whitespace-only", []byte(" \r\n\t\n"), "ErrMalformed", "only white space")
	add("garbage", []byte("this is not a bundle\n"), "ErrMalformed", "not a session-handoff bundle")
	add("plain-tar", goodTar, "ErrMalformed", "not a session-handoff bundle")
	add("gzip-tar", gz(t, goodTar), "ErrMalformed", "not a session-handoff bundle")
	add("leading-space-before-binary", append([]byte(" "), goodZstd...), "ErrMalformed", "not a session-handoff bundle")
	add("age-unknown-version", bytes.Replace(goodAge, []byte("age-encryption.org/v1"), []byte("age-encryption.org/v2"), 1), "ErrUnsupportedVersion", "age format version")
	add("age-not-zstd", encryptTo(t, goodTar, k.id.Recipient()), "ErrMalformed", "age layer does not contain a zstd stream")
	add("age-in-age", encryptTo(t, goodAge, k.id.Recipient()), "ErrMalformed", "age layer does not contain a zstd stream")
	add("own-armor-not-zstd", ownArmor(t, goodTar), "ErrMalformed", "armor layer does not contain a zstd stream")
	add("truncated-age", goodAge[:len(goodAge)/2], "ErrMalformed", "age payload: failed to decrypt")
	add("truncated-age-header", goodAge[:40], "ErrMalformed", "age header")
	add("truncated-zstd", goodZstd[:len(goodZstd)-20], "ErrMalformed", "truncated")
	add("truncated-age-armor", goodArmor[:len(goodArmor)-40], "ErrMalformed", "armor")
	add("truncated-own-armor", goodOwnArmor[:len(goodOwnArmor)-len(ArmorFooter)-2], "ErrMalformed", "armor")
	add("trailing-garbage-age", append(bytes.Clone(goodAge), "garbage"...), "ErrMalformed", "age payload")
	add("trailing-garbage-zstd", append(bytes.Clone(goodZstd), "garbage"...), "ErrMalformed", "trailing data")
	add("trailing-zeros-zstd", append(bytes.Clone(goodZstd), make([]byte, 64)...), "ErrMalformed", "trailing data")
	// Text around armor is what a paste brings and is ignored (see
	// paste.go); a second bundle after the first is refused.
	add("two-bundles-age-armor", append(append(bytes.Clone(goodArmor), '\n'), goodArmor...), "ErrMalformed", "more than one armored bundle")
	add("two-bundles-own-armor", append(append(bytes.Clone(goodOwnArmor), "\nand another:\n"...), goodOwnArmor...), "ErrMalformed", "more than one armored bundle")
	add("trailing-data-after-tar", zbundle(append(bytes.Clone(goodTar), "junk"...)), "ErrMalformed", "trailing data after the tar archive")
	add("trailing-skippable-frame", append(bytes.Clone(goodZstd), 0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 'e', 'v', 'i', 'l'), "ErrMalformed", "skippable frame after the compressed stream")
	add("leading-skippable-frame", append([]byte{0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 'e', 'v', 'i', 'l'}, goodZstd...), "ErrMalformed", "not a session-handoff bundle")
	add("trailing-zstd-frame", append(bytes.Clone(goodZstd), zst(t, []byte("extra frame"))...), "ErrMalformed", "zstd: trailing data after the compressed stream")
	add("age-armor-bad-base64", corruptArmorLine(goodArmor, '*'), "ErrMalformed", "armor")
	add("own-armor-bad-base64", corruptArmorLine(goodOwnArmor, '*'), "ErrMalformed", "armor")
	add("own-armor-long-line", bytes.Replace(goodOwnArmor, []byte("\n"), nil, 2), "ErrMalformed", "armor")

	// A flipped byte in every layer.
	add("flip-age-header-mac", flipAgeMAC(t, goodAge), "ErrMalformed", "bad header MAC")
	add("flip-age-stanza", flipAgeStanza(t, goodAge), "ErrNoIdentity", "no identity matches")
	add("flip-age-payload", flip(goodAge, len(goodAge)-100), "ErrMalformed", "age payload: failed to decrypt and authenticate")
	add("flip-zstd-frame-header", flip(goodZstd, 4), "ErrMalformed", "zstd")
	add("flip-zstd-checksum", flip(goodZstd, len(goodZstd)-1), "ErrMalformed", "zstd: CRC check failed")
	add("zstd-no-checksum", zstNoChecksum(t, goodTar), "ErrMalformed", "zstd: the frame has no content checksum")
	// A byte flipped inside the compressed block: the block decoder or
	// the frame's checksum catches it, so which message depends on the
	// byte; the layer does not.
	add("flip-zstd-block", flip(goodZstd, len(goodZstd)/2), "ErrMalformed", "zstd: ")
	blobHdr := 512 + (len(env)+511)/512*512
	add("flip-tar-header", zbundle(flip(goodTar, blobHdr+20)), "ErrMalformed", "invalid tar header")
	add("flip-tar-envelope-header", zbundle(flip(goodTar, 3)), "ErrMalformed", "invalid tar header")
	add("flip-manifest", zbundle(flipManifest(t, goodTar, env)), "ErrSignature", "invalid signature")
	add("flip-signature", withEntries0(t, zbundle, flipSig(t, env), blob, sum, blob2, sum2), "ErrSignature", "invalid signature")
	add("flip-blob", withEntries(regEntry(BlobPath(sum), flip(blob, 3)), regEntry(BlobPath(sum2), blob2)), "ErrHashMismatch", "does not match the manifest's sha256")

	// Limits.
	add("zstd-bomb", zstdBomb(t, k, 1536<<20), "ErrLimit", "exceeds limit of 536870912 bytes (--max-entry-size)")
	add("zstd-bomb-entry-limit-raised", zstdBomb(t, k, 1536<<20), "ErrLimit", "decompressed size exceeds limit of 1073741824 bytes (--max-decompressed)",
		&vecOptions{Limits: &Limits{MaxEntrySize: 4 << 30}})
	add("zstd-bomb-streaming", zstdBomb(t, k, 62000), "ErrLimit", "decompressed size exceeds limit of 65536 bytes (--max-decompressed)",
		&vecOptions{Limits: &Limits{MaxDecompressed: 65536}})
	add("zstd-huge-window", hugeWindow(t, goodZstd), "ErrLimit", "zstd window exceeds limit of 67108864 bytes (--max-window)")
	add("input-too-large", goodAge, "ErrLimit", "input exceeds limit of 1024 bytes (--max-input)", &vecOptions{Limits: &Limits{MaxInput: 1024}})
	add("too-many-entries", goodZstd, "ErrLimit", "number of archive entries exceeds limit of 2 entries (--max-entries)", &vecOptions{Limits: &Limits{MaxEntries: 2}})
	add("envelope-too-large", zbundle(tarOf(t, regEntry(EnvelopeName, bytes.Repeat([]byte(" "), 9<<20)))), "ErrLimit", "exceeds limit of 8388608 bytes (--max-manifest)")
	add("scrypt-work-factor", scryptWorkFactor(t, k, 23), "ErrLimit", "scrypt work factor 23 exceeds limit of 20 (--max-scrypt-work-factor)")
	add("scrypt-work-factor-huge", scryptWorkFactor(t, k, 99999999999), "ErrLimit", "exceeds limit of 20 (--max-scrypt-work-factor)")

	// The archive.
	add("tar-no-entries", zbundle(tarOf(t)), "ErrMalformed", "archive has no entries")
	add("tar-envelope-not-first", zbundle(tarOf(t, regEntry(BlobPath(sum), blob), regEntry(EnvelopeName, env), regEntry(BlobPath(sum2), blob2))), "ErrMalformed", "first archive entry")
	add("tar-path-traversal", withEntries(regEntry("../../etc/passwd", blob)), "ErrMalformed", "unsafe path")
	add("tar-path-traversal-inner", withEntries(regEntry("blobs/sha256/../../../x", blob)), "ErrMalformed", "unsafe path")
	add("tar-absolute-path", withEntries(regEntry("/etc/passwd", blob)), "ErrMalformed", "unsafe path")
	symlink := regEntry(BlobPath(sum), nil)
	symlink.hdr.Typeflag, symlink.hdr.Linkname = tar.TypeSymlink, "/etc/passwd"
	add("tar-symlink", withEntries(symlink), "ErrMalformed", "is a symbolic link")
	hardlink := regEntry(BlobPath(sum), nil)
	hardlink.hdr.Typeflag, hardlink.hdr.Linkname = tar.TypeLink, EnvelopeName
	add("tar-hardlink", withEntries(hardlink), "ErrMalformed", "is a hard link")
	dir := regEntry("blobs/", nil)
	dir.hdr.Typeflag = tar.TypeDir
	add("tar-directory", withEntries(dir), "ErrMalformed", "is a directory")
	fifo := regEntry(BlobPath(sum), nil)
	fifo.hdr.Typeflag = tar.TypeFifo
	add("tar-fifo", withEntries(fifo), "ErrMalformed", "is a fifo")
	add("tar-duplicate-entry", withEntries(regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2)), "ErrMalformed", "duplicate archive entry")
	add("tar-duplicate-envelope", withEntries(regEntry(EnvelopeName, env), regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2)), "ErrMalformed", "unexpected archive entry \"bundle.dsse.json\"")
	extra := []byte("not in the manifest")
	add("tar-entry-not-in-manifest", withEntries(regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2), regEntry(BlobPath(sha256hex(extra)), extra)), "ErrMalformed", "is not listed in the manifest")
	add("tar-unexpected-name", withEntries(regEntry(BlobPath(sum), blob), regEntry("notes.txt", blob2)), "ErrMalformed", "unexpected archive entry \"notes.txt\"")
	add("tar-uppercase-hash", withEntries(regEntry(BlobPrefix+strings.ToUpper(sum), blob)), "ErrMalformed", "unexpected archive entry")
	add("tar-blob-missing", withEntries(regEntry(BlobPath(sum), blob)), "ErrMalformed", "listed in the manifest but missing from the archive")
	add("tar-blobs-out-of-order", withEntries(regEntry(BlobPath(sum2), blob2), regEntry(BlobPath(sum), blob)), "ErrMalformed", "out of order")
	add("tar-size-mismatch", withEntries(regEntry(BlobPath(sum), append(bytes.Clone(blob), 'x')), regEntry(BlobPath(sum2), blob2)), "ErrHashMismatch", "archive entry has 32 bytes, the manifest says 31")
	add("tar-pax-path-override", withRaw(t, zbundle, env, paxEntry(t, map[string]string{"path": "../../../../etc/cron.d/evil"}, BlobPath(sum), blob), regEntryRaw(t, BlobPath(sum2), blob2)), "ErrMalformed", "unsafe path")
	add("tar-pax-xattr", withRaw(t, zbundle, env, paxEntry(t, map[string]string{"SCHILY.xattr.user.evil": "1"}, BlobPath(sum), blob), regEntryRaw(t, BlobPath(sum2), blob2)), "ErrMalformed", "unsupported pax record")
	add("tar-pax-linkpath", withRaw(t, zbundle, env, paxEntry(t, map[string]string{"linkpath": "/etc/passwd"}, BlobPath(sum), blob), regEntryRaw(t, BlobPath(sum2), blob2)), "ErrMalformed", "link target")
	add("tar-pax-size-override", withRaw(t, zbundle, env, paxEntry(t, map[string]string{"size": "0"}, BlobPath(sum), blob), regEntryRaw(t, BlobPath(sum2), blob2)), "ErrHashMismatch", "archive entry has 0 bytes")
	global := tarEntry{hdr: tar.Header{Typeflag: tar.TypeXGlobalHeader, PAXRecords: map[string]string{"path": "evil"}}}
	add("tar-pax-global-header", withEntries(global), "ErrMalformed", "pax global header")
	long := regEntry("blobs/sha256/"+strings.Repeat("../", 40)+"etc/passwd", blob)
	long.hdr.Format = tar.FormatGNU
	add("tar-gnu-long-name", withEntries(long), "ErrMalformed", "unsafe path")

	// The manifest, re-signed with the test key so that the deeper check
	// is reached (flip-manifest above keeps the broken signature).
	str := string(plainPayload)
	resign := func(s string) []byte { return withPayload([]byte(s), k.signer) }
	add("manifest-duplicate-key", resign(strings.Replace(str, `"title":`, `"title":"first","title":`, 1)), "ErrMalformed", "duplicate key")
	add("manifest-duplicate-key-escaped", resign(strings.Replace(str, `"title":`, `"title":"first","\u0074itle":`, 1)), "ErrMalformed", "duplicate key")
	add("manifest-invalid-utf8", resign(strings.Replace(str, "Fix the", "Fix \xff the", 1)), "ErrMalformed", "invalid UTF-8")
	add("manifest-trailing-data", resign(str+` {}`), "ErrMalformed", "trailing data")
	add("manifest-not-json", resign("not json"), "ErrMalformed", "manifest")
	add("manifest-unknown-field", resign(strings.Replace(str, `"format":`, `"extra":1,"format":`, 1)), "ErrMalformed", "additional properties 'extra' not allowed")
	add("manifest-deep-nesting", resign(strings.Replace(str, `"format":`, `"x":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`,"format":`, 1)), "ErrMalformed", "nested deeper")
	add("manifest-blob-name-slash", resign(replaceLast(str, `"name":"transcript.jsonl"`, `"name":"../../etc/passwd"`)), "ErrMalformed", "/blobs/0/name")
	add("manifest-blob-name-control", resign(replaceLast(str, `"name":"transcript.jsonl"`, `"name":"a\u001b[31mred"`)), "ErrMalformed", "/blobs/0/name")
	add("manifest-blob-name-too-long", resign(replaceLast(str, `"name":"transcript.jsonl"`, `"name":"`+strings.Repeat("é", 200)+`"`)), "ErrMalformed", "more than 255")
	add("manifest-bad-sha256", resign(replaceLast(str, `"sha256":"`+sum+`"`, `"sha256":"`+strings.ToUpper(sum)+`"`)), "ErrMalformed", "/blobs/0/sha256")
	dup := manifest(EncryptNone, k.signer, blobs)
	dup.Blobs = append(dup.Blobs, Blob{Name: "again.jsonl", MediaType: "application/x-ndjson", Size: int64(len(blob)), SHA256: sum})
	add("manifest-duplicate-blob", withPayload(marshal(dup), k.signer), "ErrMalformed", "is listed twice")
	miss := manifest(EncryptNone, k.signer, blobs)
	miss.Record.Attachments = append(miss.Record.Attachments, handoff.Attachment{Name: "x", MediaType: "text/plain", Size: 1, SHA256: sha256hex([]byte("x"))})
	add("manifest-attachment-not-in-blobs", withPayload(marshal(miss), k.signer), "ErrMalformed", "not among the bundle's blobs")
	orphan := manifest(EncryptNone, k.signer, blobs)
	orphan.Record.Attachments = orphan.Record.Attachments[:1]
	add("manifest-blob-not-attached", withPayload(marshal(orphan), k.signer), "ErrMalformed", "is not an attachment of the record")
	rel := manifest(EncryptNone, k.signer, blobs)
	rel.Record.Project.Path = "relative/path"
	add("manifest-record-rule", withPayload(marshal(rel), k.signer), "ErrMalformed", "is not absolute")
	norec := manifest(EncryptNone, k.signer, blobs)
	norec.Record.Title = ""
	add("manifest-record-schema", withPayload(marshal(norec), k.signer), "ErrMalformed", "/record/title")
	recNone := manifest(EncryptNone, k.signer, blobs, k.id.Recipient().String())
	add("manifest-recipients-without-encryption", withPayload(marshal(recNone), k.signer), "ErrMalformed", "/recipients")
	recEmpty := manifest(EncryptRecipients, k.signer, blobs)
	add("manifest-encryption-without-recipients", withPayload(marshal(recEmpty), k.signer), "ErrMalformed", "recipients")
	add("manifest-newer-version", resign(strings.Replace(str, `"version":1`, `"version":2`, 1)), "ErrUnsupportedVersion", "manifest version 2 is not supported (this program reads version 1)")
	add("manifest-version-string", resign(strings.Replace(str, `"version":1`, `"version":"1"`, 1)), "ErrMalformed", "version is not a number")
	add("manifest-wrong-format", resign(strings.Replace(str, Format, "other-format", 1)), "ErrMalformed", "format is not")

	// The envelope.
	envWith := func(e []byte) []byte { return withEntries0(t, zbundle, e, blob, sum, blob2, sum2) }
	add("payload-type-newer", envWith(envelopeOf(t, "application/vnd.session-handoff.manifest.v2+json", plainPayload, k.signer)), "ErrUnsupportedVersion", "manifest version 2 is not supported")
	add("payload-type-wrong", envWith(envelopeOf(t, "application/json", plainPayload, k.signer)), "ErrMalformed", "payload type")
	add("envelope-not-json", envWith([]byte("{not json")), "ErrMalformed", EnvelopeName)
	add("envelope-unknown-field", envWith(bytes.Replace(env, []byte(`{"payloadType"`), []byte(`{"extra":1,"payloadType"`), 1)), "ErrMalformed", "unknown field")
	add("envelope-duplicate-key", envWith(bytes.Replace(env, []byte(`{"payloadType":"`), []byte(`{"payloadType":"application/json","payloadType":"`), 1)), "ErrMalformed", "duplicate key")
	add("envelope-payload-not-base64", envWith(bytes.Replace(env, []byte(`"payload":"`), []byte(`"payload":"!!`), 1)), "ErrMalformed", "base64")

	// Signatures and trust.
	add("sig-same-key-two-keyids", envWith(sameKeyTwice(t, plainPayload, k.signer)), "ErrSignature", "1 distinct trusted key signed, 2 required", &vecOptions{MinSigners: 2})
	strangerM := manifest(EncryptNone, k.stranger, blobs)
	add("sig-untrusted-key", withPayload(marshal(strangerM), k.stranger), "ErrUntrusted", "valid signature by untrusted key "+k.stranger.Public().Fingerprint())
	noHint := manifest(EncryptNone, nil, blobs)
	add("sig-untrusted-no-hint", withPayload(marshal(noHint), k.stranger), "ErrSignature", "invalid signature")
	add("sig-hint-names-trusted-key", withPayload(plainPayload, k.stranger), "ErrSignature", "invalid signature")
	add("sig-no-trust-store", goodZstd, "ErrUntrusted", "untrusted key", &vecOptions{Trust: "none"})
	add("sig-unsigned", withPayload(manifestNoSigner(t, plainM)), "ErrUnsigned", "not signed")
	add("sig-garbage", envWith(bytes.Replace(env, []byte(`"sig":"`), []byte(`"sig":"AAAA`), 1)), "ErrSignature", "invalid signature")

	// Recipients, identities, passphrases.
	otherM := manifest(EncryptRecipients, k.signer, blobs, k.strangerID.Recipient().String())
	otherTar := tarOf(t, regEntry(EnvelopeName, envelopeOf(t, PayloadType, marshal(otherM), k.signer)), regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2))
	add("recipients-exclude-reader", encryptTo(t, zbundle(otherTar), k.id.Recipient()), "ErrWrongRecipient", "signed for other recipients")
	add("recipients-exclude-reader-plain", zbundle(otherTar), "ErrWrongRecipient", "signed for other recipients")
	add("encrypted-to-stranger", writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{SigningKeys: signer, Recipients: []crypto.RecipientInfo{k.strangerRecipient()}}), "ErrNoIdentity", "encrypted to someone else")
	pass := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{SigningKeys: signer, Passphrase: k.passphrase})
	add("wrong-passphrase", pass, "ErrWrongPassphrase", "wrong passphrase", &vecOptions{Passphrase: "hunter2"})
	add("no-passphrase", pass, "ErrNoIdentity", "encrypted to a passphrase and none was given", &vecOptions{NoPassphrase: true})
	add("no-identity", goodAge, "ErrNoIdentity", "encrypted to someone else", &vecOptions{Identity: "none"})

	for _, v := range bad {
		writeFile(t, filepath.Join(badDir, v.name+".handoff"), v.data)
		if v.opts != nil {
			o, _ := json.MarshalIndent(v.opts, "", "  ")
			writeFile(t, filepath.Join(badDir, v.name+".opts.json"), append(o, '\n'))
		}
		err := readVector(k, v.data, v.opts)
		if err == nil {
			t.Fatalf("bad vector %s reads without error", v.name)
		}
		if kindName(err) != v.kind || !strings.Contains(err.Error(), v.msg) {
			t.Fatalf("bad vector %s: got %v (%s), want %s %q", v.name, err, kindName(err), v.kind, v.msg)
		}
		writeFile(t, filepath.Join(badDir, v.name+".err"), []byte(v.kind+"\n"+v.msg+"\n"))
	}
}

// readVector reads a vector with the default options adjusted by opts and
// applies the import policy (RequireVerified).
func readVector(k *testKeys, data []byte, opts *vecOptions) error {
	res, err := Read(bytes.NewReader(data), opts.apply(k, k.readOptions()))
	if err == nil {
		err = res.RequireVerified()
	}
	return err
}

// replaceLast replaces the last occurrence of old in s: in a manifest the
// blob list comes after the record, whose attachments repeat blob fields.
func replaceLast(s, old, new string) string {
	i := strings.LastIndex(s, old)
	if i < 0 {
		panic("replaceLast: not found: " + old)
	}
	return s[:i] + new + s[i+len(old):]
}

func manifestNoSigner(t *testing.T, m *Manifest) []byte {
	c := *m
	c.Signer = nil
	b, err := MarshalManifest(&c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x01
	return c
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ownArmor(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w := newArmorWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// corruptArmorLine puts c in the middle of the third armor line.
func corruptArmorLine(b []byte, c byte) []byte {
	out := bytes.Clone(b)
	lines := bytes.SplitAfter(out, []byte("\n"))
	off := len(lines[0]) + len(lines[1]) + 10
	out[off] = c
	return out
}

// flipAgeMAC changes one character of the header MAC, keeping it valid
// base64, so the header parses and fails authentication.
func flipAgeMAC(t *testing.T, b []byte) []byte {
	i := bytes.Index(b, []byte("\n--- "))
	if i < 0 {
		t.Fatal("no age mac line")
	}
	c := bytes.Clone(b)
	p := i + 5 + 10
	if c[p] == 'A' {
		c[p] = 'B'
	} else {
		c[p] = 'A'
	}
	return c
}

// flipAgeStanza changes one character of the X25519 stanza body: the file
// key no longer unwraps, which looks exactly like "not for you".
func flipAgeStanza(t *testing.T, b []byte) []byte {
	i := bytes.Index(b, []byte("-> X25519 "))
	j := bytes.IndexByte(b[i:], '\n')
	c := bytes.Clone(b)
	p := i + j + 1 + 5
	if c[p] == 'A' {
		c[p] = 'B'
	} else {
		c[p] = 'A'
	}
	return c
}

// flipManifest changes a character of the manifest's base64 payload inside
// the envelope without re-signing.
func flipManifest(t *testing.T, tarBytes, env []byte) []byte {
	i := bytes.Index(tarBytes, env)
	j := bytes.Index(env, []byte(`"payload":"`)) + len(`"payload":"`) + 100
	c := bytes.Clone(tarBytes)
	if c[i+j] == 'A' {
		c[i+j] = 'B'
	} else {
		c[i+j] = 'A'
	}
	return c
}

// flipSig flips a bit of the first signature, keeping valid base64.
func flipSig(t *testing.T, env []byte) []byte {
	e, err := crypto.ParseEnvelope(env, 0)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
	sig[5] ^= 1
	e.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig)
	out, _ := e.Marshal()
	return out
}

// sameKeyTwice signs payload once and lists the signature twice, under the
// key's real id and under another.
func sameKeyTwice(t *testing.T, payload []byte, k *crypto.SigningKey) []byte {
	e, err := crypto.Sign(PayloadType, payload, k)
	if err != nil {
		t.Fatal(err)
	}
	s := e.Signatures[0]
	s.KeyID = "SHA256:" + strings.Repeat("A", 43)
	e.Signatures = append(e.Signatures, s)
	out, _ := e.Marshal()
	return out
}

func withEntries0(t *testing.T, pack func([]byte) []byte, env, blob []byte, sum string, blob2 []byte, sum2 string) []byte {
	return pack(tarOf(t, regEntry(EnvelopeName, env), regEntry(BlobPath(sum), blob), regEntry(BlobPath(sum2), blob2)))
}

// Raw tar building, for headers archive/tar will not write.

func rawHeader(t *testing.T, name string, typeflag byte, size int64) []byte {
	var h [512]byte
	if len(name) > 100 {
		t.Fatalf("raw header name too long: %q", name)
	}
	copy(h[0:], name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", size))
	copy(h[136:], fmt.Sprintf("%011o\x00", fixedTime.Unix()))
	h[156] = typeflag
	copy(h[257:], "ustar\x0000")
	for i := 148; i < 156; i++ {
		h[i] = ' '
	}
	sum := 0
	for _, b := range h {
		sum += int(b)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	return h[:]
}

func pad512(b []byte) []byte {
	if r := len(b) % 512; r != 0 {
		b = append(b, make([]byte, 512-r)...)
	}
	return b
}

func regEntryRaw(t *testing.T, name string, body []byte) []byte {
	return append(rawHeader(t, name, tar.TypeReg, int64(len(body))), pad512(bytes.Clone(body))...)
}

// paxEntry is a PAX extended header with records, then a ustar entry.
func paxEntry(t *testing.T, records map[string]string, name string, body []byte) []byte {
	var recs []byte
	for key, val := range records {
		rest := " " + key + "=" + val + "\n"
		n := len(rest) + 1
		for len(strconv.Itoa(n))+len(rest) != n {
			n = len(strconv.Itoa(n)) + len(rest)
		}
		recs = append(recs, strconv.Itoa(n)+rest...)
	}
	out := rawHeader(t, "PaxHeaders/x", tar.TypeXHeader, int64(len(recs)))
	out = append(out, pad512(recs)...)
	return append(out, regEntryRaw(t, name, body)...)
}

func withRaw(t *testing.T, pack func([]byte) []byte, env []byte, entries ...[]byte) []byte {
	out := regEntryRaw(t, EnvelopeName, env)
	for _, e := range entries {
		out = append(out, e...)
	}
	out = append(out, make([]byte, 1024)...)
	return pack(out)
}

// zstdBomb is a signed unencrypted bundle whose one blob is size zero
// bytes: a few kilobytes compressed, size bytes decompressed.
func zstdBomb(t *testing.T, k *testKeys, size int64) []byte {
	zeros := make([]byte, 1<<20)
	h := sha256.New()
	for left := size; left > 0; {
		n := min(left, int64(len(zeros)))
		h.Write(zeros[:n])
		left -= n
	}
	b := Blob{Name: "zeros.bin", MediaType: "application/octet-stream", Size: size, SHA256: fmt.Sprintf("%x", h.Sum(nil))}
	rec := fixedRecord()
	rec.Attachments = []handoff.Attachment{{Name: b.Name, MediaType: b.MediaType, Size: b.Size, SHA256: b.SHA256}}
	m := testManifest(rec)
	m.Format, m.Version, m.BundleID, m.Encryption = Format, Version, "0123456789abcdef0123456789abcdef", EncryptNone
	m.Signer = &Signer{Key: k.signer.Public().String(), Fingerprint: k.signer.Public().Fingerprint()}
	m.Blobs = []Blob{b}
	payload, err := MarshalManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	env := envelopeOf(t, PayloadType, payload, k.signer)
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	tw.WriteHeader(entryHeader(EnvelopeName, int64(len(env)), fixedTime))
	tw.Write(env)
	tw.WriteHeader(entryHeader(BlobPath(b.SHA256), size, fixedTime))
	for left := size; left > 0; {
		n := min(left, int64(len(zeros)))
		tw.Write(zeros[:n])
		left -= n
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// hugeWindow rewrites the frame header to claim a 2 GiB window: a
// single-segment header (which has no window descriptor) is turned into a
// windowed one without a content size.
func hugeWindow(t *testing.T, z []byte) []byte {
	fhd := z[4]
	fcsFlag, single, dictFlag := fhd>>6, fhd&0x20 != 0, fhd&0x03
	dictLen := []int{0, 1, 2, 4}[dictFlag]
	fcsLen := []int{0, 2, 4, 8}[fcsFlag]
	if single && fcsFlag == 0 {
		fcsLen = 1
	}
	rest := 5
	if !single {
		rest++ // the old window descriptor
	}
	dict := z[rest : rest+dictLen]
	rest += dictLen + fcsLen
	out := append([]byte(zstdMagic), fhd&^0xE0) // no content size, not single-segment
	out = append(out, 21<<3)                    // window descriptor: 2^(10+21) = 2 GiB
	out = append(out, dict...)
	return append(out, z[rest:]...)
}

// scryptWorkFactor makes a passphrase bundle and rewrites the work factor
// in its header to wf. The header MAC no longer matches, but a reader must
// refuse the work factor before doing any scrypt work or checking the MAC.
func scryptWorkFactor(t *testing.T, k *testKeys, wf int64) []byte {
	b := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, Passphrase: k.passphrase})
	i := bytes.Index(b, []byte("-> scrypt "))
	j := i + bytes.IndexByte(b[i:], '\n')
	line := string(b[i:j])
	f := strings.Fields(line)
	f[len(f)-1] = strconv.FormatInt(wf, 10)
	return append(append(bytes.Clone(b[:i]), strings.Join(f, " ")...), b[j:]...)
}

// zstNoChecksum compresses data as one zstd frame without the content
// checksum the format requires.
func zstNoChecksum(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
