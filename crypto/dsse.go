package crypto

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/schema"
)

// MaxSignatures is the largest number of signatures an envelope may carry.
const MaxSignatures = 16

// DefaultMaxEnvelopeSize is the size limit [ParseEnvelope] applies when
// given a limit of zero or less.
const DefaultMaxEnvelopeSize = 8 << 20

// maxPayloadTypeSize and maxKeyIDSize bound the short string fields.
const (
	maxPayloadTypeSize = 256
	maxKeyIDSize       = 256
)

// PAE returns the DSSE v1 pre-authentication encoding of a payload:
// "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, with lengths in ASCII
// decimal. Signatures are computed over this encoding, never over the
// payload alone, so that the payload type is signed too.
func PAE(payloadType string, payload []byte) []byte {
	var b bytes.Buffer
	b.Grow(len("DSSEv1") + len(payloadType) + len(payload) + 2*20 + 4)
	b.WriteString("DSSEv1 ")
	b.WriteString(strconv.Itoa(len(payloadType)))
	b.WriteByte(' ')
	b.WriteString(payloadType)
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(len(payload)))
	b.WriteByte(' ')
	b.Write(payload)
	return b.Bytes()
}

// Envelope is a DSSE v1 envelope
// (https://github.com/secure-systems-lab/dsse).
type Envelope struct {
	// PayloadType names the payload's format. Callers must check it before
	// trusting the payload to be what they expect.
	PayloadType string `json:"payloadType"`
	// Payload is the payload in standard, padded base64.
	Payload string `json:"payload"`
	// Signatures are signatures over PAE(PayloadType, payload bytes).
	Signatures []Signature `json:"signatures"`
}

// Signature is one signature of an [Envelope].
type Signature struct {
	// KeyID is the OpenSSH SHA256 fingerprint of the signer's key. It is a
	// hint for finding the key, never a proof of who signed.
	KeyID string `json:"keyid,omitempty"`
	// Sig is the Ed25519 signature in standard, padded base64.
	Sig string `json:"sig"`
}

// Sign signs payload as payloadType with each of keys and returns the
// envelope. A key given twice signs once.
func Sign(payloadType string, payload []byte, keys ...*SigningKey) (*Envelope, error) {
	if err := checkPayloadType(payloadType); err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("sign: no signing key")
	}
	if len(keys) > MaxSignatures {
		return nil, fmt.Errorf("sign: more than %d signing keys", MaxSignatures)
	}
	pae := PAE(payloadType, payload)
	env := &Envelope{
		PayloadType: payloadType,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []Signature{},
	}
	seen := make(map[PublicKey]bool)
	for _, k := range keys {
		if err := k.valid(); err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
		pub := k.Public()
		if seen[pub] {
			continue
		}
		seen[pub] = true
		env.Signatures = append(env.Signatures, Signature{
			KeyID: pub.Fingerprint(),
			Sig:   base64.StdEncoding.EncodeToString(k.sign(pae)),
		})
	}
	return env, nil
}

func checkPayloadType(t string) error {
	if t == "" {
		return fmt.Errorf("payload type is empty")
	}
	if len(t) > maxPayloadTypeSize {
		return fmt.Errorf("payload type is longer than %d bytes", maxPayloadTypeSize)
	}
	for _, r := range t {
		if unicode.IsControl(r) {
			return fmt.Errorf("payload type contains control character %U", r)
		}
	}
	return nil
}

// Marshal encodes the envelope as JSON.
func (e *Envelope) Marshal() ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("marshal envelope: %w", err)
	}
	return b, nil
}

// DecodedPayload returns the payload bytes. They are the exact bytes that
// were signed; verify the envelope before parsing them.
func (e *Envelope) DecodedPayload() ([]byte, error) {
	b, err := decodeBase64Strict(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("envelope payload is not standard base64")
	}
	return b, nil
}

// ParseEnvelope parses a DSSE envelope strictly: it refuses input over limit
// bytes (DefaultMaxEnvelopeSize if limit <= 0), invalid UTF-8, duplicate keys
// at any depth, unknown or missing fields, fields of the wrong JSON type,
// trailing data, base64 that is not standard padded base64, and more than
// [MaxSignatures] signatures. An envelope with an empty signature list
// parses; [Verify] reports it as unsigned.
func ParseEnvelope(data []byte, limit int64) (*Envelope, error) {
	if limit <= 0 {
		limit = DefaultMaxEnvelopeSize
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("envelope: %w: over %d bytes", safefile.ErrTooLarge, limit)
	}
	if err := schema.StrictCheckDepth(data, 4); err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	top, err := jsonObject(data, "envelope", []string{"payloadType", "payload", "signatures"}, nil)
	if err != nil {
		return nil, err
	}
	env := &Envelope{}
	if env.PayloadType, err = jsonString(top["payloadType"], "envelope payloadType"); err != nil {
		return nil, err
	}
	if err := checkPayloadType(env.PayloadType); err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	if env.Payload, err = jsonString(top["payload"], "envelope payload"); err != nil {
		return nil, err
	}
	if _, err := env.DecodedPayload(); err != nil {
		return nil, err
	}
	sigsRaw := bytes.TrimSpace(top["signatures"])
	if len(sigsRaw) == 0 || sigsRaw[0] != '[' {
		return nil, fmt.Errorf("envelope signatures is not an array")
	}
	var sigs []json.RawMessage
	if err := json.Unmarshal(sigsRaw, &sigs); err != nil {
		return nil, fmt.Errorf("envelope signatures: %w", err)
	}
	if len(sigs) > MaxSignatures {
		return nil, fmt.Errorf("envelope has %d signatures, more than %d", len(sigs), MaxSignatures)
	}
	env.Signatures = make([]Signature, 0, len(sigs))
	for i, raw := range sigs {
		what := fmt.Sprintf("envelope signature %d", i+1)
		obj, err := jsonObject(raw, what, []string{"sig"}, []string{"keyid"})
		if err != nil {
			return nil, err
		}
		var s Signature
		if s.Sig, err = jsonString(obj["sig"], what+" sig"); err != nil {
			return nil, err
		}
		if _, err := decodeBase64Strict(s.Sig); err != nil {
			return nil, fmt.Errorf("%s sig is not standard base64", what)
		}
		if raw, ok := obj["keyid"]; ok {
			if s.KeyID, err = jsonString(raw, what+" keyid"); err != nil {
				return nil, err
			}
			if len(s.KeyID) > maxKeyIDSize {
				return nil, fmt.Errorf("%s keyid is longer than %d bytes", what, maxKeyIDSize)
			}
		}
		env.Signatures = append(env.Signatures, s)
	}
	return env, nil
}

// jsonObject decodes raw as a JSON object whose keys are exactly the required
// ones plus any of the optional ones. Keys are compared exactly, unlike
// encoding/json's case-insensitive struct matching.
func jsonObject(raw []byte, what string, required, optional []string) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%s is not a JSON object", what)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	allowed := make(map[string]bool, len(required)+len(optional))
	for _, k := range required {
		if _, ok := obj[k]; !ok {
			return nil, fmt.Errorf("%s has no %q field", what, k)
		}
		allowed[k] = true
	}
	for _, k := range optional {
		allowed[k] = true
	}
	for k := range obj {
		if !allowed[k] {
			return nil, fmt.Errorf("%s has unknown field %s", what, untrusted.Quote(k, maxQuoted))
		}
	}
	return obj, nil
}

// jsonString decodes raw as a JSON string; null and other types are refused.
func jsonString(raw json.RawMessage, what string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", fmt.Errorf("%s is not a string", what)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	return s, nil
}

// Status is the outcome of verifying an envelope. The zero value is
// [StatusInvalid], so that an unset status never reads as success.
type Status int

const (
	// StatusInvalid: the envelope has signatures, but none verifies under a
	// trusted key or a claimed key, or the envelope itself is unusable.
	StatusInvalid Status = iota
	// StatusVerified: at least one signature verifies under a trusted key.
	StatusVerified
	// StatusUntrusted: no signature verifies under a trusted key, but at
	// least one verifies under a key the envelope or its payload claims.
	// That proves the bundle is intact and who holds the key, not that the
	// holder is who they say.
	StatusUntrusted
	// StatusUnsigned: the envelope has no signatures at all.
	StatusUnsigned
)

// String returns "verified", "untrusted", "unsigned" or "invalid".
func (s Status) String() string {
	switch s {
	case StatusVerified:
		return "verified"
	case StatusUntrusted:
		return "untrusted"
	case StatusUnsigned:
		return "unsigned"
	default:
		return "invalid"
	}
}

// Signer is a key that made a valid signature.
type Signer struct {
	// Key is the signer's public key.
	Key PublicKey
	// Fingerprint is Key's OpenSSH SHA256 fingerprint.
	Fingerprint string
}

// VerifyResult reports what the signatures of an envelope prove. Signatures
// count per unique key: one key signing twice, under any key ids, appears
// once.
type VerifyResult struct {
	// Status summarises the result.
	Status Status
	// Trusted lists the unique trusted keys with a valid signature, in the
	// order of the signatures.
	Trusted []Signer
	// Untrusted lists the unique claimed keys with a valid signature that
	// are not also trusted. Never treat these as proof of identity.
	Untrusted []Signer
	// Signatures is the number of signatures in the envelope.
	Signatures int
	// Unmatched counts the signatures that verified under no given key,
	// including malformed ones.
	Unmatched int
	// Malformed counts the signatures that could not even be decoded as an
	// Ed25519 signature.
	Malformed int
	// Reason explains a StatusInvalid result.
	Reason string
}

// Verify checks env's signatures over PAE(payloadType, payload bytes)
// against the trusted candidate keys, typically those of the trust store. It
// must run before anything parses the payload. A signature's key id is only
// a hint: the hinted key is tried first, but any candidate may match. The
// result's Status is [StatusVerified], [StatusUnsigned] or [StatusInvalid].
func Verify(env *Envelope, candidates []PublicKey) VerifyResult {
	return VerifyWithClaimedKeys(env, candidates, nil)
}

// VerifyWithClaimedKeys is [Verify] that also tries keys claimed by the
// untrusted envelope or payload (a bundle names its signer's public key so
// that a recipient can report "valid signature from untrusted key
// SHA256:…"). A valid signature under a claimed key that is not also trusted
// yields at most [StatusUntrusted] and is listed in Untrusted, never in
// Trusted.
func VerifyWithClaimedKeys(env *Envelope, trusted, claimed []PublicKey) VerifyResult {
	var res VerifyResult
	if env == nil {
		res.Reason = "no envelope"
		return res
	}
	res.Signatures = len(env.Signatures)
	if len(env.Signatures) == 0 {
		res.Status = StatusUnsigned
		return res
	}
	if len(env.Signatures) > MaxSignatures {
		res.Reason = fmt.Sprintf("envelope has more than %d signatures", MaxSignatures)
		return res
	}
	payload, err := env.DecodedPayload()
	if err != nil {
		res.Reason = err.Error()
		return res
	}
	if err := checkPayloadType(env.PayloadType); err != nil {
		res.Reason = err.Error()
		return res
	}
	pae := PAE(env.PayloadType, payload)

	var cands []candidate
	seen := make(map[PublicKey]bool)
	add := func(keys []PublicKey, trusted bool) {
		for _, k := range keys {
			if k.IsZero() || seen[k] {
				continue
			}
			seen[k] = true
			cands = append(cands, candidate{key: k, fp: k.Fingerprint(), trusted: trusted})
		}
	}
	add(trusted, true)
	add(claimed, false)

	found := make(map[PublicKey]bool)
	// Each distinct signature is checked once: repeating a signature under
	// other key ids must not multiply the work.
	tried := make(map[string]int)
	for _, s := range env.Signatures {
		sig, err := decodeBase64Strict(s.Sig)
		if err != nil || len(sig) != ed25519.SignatureSize {
			res.Malformed++
			res.Unmatched++
			continue
		}
		match, seenSig := tried[string(sig)]
		if !seenSig {
			match = matchSignature(cands, s.KeyID, pae, sig)
			tried[string(sig)] = match
		}
		if match < 0 {
			res.Unmatched++
			continue
		}
		c := cands[match]
		if found[c.key] {
			continue
		}
		found[c.key] = true
		signer := Signer{Key: c.key, Fingerprint: c.fp}
		if c.trusted {
			res.Trusted = append(res.Trusted, signer)
		} else {
			res.Untrusted = append(res.Untrusted, signer)
		}
	}
	switch {
	case len(res.Trusted) > 0:
		res.Status = StatusVerified
	case len(res.Untrusted) > 0:
		res.Status = StatusUntrusted
	default:
		res.Status = StatusInvalid
		if res.Malformed == res.Signatures {
			res.Reason = "no signature is a well-formed ed25519 signature"
		} else {
			res.Reason = "no signature verifies under a known key"
		}
	}
	return res
}

// candidate is a key Verify tries.
type candidate struct {
	key     PublicKey
	fp      string
	trusted bool
}

// matchSignature returns the index of the first candidate under which sig
// verifies, trying the candidates whose fingerprint equals the key id hint
// first, or -1.
func matchSignature(cands []candidate, keyID string, pae, sig []byte) int {
	for i, c := range cands {
		if keyID != "" && c.fp == keyID && ed25519.Verify(c.key.k[:], pae, sig) {
			return i
		}
	}
	for i, c := range cands {
		if (keyID == "" || c.fp != keyID) && ed25519.Verify(c.key.k[:], pae, sig) {
			return i
		}
	}
	return -1
}
