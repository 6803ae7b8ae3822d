package crypto

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

// comparableEntry drops the fields that legitimately change when a store is
// written and read back (line numbers).
func comparableEntries(s *TrustStore) []TrustEntry {
	es := s.Entries()
	for i := range es {
		es[i].Line = 0
	}
	return es
}

func FuzzParseTrustStore(f *testing.F) {
	text, keys := sampleAllowedSigners(f)
	f.Add([]byte(text))
	f.Add([]byte(""))
	f.Add([]byte("\n\r\n# c\n"))
	f.Add([]byte(`"a b,#c" cert-authority,namespaces="x,y" ssh-ed25519 ` + b64Of(f, keys[0]) + " comment\r\n"))
	f.Add([]byte("a,ssh-ed25519 ssh-ed25519 " + b64Of(f, keys[1]) + "\n"))
	f.Add([]byte("alice ssh-dss AAAA\n"))
	f.Add([]byte(`a valid-after="20300101",valid-before=203002011200Z ssh-ed25519 ` + b64Of(f, keys[2])))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseTrustStore(data, "f")
		if err != nil {
			return
		}
		want := comparableEntries(s)
		s2, err := ParseTrustStore(s.Marshal(), "f")
		if err != nil {
			t.Fatalf("cannot reparse written store: %v\n%q", err, s.Marshal())
		}
		if got := comparableEntries(s2); !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed entries:\n%+v\n%+v", got, want)
		}
		// Rewritten lines must parse back too.
		for _, e := range want {
			if len(e.Principals) < 2 {
				continue
			}
			if _, err := s.Remove(e.Principals[0]); err != nil {
				continue
			}
			out := s.Marshal()
			s3, err := ParseTrustStore(out, "f")
			if err != nil {
				t.Fatalf("cannot reparse after Remove(%q): %v\n%q", e.Principals[0], err, out)
			}
			for _, e3 := range s3.Entries() {
				if slices.Contains(e3.Principals, e.Principals[0]) {
					t.Fatalf("Remove(%q) left it in %q", e.Principals[0], out)
				}
			}
			break
		}
		if err := s.Add("fuzz@example.com", keys[0].Public()); err == nil {
			if _, err := ParseTrustStore(s.Marshal(), "f"); err != nil {
				t.Fatalf("cannot reparse after Add: %v", err)
			}
		}
	})
}

func FuzzParseEnvelope(f *testing.F) {
	k := seededKey(f, 1)
	env := mustSign(f, `{"a":1}`, k)
	good, _ := env.Marshal()
	f.Add(good)
	f.Add([]byte(`{"payloadType":"t","payload":"","signatures":[]}`))
	f.Add([]byte(`{"payloadType":"t","payload":"","payload":"","signatures":[]}`))
	f.Add([]byte(`{"payloadType":"t","payload":"YQ==","signatures":[{"keyid":"k","sig":"AAAA"}]} `))
	f.Add([]byte(`[[[[{"a":"\u0061"}]]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEnvelope(data, 1<<16)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatal("accepted invalid JSON")
		}
		if _, err := e.DecodedPayload(); err != nil {
			t.Fatalf("accepted an undecodable payload: %v", err)
		}
		out, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		e2, err := ParseEnvelope(out, 1<<20)
		if err != nil {
			t.Fatalf("cannot reparse %s: %v", out, err)
		}
		if e.Signatures == nil || e2.Signatures == nil || !reflect.DeepEqual(e, e2) {
			t.Fatalf("round trip changed the envelope:\n%+v\n%+v", e, e2)
		}
		// Only the one message k signed can verify under k.
		if res := Verify(e, []PublicKey{k.Public()}); res.Status == StatusVerified {
			p, _ := e.DecodedPayload()
			if e.PayloadType != testPayloadType || string(p) != `{"a":1}` {
				t.Fatalf("verified a forged envelope: %s", data)
			}
		}
	})
}
