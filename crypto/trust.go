package crypto

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"

	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// Limits of a trust store file.
const (
	// MaxTrustStoreSize bounds the size of an allowed_signers file.
	MaxTrustStoreSize = 1 << 20
	// MaxTrustEntries bounds the number of key lines in it.
	MaxTrustEntries = 10000
	// MaxPrincipalSize bounds the length of a principal added with
	// [TrustStore.Add] or [TrustStore.Pin].
	MaxPrincipalSize = 256
)

// TrustNamespace is the signature namespace of session-handoff. An
// allowed_signers line restricted with a namespaces="…" option is used only
// if the option's pattern list matches it.
const TrustNamespace = "session-handoff"

// keyTypesKept are the key types a trust store keeps and skips: OpenSSH
// accepts them in allowed_signers, but they cannot verify our signatures.
var keyTypesKept = map[string]bool{
	"ssh-rsa":                                     true,
	"ecdsa-sha2-nistp256":                         true,
	"ecdsa-sha2-nistp384":                         true,
	"ecdsa-sha2-nistp521":                         true,
	"sk-ssh-ed25519@openssh.com":                  true,
	"sk-ecdsa-sha2-nistp256@openssh.com":          true,
	"ssh-ed25519-cert-v01@openssh.com":            true,
	"ssh-rsa-cert-v01@openssh.com":                true,
	"ecdsa-sha2-nistp256-cert-v01@openssh.com":    true,
	"ecdsa-sha2-nistp384-cert-v01@openssh.com":    true,
	"ecdsa-sha2-nistp521-cert-v01@openssh.com":    true,
	"sk-ssh-ed25519-cert-v01@openssh.com":         true,
	"sk-ecdsa-sha2-nistp256-cert-v01@openssh.com": true,
}

// looksLikeKeyType reports whether a token is meant as a key type, so that
// an unsupported one (ssh-dss) is reported as such rather than as options.
func looksLikeKeyType(tok string) bool {
	for _, p := range []string{"ssh-", "ecdsa-", "sk-", "rsa-"} {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	return false
}

// TrustEntry is one key line of a trust store.
type TrustEntry struct {
	// Principals are the line's principals (OpenSSH allows patterns; this
	// package compares them as plain strings).
	Principals []string
	// Options are the line's options, verbatim, such as `namespaces="git"`
	// or `cert-authority`.
	Options []string
	// KeyType is the key's OpenSSH type, such as "ssh-ed25519".
	KeyType string
	// Key is the key if KeyType is ssh-ed25519, and the zero key otherwise.
	Key PublicKey
	// Fingerprint is the key's OpenSSH SHA256 fingerprint, for every type.
	Fingerprint string
	// Comment is the text after the key, if any.
	Comment string
	// Line is the 1-based line number in the file the store was loaded
	// from, or 0 for an entry added since.
	Line int
	// Usable reports whether the entry verifies signatures: an ssh-ed25519
	// key, not a cert-authority, with only options this package
	// understands, whose namespaces (if any) match [TrustNamespace] and whose
	// validity interval (if any) includes the time of the call.
	Usable bool

	keyB64      string
	certAuth    bool
	unknownOpt  bool
	namespaces  string // pattern list, "" if unrestricted
	hasNS       bool
	validAfter  time.Time
	validBefore time.Time
}

// usable reports whether e can verify signatures at time now.
func (e *TrustEntry) usable(now time.Time) bool {
	if e.KeyType != KeyTypeEd25519 || e.Key.IsZero() || e.certAuth || e.unknownOpt {
		return false
	}
	if e.hasNS && !matchPatternList(TrustNamespace, e.namespaces) {
		return false
	}
	if !e.validAfter.IsZero() && now.Before(e.validAfter) {
		return false
	}
	if !e.validBefore.IsZero() && !now.Before(e.validBefore) {
		return false
	}
	return true
}

func (e *TrustEntry) clone() TrustEntry {
	c := *e
	c.Principals = slices.Clone(e.Principals)
	c.Options = slices.Clone(e.Options)
	return c
}

// format renders the entry as an allowed_signers line.
func (e *TrustEntry) format() string {
	p := strings.Join(e.Principals, ",")
	if strings.ContainsAny(p, " \t") || strings.HasPrefix(p, "#") || p == KeyTypeEd25519 || keyTypesKept[p] {
		// Quoted, the field cannot read as a comment or a key type.
		p = `"` + p + `"`
	}
	parts := []string{p}
	if len(e.Options) > 0 {
		parts = append(parts, strings.Join(e.Options, ","))
	}
	parts = append(parts, e.KeyType, e.keyB64)
	if e.Comment != "" {
		parts = append(parts, e.Comment)
	}
	return strings.Join(parts, " ")
}

type trustLine struct {
	raw   string      // the line as read; written back unless entry changed
	entry *TrustEntry // nil for blank and comment lines
	dirty bool        // entry changed: write entry.format() instead of raw
}

// TrustStore is an allowed_signers file: the keys whose signatures the user
// trusts, each bound to one or more principals. Lines the store does not
// change are written back verbatim, including comments, options and keys of
// types it cannot use.
//
// A TrustStore is not safe for concurrent use; use [UpdateTrustStore] to
// modify the file safely against other processes.
type TrustStore struct {
	path     string
	lines    []trustLine
	modified bool
	now      func() time.Time
}

// NewTrustStore returns an empty store that [TrustStore.Save] writes to
// path.
func NewTrustStore(path string) *TrustStore {
	return &TrustStore{path: path, now: time.Now}
}

// Path returns the file the store was loaded from and saves to.
func (s *TrustStore) Path() string { return s.path }

// LoadTrustStore reads the allowed_signers file at path. A missing file is
// an empty store. Errors name the file and line.
func LoadTrustStore(path string) (*TrustStore, error) {
	data, err := safefile.ReadRegular(path, MaxTrustStoreSize)
	if errors.Is(err, fs.ErrNotExist) {
		return NewTrustStore(path), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trust store %s: %w", path, err)
	}
	s, err := ParseTrustStore(data, path)
	if err != nil {
		return nil, err
	}
	s.path = path
	return s, nil
}

// ParseTrustStore parses allowed_signers data; name is used in errors
// ("name:3: unsupported key type ssh-dss"). The returned store has no path
// (Save fails) unless it came from [LoadTrustStore].
func ParseTrustStore(data []byte, name string) (*TrustStore, error) {
	if len(data) > MaxTrustStoreSize {
		return nil, fmt.Errorf("%s: %w: over %d bytes", name, safefile.ErrTooLarge, MaxTrustStoreSize)
	}
	s := &TrustStore{now: time.Now}
	text := string(data)
	text = strings.TrimSuffix(text, "\n")
	if len(data) == 0 {
		return s, nil
	}
	entries := 0
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		raw = strings.TrimSuffix(raw, "\r")
		if strings.IndexByte(raw, 0) >= 0 {
			return nil, fmt.Errorf("%s:%d: line contains a NUL byte", name, n)
		}
		body := strings.TrimSpace(raw)
		if body == "" || body[0] == '#' {
			s.lines = append(s.lines, trustLine{raw: raw})
			continue
		}
		entries++
		if entries > MaxTrustEntries {
			return nil, fmt.Errorf("%s:%d: more than %d entries", name, n, MaxTrustEntries)
		}
		e, err := parseTrustEntry(body)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		e.Line = n
		s.lines = append(s.lines, trustLine{raw: raw, entry: e})
	}
	return s, nil
}

// parseTrustEntry parses "principals [options] keytype base64 [comment]".
func parseTrustEntry(line string) (*TrustEntry, error) {
	ptok, rest, err := principalsToken(line)
	if err != nil {
		return nil, fmt.Errorf("principals: %w", err)
	}
	e := &TrustEntry{}
	for _, p := range strings.Split(ptok, ",") {
		if p != "" {
			e.Principals = append(e.Principals, p)
		}
	}
	if len(e.Principals) == 0 {
		return nil, fmt.Errorf("no principals")
	}
	tok, rest, err := nextToken(rest)
	if err != nil {
		return nil, err
	}
	if tok == "" {
		return nil, fmt.Errorf("missing key")
	}
	if tok != KeyTypeEd25519 && !keyTypesKept[tok] {
		if looksLikeKeyType(tok) {
			return nil, fmt.Errorf("%w %s", ErrUnsupportedKeyType, sanitizeForError(shorten(tok)))
		}
		if err := e.parseOptions(tok); err != nil {
			return nil, err
		}
		if tok, rest, err = nextToken(rest); err != nil {
			return nil, err
		}
		if tok == "" {
			return nil, fmt.Errorf("missing key after options")
		}
		if tok != KeyTypeEd25519 && !keyTypesKept[tok] {
			if looksLikeKeyType(tok) {
				return nil, fmt.Errorf("%w %s", ErrUnsupportedKeyType, sanitizeForError(shorten(tok)))
			}
			return nil, fmt.Errorf("invalid key type %s", untrusted.Quote(tok, maxQuoted))
		}
	}
	e.KeyType = tok
	b64, comment := cutField(rest)
	if b64 == "" {
		return nil, fmt.Errorf("missing %s key data", tok)
	}
	e.keyB64 = b64
	e.Comment = strings.TrimSpace(comment)
	if tok == KeyTypeEd25519 {
		k, err := parseEd25519Blob(b64)
		if err != nil {
			return nil, err
		}
		e.Key = k
		e.Fingerprint = k.Fingerprint()
		return e, nil
	}
	blob, err := decodeBase64Strict(b64)
	if err != nil {
		return nil, fmt.Errorf("%s key is not valid base64", tok)
	}
	pk, err := ssh.ParsePublicKey(blob)
	if err != nil {
		return nil, fmt.Errorf("invalid %s key: %w", tok, err)
	}
	if pk.Type() != tok {
		return nil, fmt.Errorf("key labelled %s contains a %s key", tok, untrusted.Quote(pk.Type(), maxQuoted))
	}
	e.Fingerprint = ssh.FingerprintSHA256(pk)
	return e, nil
}

// parseOptions parses a comma-separated option list, keeping each option
// verbatim. Options this package does not know make the entry unusable, as
// do cert-authority and unmatched namespaces, but none is fatal.
func (e *TrustEntry) parseOptions(tok string) error {
	opts, err := splitOptions(tok)
	if err != nil {
		return err
	}
	for _, o := range opts {
		e.Options = append(e.Options, o)
		name, val, hasVal := strings.Cut(o, "=")
		switch strings.ToLower(name) {
		case "cert-authority":
			e.certAuth = true
		case "namespaces":
			if !hasVal {
				return fmt.Errorf("option namespaces needs a value")
			}
			e.hasNS = true
			e.namespaces = unquote(val)
		case "valid-after", "valid-before":
			if !hasVal {
				return fmt.Errorf("option %s needs a value", name)
			}
			t, err := parseSSHTime(unquote(val))
			if err != nil {
				return fmt.Errorf("option %s: %w", name, err)
			}
			if strings.EqualFold(name, "valid-after") {
				e.validAfter = t
			} else {
				e.validBefore = t
			}
		default:
			e.unknownOpt = true
		}
	}
	return nil
}

// splitOptions splits at commas outside double quotes.
func splitOptions(s string) ([]string, error) {
	var out []string
	start, inQuote := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if inQuote && i+1 < len(s) && s[i+1] == '"' {
				i++
			}
		case '"':
			inQuote = !inQuote
		case ',':
			if !inQuote {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if inQuote {
		return nil, fmt.Errorf("unterminated quote in options")
	}
	out = append(out, s[start:])
	for _, o := range out {
		if o == "" {
			return nil, fmt.Errorf("empty option")
		}
	}
	return out, nil
}

// principalsToken returns the principals field: either a run of non-blank
// characters without quotes, or text between double quotes, which may hold
// blanks, as OpenSSH reads it.
func principalsToken(s string) (tok, rest string, err error) {
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated quote")
		}
		tok, rest = s[1:1+end], s[2+end:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return "", "", fmt.Errorf("text after closing quote")
		}
		return tok, strings.TrimLeft(rest, " \t"), nil
	}
	tok, rest = cutField(s)
	if strings.Contains(tok, `"`) {
		return "", "", fmt.Errorf("unexpected quote")
	}
	if tok == KeyTypeEd25519 || keyTypesKept[tok] {
		return "", "", fmt.Errorf("line starts with key type %s: principals are missing", tok)
	}
	return tok, rest, nil
}

// nextToken returns the next blank-delimited token of s, in which double
// quotes (with \" escapes) may protect blanks, as OpenSSH reads principals
// and options.
func nextToken(s string) (tok, rest string, err error) {
	s = strings.TrimLeft(s, " \t")
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if inQuote && i+1 < len(s) && s[i+1] == '"' {
				i++
			}
		case '"':
			inQuote = !inQuote
		case ' ', '\t':
			if !inQuote {
				return s[:i], strings.TrimLeft(s[i:], " \t"), nil
			}
		}
	}
	if inQuote {
		return "", "", fmt.Errorf("unterminated quote")
	}
	return s, "", nil
}

// unquote strips one pair of surrounding double quotes.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// shorten bounds untrusted text quoted in an error, on a character
// boundary.
func shorten(s string) string { return untrusted.Shorten(s, 64) }

// parseSSHTime parses an allowed_signers time: YYYYMMDD, YYYYMMDDHHMM or
// YYYYMMDDHHMMSS, in local time, or in UTC with a trailing Z.
func parseSSHTime(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		loc = time.UTC
		v = v[:len(v)-1]
	}
	var layout string
	switch len(v) {
	case 8:
		layout = "20060102"
	case 12:
		layout = "200601021504"
	case 14:
		layout = "20060102150405"
	default:
		return time.Time{}, fmt.Errorf("invalid time %s", untrusted.Quote(v, maxQuoted))
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return time.Time{}, fmt.Errorf("invalid time %s", untrusted.Quote(v, maxQuoted))
		}
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid time %s", untrusted.Quote(v, maxQuoted))
	}
	return t, nil
}

// matchPatternList reports whether s matches an OpenSSH pattern list: comma
// separated patterns with * and ?, where a match of a pattern negated with !
// overrides every other match.
func matchPatternList(s, list string) bool {
	matched := false
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		neg := strings.HasPrefix(p, "!")
		if neg {
			p = p[1:]
		}
		if wildcardMatch(p, s) {
			if neg {
				return false
			}
			matched = true
		}
	}
	return matched
}

// wildcardMatch matches s against a pattern with * and ? in O(len(p)*len(s))
// time at worst, without recursion.
func wildcardMatch(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// ValidatePrincipal checks a principal for [TrustStore.Add]: non-empty, at
// most [MaxPrincipalSize] bytes of UTF-8, and free of whitespace, commas,
// quotes, control characters, the pattern characters * ? ! and a leading #,
// any of which would change the meaning of an allowed_signers line. It
// must also be visible as written: no invisible, bidirectional-control or
// unprintable characters, no combining mark without a letter before it,
// and in Unicode normal form C, so that what a reader sees is the name.
func ValidatePrincipal(p string) error {
	if p == "" {
		return fmt.Errorf("principal is empty")
	}
	if len(p) > MaxPrincipalSize {
		return fmt.Errorf("principal is longer than %d bytes", MaxPrincipalSize)
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("principal is not valid UTF-8")
	}
	if p[0] == '#' {
		return fmt.Errorf("principal starts with #")
	}
	for _, r := range p {
		switch {
		case unicode.IsSpace(r):
			return fmt.Errorf("principal contains whitespace")
		case unicode.IsControl(r):
			return fmt.Errorf("principal contains control character %U", r)
		case strings.ContainsRune(`,"'*?!`, r):
			return fmt.Errorf("principal contains %q", r)
		}
	}
	return checkVisible(p)
}

// Entries returns copies of the store's key lines, in file order, including
// the ones that cannot verify signatures (see TrustEntry.Usable).
func (s *TrustStore) Entries() []TrustEntry {
	now := s.clock()
	var out []TrustEntry
	for _, l := range s.lines {
		if l.entry != nil {
			e := l.entry.clone()
			e.Usable = l.entry.usable(now)
			out = append(out, e)
		}
	}
	return out
}

// Keys returns the distinct keys of the usable entries: the candidates to
// pass to [Verify].
func (s *TrustStore) Keys() []PublicKey {
	now := s.clock()
	var out []PublicKey
	seen := make(map[PublicKey]bool)
	for _, l := range s.lines {
		if e := l.entry; e != nil && e.usable(now) && !seen[e.Key] {
			seen[e.Key] = true
			out = append(out, e.Key)
		}
	}
	return out
}

// Lookup returns the principals bound to key by usable entries.
func (s *TrustStore) Lookup(key PublicKey) (principals []string, ok bool) {
	now := s.clock()
	for _, l := range s.lines {
		e := l.entry
		if e == nil || e.Key != key || !e.usable(now) {
			continue
		}
		for _, p := range e.Principals {
			if !slices.Contains(principals, p) {
				principals = append(principals, p)
			}
		}
	}
	return principals, len(principals) > 0
}

// Binds reports whether a usable entry binds principal to the key whose
// fingerprint is fingerprint (any of its principals when principal is
// empty): whether a record verified by that key as principal is vouched
// for by the store as it is now.
func (s *TrustStore) Binds(fingerprint, principal string) bool {
	now := s.clock()
	for _, l := range s.lines {
		e := l.entry
		if e != nil && e.Fingerprint == fingerprint && fingerprint != "" && e.usable(now) && (principal == "" || slices.Contains(e.Principals, principal)) {
			return true
		}
	}
	return false
}

// Add binds principal to key. Adding a binding that already exists on a
// line without options is a no-op. Add does not check whether principal is
// bound to other keys; see [TrustStore.Pin] for that.
func (s *TrustStore) Add(principal string, key PublicKey) error {
	if err := ValidatePrincipal(principal); err != nil {
		return fmt.Errorf("trust %s: %w", key.Fingerprint(), err)
	}
	if key.IsZero() {
		return fmt.Errorf("trust: invalid key")
	}
	for _, l := range s.lines {
		e := l.entry
		if e != nil && e.Key == key && len(e.Options) == 0 && slices.Contains(e.Principals, principal) {
			return nil
		}
	}
	if s.countEntries() >= MaxTrustEntries {
		return fmt.Errorf("trust store has %d entries already", MaxTrustEntries)
	}
	e := &TrustEntry{
		Principals:  []string{principal},
		KeyType:     KeyTypeEd25519,
		Key:         key,
		Fingerprint: key.Fingerprint(),
		keyB64:      strings.TrimPrefix(key.String(), KeyTypeEd25519+" "),
	}
	s.lines = append(s.lines, trustLine{entry: e, dirty: true})
	s.modified = true
	return nil
}

// Pin binds principal to key for trust on first use: it fails with an error
// wrapping [ErrPinnedToOtherKey] if any entry already binds principal to a
// different key, with one wrapping [ErrLookAlike] if principal is new and
// looks like a principal of the store (see [TrustStore.CheckNew]), and
// otherwise behaves like [TrustStore.Add].
func (s *TrustStore) Pin(principal string, key PublicKey) error {
	if key.IsZero() {
		return fmt.Errorf("pin: invalid key")
	}
	fp := key.Fingerprint()
	for _, l := range s.lines {
		e := l.entry
		if e != nil && e.Fingerprint != fp && slices.Contains(e.Principals, principal) {
			return fmt.Errorf("pin %s to %s: %w %s", untrusted.Quote(principal, maxQuoted), fp, ErrPinnedToOtherKey, e.Fingerprint)
		}
	}
	if err := s.CheckNew(principal); err != nil {
		return fmt.Errorf("pin %s: %w", fp, err)
	}
	return s.Add(principal, key)
}

// Remove deletes trust: given a "SHA256:…" fingerprint it deletes every
// line with that key; given a principal it removes that principal from every
// line, deleting lines left without principals. A principal bound to
// several keys is refused with an error wrapping [ErrAmbiguousPrincipal]
// that lists their fingerprints. It returns the number of lines changed or
// deleted.
func (s *TrustStore) Remove(principalOrFingerprint string) (removed int, err error) {
	arg := principalOrFingerprint
	if strings.TrimSpace(arg) == "" {
		return 0, fmt.Errorf("remove trust: empty principal or fingerprint")
	}
	byFP := strings.HasPrefix(arg, "SHA256:")
	if !byFP {
		var fps []string
		for _, l := range s.lines {
			if e := l.entry; e != nil && slices.Contains(e.Principals, arg) && !slices.Contains(fps, e.Fingerprint) {
				fps = append(fps, e.Fingerprint)
			}
		}
		if len(fps) > 1 {
			return 0, fmt.Errorf("remove trust: %s %w (%s): name the one to remove by its fingerprint", untrusted.Quote(arg, maxQuoted), ErrAmbiguousPrincipal, strings.Join(fps, ", "))
		}
	}
	kept := s.lines[:0:0]
	for _, l := range s.lines {
		e := l.entry
		switch {
		case e == nil:
		case byFP && e.Fingerprint == arg:
			removed++
			continue
		case !byFP && slices.Contains(e.Principals, arg):
			removed++
			ps := slices.DeleteFunc(slices.Clone(e.Principals), func(p string) bool { return p == arg })
			if len(ps) == 0 {
				continue
			}
			ne := e.clone()
			ne.Principals = ps
			l = trustLine{entry: &ne, dirty: true}
		}
		kept = append(kept, l)
	}
	if removed > 0 {
		s.lines = kept
		s.modified = true
	}
	return removed, nil
}

// Modified reports whether the store changed since it was loaded or saved.
func (s *TrustStore) Modified() bool { return s.modified }

// Marshal renders the store in allowed_signers syntax.
func (s *TrustStore) Marshal() []byte {
	var b strings.Builder
	for _, l := range s.lines {
		if l.entry != nil && l.dirty {
			b.WriteString(l.entry.format())
		} else {
			b.WriteString(l.raw)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// Save writes the store atomically to its path with mode 0644. It does not
// lock the file; see [UpdateTrustStore].
func (s *TrustStore) Save() error {
	if s.path == "" {
		return fmt.Errorf("save trust store: no path")
	}
	if err := safefile.WriteFile(s.path, s.Marshal(), 0o644); err != nil {
		return fmt.Errorf("save trust store %s: %w", s.path, err)
	}
	s.modified = false
	return nil
}

// UpdateTrustStore loads the store at path, lets fn modify it, and saves it
// if fn changed it, all while holding the lock file path + ".lock", so that
// concurrent writers do not lose each other's updates. If fn fails nothing is
// written. The directory of path is created (mode 0700) if missing.
func UpdateTrustStore(path string, fn func(*TrustStore) error) error {
	return safefile.Update(path, "trust store", 0o644, func() ([]byte, error) {
		s, err := LoadTrustStore(path)
		if err != nil {
			return nil, err
		}
		if err := fn(s); err != nil || !s.modified {
			return nil, err
		}
		return s.Marshal(), nil
	})
}

func (s *TrustStore) countEntries() int {
	n := 0
	for _, l := range s.lines {
		if l.entry != nil {
			n++
		}
	}
	return n
}

func (s *TrustStore) clock() time.Time {
	if s.now == nil {
		return time.Now()
	}
	return s.now()
}
