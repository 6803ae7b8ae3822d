package crypto

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// ErrLookAlike is wrapped when a new principal would display like one the
// trust store already holds: a case variant or a confusable of it.
var ErrLookAlike = errors.New("looks like a principal already trusted")

// ErrAmbiguousPrincipal is wrapped by [TrustStore.Remove] when a principal
// names several keys: the fingerprint says which.
var ErrAmbiguousPrincipal = errors.New("names several keys")

// checkVisible refuses what would make a principal display as another
// one: characters that do not print (format characters such as U+200B
// and the bidirectional controls, line and paragraph separators, private
// use, unassigned code points), default-ignorable ones (variation
// selectors, Hangul fillers), combining marks that follow no letter or
// digit or pile up (more than two), and text not in Unicode normal form C
// (so that "é" has one spelling).
func checkVisible(p string) error {
	marks := 0
	var prev rune = -1
	for _, r := range p {
		switch {
		case !unicode.IsPrint(r):
			return fmt.Errorf("principal contains the invisible or unprintable character %U", r)
		case unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
			return fmt.Errorf("principal contains the invisible character %U", r)
		case unicode.IsMark(r):
			marks++
			if prev < 0 || marks > 2 || !unicode.In(prev, unicode.L, unicode.N, unicode.M) {
				return fmt.Errorf("principal contains the combining mark %U without a letter to go on", r)
			}
		default:
			marks = 0
		}
		prev = r
	}
	if !norm.NFC.IsNormalString(p) {
		return fmt.Errorf("principal is not in Unicode normal form C")
	}
	return nil
}

// confusables maps characters to the ASCII letter or digit they are
// commonly mistaken for. It is a small subset of the single-character
// mappings to ASCII of Unicode's confusables.txt (UTS #39, "Unicode
// Security Mechanisms", section 4), chosen by hand: the Cyrillic and Greek
// letters that look like Latin ones in common fonts, in both cases, the
// digits 0 and 1, and the Latin letters I and l and dotless i. Mappings to
// more than one character that matter in names ("rn" for "m", "vv" for
// "w", "cl" for "d") are in confusableRuns. Fullwidth, mathematical and
// other compatibility forms are not listed: NFKC maps them first.
var confusables = map[rune]rune{
	// Cyrillic capitals
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't', 'Х': 'x',
	'У': 'y', 'Ѕ': 's', 'І': 'l', 'Ј': 'j', 'Ԛ': 'q', 'Ԝ': 'w', 'Ү': 'y', 'Ӏ': 'l',
	// Cyrillic small letters
	'а': 'a', 'с': 'c', 'ԁ': 'd', 'е': 'e', 'һ': 'h', 'і': 'i', 'ј': 'j', 'ӏ': 'l', 'о': 'o', 'р': 'p',
	'ԛ': 'q', 'ѕ': 's', 'ԝ': 'w', 'х': 'x', 'у': 'y', 'ү': 'y', 'ь': 'b', 'ɡ': 'g', 'ԍ': 'g', 'ѵ': 'v',
	// Greek capitals
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'l', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o',
	'Ρ': 'p', 'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	// Greek small letters
	'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'υ': 'u', 'ι': 'i', 'κ': 'k', 'γ': 'y', 'ϲ': 'c', 'ϳ': 'j', 'ɩ': 'i',
	// Latin and digits
	'0': 'o', '1': 'l', 'I': 'l', '|': 'l', 'ı': 'i', 'ǀ': 'l',
}

// confusableRuns are the multi-letter look-alikes, applied after the
// single characters and case folding.
var confusableRuns = strings.NewReplacer("rn", "m", "vv", "w", "cl", "d")

var folder = cases.Fold()

// skeletons returns the forms two principals share when they look alike:
// the principal in Unicode normal form KC, its confusable characters
// replaced by the ASCII letters they imitate, case folded, and
// multi-letter look-alikes ("rn" and "m") made one. There are two, as the
// order of folding and mapping matters: mapped first, a capital I meets
// the l it imitates ("Ivan", "lvan"); folded first, it meets its own small
// letter ("Ivan", "ivan").
func skeletons(p string) [2]string {
	s := norm.NFKC.String(p)
	mapped := func(s string) string {
		return strings.Map(func(r rune) rune {
			if c, ok := confusables[r]; ok {
				return c
			}
			return r
		}, s)
	}
	return [2]string{
		confusableRuns.Replace(mapped(folder.String(mapped(s)))),
		confusableRuns.Replace(mapped(folder.String(s))),
	}
}

// Confusable reports whether two principals would be taken for each other
// by a reader: they are equal, case variants, or differ only by
// characters that look alike (Cyrillic or Greek letters for Latin ones,
// 0 for o, 1 or I for l, "rn" for "m", fullwidth forms, …). Two
// confusable principals can be told apart by their bytes, but not on a
// screen.
func Confusable(a, b string) bool {
	sa, sb := skeletons(a), skeletons(b)
	return sa[0] == sb[0] || sa[1] == sb[1]
}

// LookAlike returns a principal of the store that p would be taken for,
// other than p itself (see [Confusable]). It returns "" when there is
// none, or when p itself is already in the store (it is then no new name).
func (s *TrustStore) LookAlike(p string) string {
	found := ""
	sp := skeletons(p)
	for _, l := range s.lines {
		if l.entry == nil {
			continue
		}
		for _, q := range l.entry.Principals {
			if q == p {
				return ""
			}
			if sq := skeletons(q); found == "" && (sp[0] == sq[0] || sp[1] == sq[1]) {
				found = q
			}
		}
	}
	return found
}

// CheckNew refuses p as a new principal when it looks like one the store
// holds already (see [TrustStore.LookAlike]); the error wraps
// [ErrLookAlike] and shows both, escaped.
func (s *TrustStore) CheckNew(p string) error {
	if q := s.LookAlike(p); q != "" {
		return fmt.Errorf("%s %w: %s", quoteASCII(p), ErrLookAlike, quoteASCII(q))
	}
	return nil
}

// quoteASCII quotes a principal with every character beyond ASCII escaped,
// so that two look-alikes print differently.
func quoteASCII(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.QuoteToASCII(s[:max]) + "…"
	}
	return strconv.QuoteToASCII(s)
}
