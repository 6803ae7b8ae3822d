package transcript

import "strings"

// Hand-written forms of the multi-line patterns that find a command's exit
// code in its output. They run on every tool output of a transcript, where
// regexp was the largest single cost; TestExitLineMatchesRegexp holds them
// to the patterns they replace.

// lineWithPrefix reports whether a line of text begins with prefix, as
// the pattern (?m)^prefix would.
func lineWithPrefix(text, prefix string) bool {
	for i := 0; i <= len(text); {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || text[j-1] == '\n' {
			return true
		}
		i = j + 1
	}
	return false
}

// exitLine finds the first line of text made of one of prefixes, a space,
// an integer of at most ten digits and nothing but white space after it,
// as (?m)^(?:prefix|…) (-?\d{1,10})\s*$ would, and returns the integer.
func exitLine(text string, prefixes ...string) (string, bool) {
	best, num := -1, ""
	for _, p := range prefixes {
		for i := 0; i <= len(text); {
			j := strings.Index(text[i:], p)
			if j < 0 || best >= 0 && i+j >= best {
				break
			}
			j += i
			i = j + 1
			if j > 0 && text[j-1] != '\n' {
				continue
			}
			if n, ok := exitNumber(text[j+len(p):]); ok {
				best, num = j, n
				break
			}
		}
	}
	return num, best >= 0
}

// exitNumber reads " -?\d{1,10}" followed by white space to the end of
// the line from the start of s.
func exitNumber(s string) (string, bool) {
	if len(s) == 0 || s[0] != ' ' {
		return "", false
	}
	s = s[1:]
	k := 0
	if k < len(s) && s[k] == '-' {
		k++
	}
	d := k
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == d || k-d > 10 {
		return "", false
	}
	num := s[:k]
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\f') {
		k++
	}
	if k < len(s) && s[k] != '\n' {
		return "", false
	}
	return num, true
}
