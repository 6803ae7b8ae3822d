// Package oldtools writes files exactly as the three earlier tools wrote
// them, for tests only: the fixtures that show their users' data and
// habits still work. Each writer follows the tool's own code path, named
// beside it, byte for byte; where the tool drew something at random (an
// encryption salt, a time) the caller passes it, so a fixture is
// reproducible. Nothing here is the tools' code: it is written from their
// published source (../shared/seeds/, and agent19710101/session-handoff at
// v0.7.5 for session-handoff's Go source).
//
// Only tests may import this package (internal/archtest holds it).
package oldtools

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/scrypt"
)

// Record is session-handoff v0.7.5's HandoffRecord (internal/handoff/
// types.go): field order, names and omitempty as there, because its
// checksum is encoding/json's encoding of this struct.
type Record struct {
	ID        string   `json:"id"`
	CreatedAt string   `json:"created_at"`
	Tool      string   `json:"tool"`
	Project   string   `json:"project"`
	Title     string   `json:"title"`
	Summary   string   `json:"summary"`
	Next      []string `json:"next"`
	Changed   []string `json:"changed,omitempty"`
}

type storeFile struct {
	Version int      `json:"version"`
	Items   []Record `json:"items"`
}

type signerMeta struct {
	Name      string `json:"name,omitempty"`
	KeyID     string `json:"key_id,omitempty"`
	PublicKey string `json:"public_key,omitempty"`
}

type exportBundle struct {
	Version   int         `json:"version"`
	Checksum  string      `json:"checksum,omitempty"`
	Record    Record      `json:"record"`
	Signer    *signerMeta `json:"signer,omitempty"`
	Signature string      `json:"signature,omitempty"`
}

// v1Bundle is v0.1.0's exportBundle: no checksum (main.go at v0.1.0).
type v1Bundle struct {
	Version int    `json:"version"`
	Record  Record `json:"record"`
}

type encryptedBundle struct {
	Version    int    `json:"version"`
	Algorithm  string `json:"algorithm"`
	KDF        string `json:"kdf"`
	Salt       string `json:"salt"`
	Nonce      string `json:"nonce"`
	Ciphertext string `json:"ciphertext"`
}

// NewRecord is a record as cmdSave made it: created_at the second of now
// in UTC (RFC 3339, Z), the id from handoffid.Generate over the ids
// existing, tool, title, summary and next steps trimmed, and next never
// nil. changed is what detectChangedFiles returned: paths, "OLD -> NEW"
// for renames, sorted.
func NewRecord(existing []string, now time.Time, tool, project, title, summary string, next, changed []string) Record {
	now = now.UTC()
	n := make([]string, 0, len(next))
	for _, s := range next {
		n = append(n, strings.TrimSpace(s))
	}
	return Record{
		ID:        GenerateID(existing, now),
		CreatedAt: now.Format(time.RFC3339),
		Tool:      strings.TrimSpace(tool),
		Project:   project,
		Title:     strings.TrimSpace(title),
		Summary:   strings.TrimSpace(summary),
		Next:      n,
		Changed:   changed,
	}
}

// GenerateID is pkg/handoffid.Generate: the UTC second as
// 20060102-150405, then -002 … -999 while taken.
func GenerateID(existing []string, now time.Time) string {
	base := now.UTC().Format("20060102-150405")
	taken := map[string]bool{}
	for _, e := range existing {
		taken[e] = true
	}
	if !taken[base] {
		return base
	}
	for i := 2; i <= 999; i++ {
		c := base + "-" + fmt.Sprintf("%03d", i)
		if !taken[c] {
			return c
		}
	}
	return ""
}

// StoreFile is handoffs.json as writeStore wrote it: MarshalIndent with
// two spaces, then a newline.
func StoreFile(items []Record) []byte {
	if items == nil {
		items = []Record{}
	}
	data, err := json.MarshalIndent(storeFile{Version: 1, Items: items}, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(data, '\n')
}

// Checksum is RecordChecksum: hex SHA-256 of json.Marshal(rec).
func Checksum(rec Record) string {
	data, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// BundleV1 is export --format json of v0.1.0: {"version":1,"record":…}.
func BundleV1(rec Record) []byte {
	return indent(v1Bundle{Version: 1, Record: rec})
}

// BundleV2 is export --format json without --sign-key: version 2 with the
// checksum.
func BundleV2(rec Record) []byte {
	return indent(exportBundle{Version: 2, Checksum: Checksum(rec), Record: rec})
}

// BundleV3 is export --format json --sign-key KEY --signer NAME: version
// 3, the signer's name, key id (hex of the first 8 bytes of SHA-256 of the
// public key) and base64 public key, and the base64 Ed25519 signature of
// the checksum's hex string.
func BundleV3(rec Record, priv ed25519.PrivateKey, signer string) []byte {
	pub := priv.Public().(ed25519.PublicKey)
	sum := sha256.Sum256(pub)
	digest := Checksum(rec)
	return indent(exportBundle{
		Version:  3,
		Checksum: digest,
		Record:   rec,
		Signer: &signerMeta{
			Name:      strings.TrimSpace(signer),
			KeyID:     hex.EncodeToString(sum[:8]),
			PublicKey: base64.StdEncoding.EncodeToString(pub),
		},
		Signature: base64.StdEncoding.EncodeToString(ed25519.Sign(priv, []byte(digest))),
	})
}

// Encrypt is export --passphrase P: the bundle as written (without its
// final newline) sealed with AES-256-GCM under scrypt(P, salt, N=32768,
// r=8, p=1), wrapped in MarshalIndent, then a newline. The old tool drew
// a 16-byte salt and a 12-byte nonce at random; here they are given.
func Encrypt(bundle []byte, passphrase string, salt, nonce []byte) []byte {
	bundle = []byte(strings.TrimSuffix(string(bundle), "\n"))
	key, err := scrypt.Key([]byte(passphrase), salt, 1<<15, 8, 1, 32)
	if err != nil {
		panic(err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return indent(encryptedBundle{
		Version:    1,
		Algorithm:  "aes-256-gcm",
		KDF:        "scrypt(N=32768,r=8,p=1)",
		Salt:       base64.StdEncoding.EncodeToString(salt),
		Nonce:      base64.StdEncoding.EncodeToString(nonce),
		Ciphertext: base64.StdEncoding.EncodeToString(aead.Seal(nil, nonce, bundle, nil)),
	})
}

func indent(v any) []byte {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(data, '\n')
}

// MemoryFile is agent-handover's MemoryStore.write (agent_handover/
// memory.py, 0.1.0): the path under the memory root and the bytes, the
// header "<!-- agent-handover | layerN | DATE -->\n" and the content as
// given. The tag is made safe by replacing "/" with "-" and " " with "_".
func MemoryFile(layer int, content, tag, date string) (path string, data []byte) {
	ym := date[:7]
	safe := strings.ReplaceAll(strings.ReplaceAll(tag, "/", "-"), " ", "_")
	switch layer {
	case 1:
		path = "layer1/" + ym + "/" + safe + "-" + date + ".md"
	case 2:
		path = "layer2/current-state.md"
	case 3:
		path = "layer3/" + ym + "-" + safe + "-archive.md"
	default:
		panic(fmt.Sprintf("invalid layer: %d", layer))
	}
	return path, []byte(fmt.Sprintf("<!-- agent-handover | layer%d | %s -->\n", layer, date) + content)
}

// CheckpointStep is one step of agent-handover's checkpoint, in order.
type CheckpointStep struct {
	Name  string
	State string // pending or done
}

// Checkpoint is agent-handover's Checkpoint._save (agent_handover/
// checkpoint.py): Python's json.dump(data, ensure_ascii=False, indent=2),
// keys in insertion order (status, steps, started_at, finished_at), no
// final newline. started and finished are datetime.isoformat() strings
// ("2026-03-05T09:00:00.123456+00:00"), empty for null.
func Checkpoint(status string, steps []CheckpointStep, started, finished string) []byte {
	var b strings.Builder
	b.WriteString("{\n  \"status\": " + pyString(status) + ",\n  \"steps\": ")
	if len(steps) == 0 {
		b.WriteString("{}")
	} else {
		b.WriteString("{\n")
		for i, s := range steps {
			b.WriteString("    " + pyString(s.Name) + ": " + pyString(s.State))
			if i < len(steps)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("  }")
	}
	b.WriteString(",\n  \"started_at\": " + pyNullable(started) + ",\n  \"finished_at\": " + pyNullable(finished) + "\n}")
	return []byte(b.String())
}

func pyNullable(s string) string {
	if s == "" {
		return "null"
	}
	return pyString(s)
}

// pyString is json.dumps of a str with ensure_ascii=False: '"' and '\'
// escaped, control characters as \n, \t… or \u00XX, everything else as
// is.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00` + strconv.FormatInt(int64(r)+0x100, 16)[1:])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// AgentHandoffFiles are the three files agent-handoff 0.1.0's init and
// snapshot leave in a workspace (SOUL.md, MEMORY.md, HANDOFF.md), keyed by
// name. Its README (../shared/seeds/agent-handoff-002.txt) says what each
// holds but its templates were not published with it, so the text here
// follows the README's description, not its bytes: who the agent is, what
// it knows, and a snapshot with the git branch, recent commits,
// uncommitted changes, the project type and the session mode.
func AgentHandoffFiles(name string) map[string]string {
	return map[string]string{
		"SOUL.md":    "# SOUL.md\n\nI am " + name + ". I keep changes small and tested.\n",
		"MEMORY.md":  "# MEMORY.md\n\n## Patterns\n- The auth tests need REDIS_URL set.\n\n## Decisions\n- Keep JWT; drop the sessions table.\n",
		"HANDOFF.md": "# HANDOFF.md\n\nMode: build\nGenerated: 2026-03-04T18:00:00\n\n## Git\n- Branch: feature/auth\n- Recent commits:\n  - a1b2c3d Extract token parser\n- Uncommitted changes:\n  - M auth/parser.go\n\n## Project\n- Type: go\n\nRead SOUL.md and MEMORY.md first.\n",
	}
}
