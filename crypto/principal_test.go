package crypto

import (
	"errors"
	"strings"
	"testing"
)

func TestValidatePrincipalRefusesWhatDoesNotShow(t *testing.T) {
	for _, p := range []string{
		"alice\u200b@laptop",    // zero-width space (Cf)
		"alice@\u202epotpal",    // right-to-left override
		"\u2066alice\u2069",     // isolates
		"alice\u2028@laptop",    // line separator (Zl)
		"alice\u2029",           // paragraph separator (Zp)
		"\u00adalice",           // soft hyphen
		"alice\ufe0f@laptop",    // variation selector
		"alice\u3164@laptop",    // Hangul filler (default ignorable)
		"\u0301alice",           // combining mark alone at the start
		"alice@\u0301laptop",    // combining mark after a symbol
		"ali\u0301\u0301\u0301", // a pile of marks
		"alice\ue000",           // private use
		"cafe\u0301@x",          // not NFC (é decomposed)
		"alice\u0378",           // unassigned
	} {
		if err := ValidatePrincipal(p); err == nil {
			t.Errorf("ValidatePrincipal(%+q) accepted it", p)
		}
	}
	for _, p := range []string{"alice@laptop", "café@x", "ñandú", "Ålice", "josé.garcía@example.com", "анна@пример", "李@example.com"} {
		if err := ValidatePrincipal(p); err != nil {
			t.Errorf("ValidatePrincipal(%+q): %v", p, err)
		}
	}
}

func TestConfusable(t *testing.T) {
	for _, pair := range [][2]string{
		{"alice@laptop", "Alice@Laptop"},
		{"alice@laptop", "аlice@laptop"}, // Cyrillic a
		{"alice@laptop", "ALІCE@LAPTOP"}, // Cyrillic I
		{"alice@laptop", "aIice@laptop"}, // capital I for l
		{"alice@laptop", "a1ice@laptop"},
		{"bob@example.com", "b0b@example.com"},
		{"bob@example.com", "ｂｏｂ@example.com"}, // fullwidth
		{"bob@example.com", "bοb@example.com"}, // Greek omicron
		{"mallory@x", "rnallory@x"},
		{"Ivan@x", "ivan@x"},
		{"Ivan@x", "lvan@x"},
		{"paypal@x", "раураl@x"},
	} {
		if !Confusable(pair[0], pair[1]) {
			t.Errorf("Confusable(%+q, %+q) = false", pair[0], pair[1])
		}
	}
	for _, pair := range [][2]string{{"alice@laptop", "alice@desk"}, {"bob@x", "rob@x"}, {"anna@x", "ann@x"}, {"café@x", "cafe@x"}} {
		if Confusable(pair[0], pair[1]) {
			t.Errorf("Confusable(%+q, %+q) = true", pair[0], pair[1])
		}
	}
}

func TestPinRefusesALookAlike(t *testing.T) {
	s := NewTrustStore("")
	alice, stranger := seededKey(t, 1).Public(), seededKey(t, 2).Public()
	if err := s.Add("alice@laptop", alice); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"Alice@laptop", "аlice@laptop", "a1ice@laptop", "ALICE@LAPTOP"} {
		err := s.Pin(p, stranger)
		if !errors.Is(err, ErrLookAlike) || !strings.Contains(err.Error(), `"alice@laptop"`) {
			t.Errorf("Pin(%+q): %v", p, err)
		}
		if err := s.CheckNew(p); !errors.Is(err, ErrLookAlike) {
			t.Errorf("CheckNew(%+q): %v", p, err)
		}
	}
	if _, ok := s.Lookup(stranger); ok {
		t.Fatal("a look-alike was pinned")
	}
	// The principal itself is no new name; an explicit Add of a
	// look-alike is the user's word.
	if err := s.CheckNew("alice@laptop"); err != nil {
		t.Errorf("CheckNew of a trusted principal: %v", err)
	}
	if err := s.Add("Alice@laptop", stranger); err != nil {
		t.Errorf("explicit Add: %v", err)
	}
}

func TestRemoveRefusesAnAmbiguousPrincipal(t *testing.T) {
	s := NewTrustStore("")
	k1, k2 := seededKey(t, 1).Public(), seededKey(t, 2).Public()
	if err := s.Add("alice@laptop", k1); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("alice@laptop", k2); err != nil {
		t.Fatal(err)
	}
	n, err := s.Remove("alice@laptop")
	if !errors.Is(err, ErrAmbiguousPrincipal) || n != 0 || !strings.Contains(err.Error(), k1.Fingerprint()) || !strings.Contains(err.Error(), k2.Fingerprint()) {
		t.Fatalf("Remove of a principal of two keys: %d %v", n, err)
	}
	if len(s.Keys()) != 2 {
		t.Fatal("an ambiguous remove removed something")
	}
	if n, err := s.Remove(k2.Fingerprint()); err != nil || n != 1 {
		t.Fatalf("Remove by fingerprint: %d %v", n, err)
	}
	if n, err := s.Remove("alice@laptop"); err != nil || n != 1 || len(s.Keys()) != 0 {
		t.Fatalf("Remove once unambiguous: %d %v", n, err)
	}
}
