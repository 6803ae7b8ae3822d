package crypto

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

func TestPAE(t *testing.T) {
	tests := []struct {
		typ, body, want string
	}{
		// The vector of the DSSE protocol specification.
		{"http://example.com/HelloWorld", "hello world", "DSSEv1 29 http://example.com/HelloWorld 11 hello world"},
		{"", "", "DSSEv1 0  0 "},
		// Lengths count bytes, not characters.
		{"tÿpe", "ü", "DSSEv1 5 tÿpe 2 ü"},
		{"application/vnd.test+json", strings.Repeat("x", 1000), "DSSEv1 25 application/vnd.test+json 1000 " + strings.Repeat("x", 1000)},
		// A body containing the separator cannot shift the boundary.
		{"a 1 b", "c", "DSSEv1 5 a 1 b 1 c"},
	}
	for _, tt := range tests {
		if got := string(PAE(tt.typ, []byte(tt.body))); got != tt.want {
			t.Errorf("PAE(%q, %.20q) = %.60q, want %.60q", tt.typ, tt.body, got, tt.want)
		}
	}
}

const testPayloadType = "application/vnd.session-handoff.manifest.v1+json"

func mustSign(t testing.TB, payload string, keys ...*SigningKey) *Envelope {
	t.Helper()
	env, err := Sign(testPayloadType, []byte(payload), keys...)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestSignVerify(t *testing.T) {
	alice, bob, carol := seededKey(t, 1), seededKey(t, 2), seededKey(t, 3)
	env := mustSign(t, `{"hello":"world"}`, alice)
	if len(env.Signatures) != 1 || env.Signatures[0].KeyID != alice.Public().Fingerprint() {
		t.Fatalf("signatures = %+v", env.Signatures)
	}
	if p, err := env.DecodedPayload(); err != nil || string(p) != `{"hello":"world"}` {
		t.Fatalf("DecodedPayload = %q, %v", p, err)
	}

	res := Verify(env, []PublicKey{bob.Public(), alice.Public()})
	if res.Status != StatusVerified || len(res.Trusted) != 1 || res.Trusted[0].Key != alice.Public() ||
		res.Trusted[0].Fingerprint != alice.Public().Fingerprint() || res.Unmatched != 0 {
		t.Errorf("Verify = %+v", res)
	}
	if res := Verify(env, []PublicKey{bob.Public(), carol.Public()}); res.Status != StatusInvalid || res.Unmatched != 1 || res.Reason == "" {
		t.Errorf("Verify with other keys = %+v", res)
	}
	if res := Verify(env, nil); res.Status != StatusInvalid {
		t.Errorf("Verify without keys = %+v", res)
	}

	both := mustSign(t, "x", alice, bob, alice)
	if len(both.Signatures) != 2 {
		t.Errorf("a key given twice signed %d times", len(both.Signatures))
	}
	res = Verify(both, []PublicKey{alice.Public(), bob.Public(), alice.Public()})
	if res.Status != StatusVerified || len(res.Trusted) != 2 {
		t.Errorf("two signers = %+v", res)
	}
	if _, err := Sign("", nil, alice); err == nil {
		t.Error("Sign accepted an empty payload type")
	}
	if _, err := Sign(testPayloadType, nil); err == nil {
		t.Error("Sign without keys succeeded")
	}
	if _, err := Sign(testPayloadType, nil, &SigningKey{}); err == nil {
		t.Error("Sign with a zero key succeeded")
	}
}

func TestVerifyTampering(t *testing.T) {
	alice := seededKey(t, 1)
	trusted := []PublicKey{alice.Public()}
	tamper := map[string]func(e *Envelope){
		"payload": func(e *Envelope) {
			e.Payload = base64.StdEncoding.EncodeToString([]byte(`{"hello":"World"}`))
		},
		"payload type": func(e *Envelope) { e.PayloadType += "x" },
		"signature bit": func(e *Envelope) {
			sig, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
			sig[10] ^= 1
			e.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig)
		},
		"truncated signature": func(e *Envelope) {
			sig, _ := base64.StdEncoding.DecodeString(e.Signatures[0].Sig)
			e.Signatures[0].Sig = base64.StdEncoding.EncodeToString(sig[:63])
		},
		"non-canonical payload base64": func(e *Envelope) { e.Payload += "\n" },
	}
	for name, fn := range tamper {
		env := mustSign(t, `{"hello":"world"}`, alice)
		fn(env)
		if res := Verify(env, trusted); res.Status != StatusInvalid {
			t.Errorf("%s: Verify = %+v, want invalid", name, res)
		}
	}
}

func TestVerifyKeyIDIsOnlyAHint(t *testing.T) {
	alice, bob := seededKey(t, 1), seededKey(t, 2)
	env := mustSign(t, "payload", alice)
	sig := env.Signatures[0]

	// The same signature under two key ids counts once.
	env.Signatures = []Signature{sig, {KeyID: "SHA256:something-else", Sig: sig.Sig}, {Sig: sig.Sig}}
	res := Verify(env, []PublicKey{alice.Public()})
	if res.Status != StatusVerified || len(res.Trusted) != 1 || res.Signatures != 3 || res.Unmatched != 0 {
		t.Errorf("duplicate signatures = %+v", res)
	}

	// A key id naming another trusted key does not stop the real signer
	// from matching.
	env.Signatures = []Signature{{KeyID: bob.Public().Fingerprint(), Sig: sig.Sig}}
	res = Verify(env, []PublicKey{bob.Public(), alice.Public()})
	if res.Status != StatusVerified || len(res.Trusted) != 1 || res.Trusted[0].Key != alice.Public() {
		t.Errorf("misleading key id = %+v", res)
	}

	// A malformed signature next to a good one is counted, not fatal.
	env.Signatures = []Signature{{Sig: base64.StdEncoding.EncodeToString([]byte("short"))}, sig}
	res = Verify(env, []PublicKey{alice.Public()})
	if res.Status != StatusVerified || res.Malformed != 1 || res.Unmatched != 1 {
		t.Errorf("malformed + good = %+v", res)
	}
}

func TestVerifyClaimedKeys(t *testing.T) {
	alice, mallory := seededKey(t, 1), seededKey(t, 9)
	env := mustSign(t, "payload", mallory)

	res := VerifyWithClaimedKeys(env, []PublicKey{alice.Public()}, []PublicKey{mallory.Public()})
	if res.Status != StatusUntrusted || len(res.Trusted) != 0 || len(res.Untrusted) != 1 ||
		res.Untrusted[0].Fingerprint != mallory.Public().Fingerprint() {
		t.Errorf("claimed key = %+v", res)
	}
	// A claimed key that is also trusted is trusted, once.
	res = VerifyWithClaimedKeys(env, []PublicKey{mallory.Public()}, []PublicKey{mallory.Public()})
	if res.Status != StatusVerified || len(res.Trusted) != 1 || len(res.Untrusted) != 0 {
		t.Errorf("claimed and trusted = %+v", res)
	}
	// A claimed key that did not sign proves nothing.
	res = VerifyWithClaimedKeys(env, nil, []PublicKey{alice.Public()})
	if res.Status != StatusInvalid {
		t.Errorf("wrong claimed key = %+v", res)
	}
}

func TestVerifyUnsignedAndZero(t *testing.T) {
	env := &Envelope{PayloadType: testPayloadType, Payload: "", Signatures: nil}
	if res := Verify(env, []PublicKey{seededKey(t, 1).Public()}); res.Status != StatusUnsigned {
		t.Errorf("unsigned = %+v", res)
	}
	if res := Verify(nil, nil); res.Status != StatusInvalid {
		t.Errorf("nil envelope = %+v", res)
	}
	var zero VerifyResult
	if zero.Status != StatusInvalid || zero.Status.String() != "invalid" {
		t.Error("the zero Status must be invalid")
	}
	for s, want := range map[Status]string{StatusVerified: "verified", StatusUntrusted: "untrusted", StatusUnsigned: "unsigned"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q", s, s.String())
		}
	}
}

func TestEnvelopeJSONRoundTrip(t *testing.T) {
	alice := seededKey(t, 1)
	env := mustSign(t, "payload with <html> & \x00 bytes", alice)
	data, err := env.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"payloadType":`, `"payload":`, `"signatures":`, `"keyid":`, `"sig":`} {
		if !strings.Contains(string(data), field) {
			t.Errorf("JSON lacks %s: %s", field, data)
		}
	}
	got, err := ParseEnvelope(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res := Verify(got, []PublicKey{alice.Public()}); res.Status != StatusVerified {
		t.Errorf("Verify after round trip = %+v", res)
	}
	// Without a key id, and with no signatures at all.
	for _, in := range []string{
		`{"payloadType":"t","payload":"","signatures":[{"sig":"` + env.Signatures[0].Sig + `"}]}`,
		`{"payloadType":"t","payload":"","signatures":[]}`,
		" \n" + `{"signatures":[],"payload":"YQ==","payloadType":"t"}` + "\n\t ",
	} {
		if _, err := ParseEnvelope([]byte(in), 0); err != nil {
			t.Errorf("ParseEnvelope(%s): %v", in, err)
		}
	}
}

func TestParseEnvelopeHostile(t *testing.T) {
	sig := base64.StdEncoding.EncodeToString(make([]byte, 64))
	s1 := `{"sig":"` + sig + `"}`
	valid := func(payload, sigs string) string {
		return `{"payloadType":"t","payload":` + payload + `,"signatures":[` + sigs + `]}`
	}
	many := strings.TrimSuffix(strings.Repeat(s1+",", MaxSignatures+1), ",")
	tests := map[string]struct {
		in, want string
	}{
		"duplicate top-level key":    {`{"payloadType":"t","payload":"","payload":"YQ==","signatures":[]}`, "duplicate key"},
		"duplicate escaped key":      {`{"payloadType":"t","payload":"","\u0070ayload":"YQ==","signatures":[]}`, "duplicate key"},
		"duplicate key in sig":       {valid(`""`, `{"sig":"`+sig+`","sig":"`+sig+`"}`), "duplicate key"},
		"duplicate keyid":            {valid(`""`, `{"keyid":"a","sig":"`+sig+`","keyid":"b"}`), "duplicate key"},
		"trailing object":            {valid(`""`, s1) + `{}`, "trailing data after the JSON value"},
		"trailing garbage":           {valid(`""`, s1) + `x`, "trailing data after the JSON value"},
		"invalid UTF-8":              {valid(`"`+"\xff"+`"`, s1), "UTF-8"},
		"invalid UTF-8 in keyid":     {valid(`""`, `{"keyid":"`+"\xc3\x28"+`","sig":"`+sig+`"}`), "UTF-8"},
		"unpadded payload":           {valid(`"YQ"`, s1), "base64"},
		"non-zero trailing bits":     {valid(`"YR=="`, s1), "base64"},
		"newline in payload":         {valid(`"YQ\n=="`, s1), "base64"},
		"URL-safe base64 sig":        {valid(`""`, `{"sig":"`+base64.URLEncoding.EncodeToString([]byte(strings.Repeat("\xff", 64)))+`"}`), "base64"},
		"unknown field":              {`{"payloadType":"t","payload":"","signatures":[],"extra":1}`, "unknown field"},
		"case-folded field":          {`{"payloadType":"t","Payload":"","signatures":[]}`, "no \"payload\" field"},
		"unknown signature field":    {valid(`""`, `{"sig":"`+sig+`","cert":"x"}`), "unknown field"},
		"missing payload":            {`{"payloadType":"t","signatures":[]}`, "no \"payload\" field"},
		"missing signatures":         {`{"payloadType":"t","payload":""}`, "no \"signatures\" field"},
		"missing sig":                {valid(`""`, `{"keyid":"a"}`), "no \"sig\" field"},
		"null payload":               {valid(`null`, s1), "not a string"},
		"numeric payload":            {valid(`1`, s1), "not a string"},
		"null signatures":            {`{"payloadType":"t","payload":"","signatures":null}`, "not an array"},
		"null signature":             {valid(`""`, `null`), "not a JSON object"},
		"numeric keyid":              {valid(`""`, `{"keyid":1,"sig":"`+sig+`"}`), "not a string"},
		"empty payload type":         {`{"payloadType":"","payload":"","signatures":[]}`, "payload type is empty"},
		"too many signatures":        {valid(`""`, many), "more than 16"},
		"array at top":               {`[]`, "not a JSON object"},
		"empty input":                {``, "end of input"},
		"truncated":                  {`{"payloadType":"t"`, "unexpected end of input"},
		"deep nesting":               {`{"x":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}`, "nested deeper"},
		"trailing comma":             {`{"payloadType":"t","payload":"","signatures":[],}`, "malformed JSON"},
		"oversized keyid":            {valid(`""`, `{"keyid":"`+strings.Repeat("a", 300)+`","sig":"`+sig+`"}`), "keyid is longer"},
		"control char in type":       {`{"payloadType":"t\u0000","payload":"","signatures":[]}`, "control character"},
		"huge number, unknown field": {`{"payloadType":"t","payload":"","signatures":[],"n":1e999}`, "unknown field"},
	}
	for name, tt := range tests {
		_, err := ParseEnvelope([]byte(tt.in), 0)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tt.want)
		}
	}
	big := valid(`"`+strings.Repeat("A", 1000)+`"`, s1)
	if _, err := ParseEnvelope([]byte(big), 500); !errors.Is(err, safefile.ErrTooLarge) {
		t.Errorf("oversize: err = %v", err)
	}
	if _, err := ParseEnvelope([]byte(big), int64(len(big))); err != nil {
		t.Errorf("exactly at the limit: %v", err)
	}
}

// Envelopes that encoding/json decodes without a word are refused by
// ParseEnvelope: the strict checks add something, and the tests above test
// it. Should encoding/json turn strict on one of them, the test fails,
// naming the case, so that it is replaced by one that still shows the
// difference.
func TestStdlibIsLenient(t *testing.T) {
	for name, in := range map[string]string{
		"duplicate key":     `{"payloadType":"t","payloadType":"u","payload":"","signatures":[]}`,
		"case-folded field": `{"payloadType":"t","Payload":"","signatures":[]}`,
		"unknown field":     `{"payloadType":"t","payload":"","signatures":[],"extra":1}`,
		"invalid UTF-8":     `{"payloadType":"t` + "\xff" + `","payload":"","signatures":[]}`,
	} {
		var e Envelope
		if err := json.Unmarshal([]byte(in), &e); err != nil {
			t.Errorf("%s: encoding/json now refuses it (%v): find a case it still takes", name, err)
		}
		if _, err := ParseEnvelope([]byte(in), 0); err == nil {
			t.Errorf("%s: ParseEnvelope took what only a lenient decoder takes", name)
		}
	}
}
