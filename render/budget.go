package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// BytesPerToken is the approximation used to turn a token budget into
// bytes: about four bytes of English prose or code per token, the usual
// figure for the tokenizers of today's models. It errs on the generous
// side for code (often fewer bytes per token) and is documented as an
// approximation, not a count.
const BytesPerToken = 4

// MaxBudget bounds a budget, so that a typo cannot ask for gigabytes.
const MaxBudget = 64 << 20

// Budget is the most a rendering may take, in bytes; 0 means no limit.
type Budget struct {
	Bytes int
	// Tokens is the number the user gave when the budget was in tokens,
	// kept for messages; 0 when it was given in bytes.
	Tokens int
}

// Tokens approximates the number of tokens in n bytes of text.
func Tokens(n int) int { return (n + BytesPerToken - 1) / BytesPerToken }

// ParseBudget reads a budget: a plain number or one ending in "t" or
// "tokens" is tokens; one ending in "B", "KB"/"KiB" or "MB"/"MiB" is bytes
// (K and Ki both mean 1024); "0" or "" means no limit.
func ParseBudget(s string) (Budget, error) {
	t := strings.TrimSpace(s)
	if t == "" || t == "0" {
		return Budget{}, nil
	}
	lower := strings.ToLower(t)
	units := []struct {
		suffix string
		bytes  int
		tokens bool
	}{
		{"tokens", 1, true}, {"token", 1, true}, {"tok", 1, true}, {"t", 1, true},
		{"kib", 1 << 10, false}, {"kb", 1 << 10, false}, {"k", 1 << 10, false},
		{"mib", 1 << 20, false}, {"mb", 1 << 20, false}, {"m", 1 << 20, false},
		{"b", 1, false},
	}
	mult, tokens, num := BytesPerToken, true, lower
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			num = strings.TrimSpace(strings.TrimSuffix(lower, u.suffix))
			tokens = u.tokens
			mult = u.bytes
			if tokens {
				mult = BytesPerToken
			}
			break
		}
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || num[0] == '-' || num[0] == '+' {
		return Budget{}, fmt.Errorf("budget %s: want a number of tokens (8000) or bytes (32KiB, 20000B)", untrusted.Quote(s, 32))
	}
	if n > MaxBudget/mult {
		return Budget{}, fmt.Errorf("budget %s: over the %d-byte limit", untrusted.Quote(s, 32), MaxBudget)
	}
	b := Budget{Bytes: n * mult}
	if tokens {
		b.Tokens = n
	}
	return b, nil
}

// String says the budget the way the user gave it.
func (b Budget) String() string {
	switch {
	case b.Bytes == 0:
		return "no limit"
	case b.Tokens > 0:
		return fmt.Sprintf("%d tokens (~%d bytes)", b.Tokens, b.Bytes)
	}
	return fmt.Sprintf("%d bytes", b.Bytes)
}
