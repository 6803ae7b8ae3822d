package redact

import (
	"bytes"
	"encoding/base64"
	"sync"
)

// Priorities decide the kind of overlapping finds: the most specific wins.
const (
	prioGeneric  = 10 // a value next to a secret-looking name
	prioPassword = 20
	prioURL      = 30
	prioAuth     = 40
	prioJWT      = 50
	prioProvider = 60
	prioUser     = 65
	prioKey      = 70
)

// The built-in kinds; the index of each is its kind number.
const (
	kindPrivateKey = iota
	kindAWSAccessKey
	kindAWSSecretKey
	kindGitHub
	kindGitLab
	kindSlack
	kindSlackWebhook
	kindStripe
	kindOpenAI
	kindAnthropic
	kindOpenRouter
	kindGoogleAPI
	kindGoogleOAuth
	kindNPM
	kindPyPI
	kindJWT
	kindTwilio
	kindSendGrid
	kindHuggingFace
	kindDigitalOcean
	kindShopify
	kindVault
	kindGroq
	kindXAI
	kindPerplexity
	kindAge
	kindBearer
	kindBasic
	kindAuthorization
	kindURLPassword
	kindConnString
	kindPassword
	kindToken
	kindSecret
)

var builtinKinds = []kindInfo{
	kindPrivateKey:    {name: "private-key", prio: prioKey},
	kindAWSAccessKey:  {name: "aws-access-key", prio: prioProvider},
	kindAWSSecretKey:  {name: "aws-secret-key", prio: prioProvider},
	kindGitHub:        {name: "github-token", prio: prioProvider},
	kindGitLab:        {name: "gitlab-token", prio: prioProvider},
	kindSlack:         {name: "slack-token", prio: prioProvider},
	kindSlackWebhook:  {name: "slack-webhook", prio: prioProvider},
	kindStripe:        {name: "stripe-key", prio: prioProvider},
	kindOpenAI:        {name: "openai-key", prio: prioProvider},
	kindAnthropic:     {name: "anthropic-key", prio: prioProvider},
	kindOpenRouter:    {name: "openrouter-key", prio: prioProvider},
	kindGoogleAPI:     {name: "google-api-key", prio: prioProvider},
	kindGoogleOAuth:   {name: "google-oauth", prio: prioProvider},
	kindNPM:           {name: "npm-token", prio: prioProvider},
	kindPyPI:          {name: "pypi-token", prio: prioProvider},
	kindJWT:           {name: "jwt", prio: prioJWT},
	kindTwilio:        {name: "twilio-api-key", prio: prioProvider},
	kindSendGrid:      {name: "sendgrid-key", prio: prioProvider},
	kindHuggingFace:   {name: "huggingface-token", prio: prioProvider},
	kindDigitalOcean:  {name: "digitalocean-token", prio: prioProvider},
	kindShopify:       {name: "shopify-token", prio: prioProvider},
	kindVault:         {name: "vault-token", prio: prioProvider},
	kindGroq:          {name: "groq-key", prio: prioProvider},
	kindXAI:           {name: "xai-key", prio: prioProvider},
	kindPerplexity:    {name: "perplexity-key", prio: prioProvider},
	kindAge:           {name: "age-secret-key", prio: prioProvider},
	kindBearer:        {name: "bearer-token", prio: prioAuth},
	kindBasic:         {name: "basic-auth", prio: prioAuth},
	kindAuthorization: {name: "authorization", prio: prioAuth},
	kindURLPassword:   {name: "url-password", prio: prioURL},
	kindConnString:    {name: "connection-string", prio: prioURL},
	kindPassword:      {name: "password", prio: prioPassword},
	kindToken:         {name: "token", prio: prioGeneric},
	kindSecret:        {name: "secret", prio: prioGeneric},
}

// trigger is a literal the prefilter looks for (lower case; it matches
// any case) and the rule that examines the text where it occurs.
type trigger struct {
	lit string
	fn  func(e *engine, ts, te int)
	// late rules run after the others have found their spans.
	late bool
}

// Character sets.
type charset [256]bool

func makeSet(ranges ...string) *charset {
	var s charset
	for _, r := range ranges {
		if len(r) == 3 && r[1] == '-' {
			for c := int(r[0]); c <= int(r[2]); c++ {
				s[c] = true
			}
			continue
		}
		for i := 0; i < len(r); i++ {
			s[r[i]] = true
		}
	}
	return &s
}

var (
	setAlnum     = makeSet("a-z", "A-Z", "0-9")
	setUpperNum  = makeSet("A-Z", "0-9")
	setHex       = makeSet("a-f", "A-F", "0-9")
	setLowerHex  = makeSet("a-f", "0-9")
	setB64URL    = makeSet("a-z", "A-Z", "0-9", "_-")
	setB64URLDot = makeSet("a-z", "A-Z", "0-9", "_-.")
	setAlnumUS   = makeSet("a-z", "A-Z", "0-9", "_")
	setAlnumDash = makeSet("a-z", "A-Z", "0-9", "-")
	setB64       = makeSet("a-z", "A-Z", "0-9", "+/=")
	setCred      = makeSet("a-z", "A-Z", "0-9", "-._~+/=")
	setName      = makeSet("a-z", "A-Z", "0-9", "_.-")
	setScheme    = makeSet("a-z", "A-Z", "0-9", "+.-")
)

func isAlnum(c byte) bool { return setAlnum[c] }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// oddBackslashes says whether the run of backslashes ending at b[k]
// (inclusive) has odd length, i.e. whether b[k] escapes the byte after it.
func oddBackslashes(b []byte, k int) bool {
	n := 0
	for k >= 0 && b[k] == '\\' {
		n++
		k--
	}
	return n%2 == 1
}

// boundaryBefore says whether a token may start at b[i]: at the start,
// after a byte that is not a letter or digit, or after a JSON escape
// (\n, \t, \r, \b, \f, \uXXXX), also a doubly escaped one (\\n).
func boundaryBefore(b []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := b[i-1]
	if !isAlnum(c) {
		return true
	}
	if i >= 2 && b[i-2] == '\\' && (c == 'n' || c == 't' || c == 'r' || c == 'b' || c == 'f') {
		return true
	}
	if i >= 6 && b[i-6] == '\\' && b[i-5] == 'u' && setHex[b[i-4]] && setHex[b[i-3]] && setHex[b[i-2]] && setHex[b[i-1]] {
		return true
	}
	return false
}

// run returns the end of the run of bytes of set starting at i, looking at
// most max+1 bytes; a result more than max past i means "too long". It
// remembers the last run of each set, so that the many triggers one long
// run may hold (eyJ-eyJ-eyJ…) cost one scan, not one each.
func (e *engine) run(i int, set *charset, max int) int {
	b := e.buf
	var c *runCache
	for k := range e.runs {
		if e.runs[k].set == set {
			c = &e.runs[k]
			break
		}
		if e.runs[k].set == nil {
			c = &e.runs[k]
			c.set, c.s, c.e = set, -1, -1
			break
		}
	}
	if c == nil {
		c = &e.runs[0]
		c.set, c.s, c.e = set, -1, -1
	}
	if !(c.s <= i && i <= c.e) {
		j := i
		for j < len(b) && set[b[j]] {
			j++
		}
		c.s, c.e = i, j
	}
	return min(c.e, i+max+1)
}

type runCache struct {
	set  *charset
	s, e int
}

func hasAt(b []byte, i int, lit string) bool {
	return i >= 0 && i+len(lit) <= len(b) && string(b[i:i+len(lit)]) == lit
}

// classes reports which character classes v has.
func classes(v []byte) (lower, upper, digit bool) {
	for _, c := range v {
		switch {
		case isLower(c):
			lower = true
		case isUpper(c):
			upper = true
		case isDigit(c):
			digit = true
		}
	}
	return
}

func mixed(v []byte) bool {
	l, u, d := classes(v)
	return l && u && d
}

func letterDigit(v []byte) bool {
	l, u, d := classes(v)
	return (l || u) && d
}

func upperLower(v []byte) bool {
	l, u, _ := classes(v)
	return l && u
}

// A prefix rule: an exact-case literal, then a body of bytes of one set.
type prefixRule struct {
	lit      string
	kind     int
	body     *charset
	min, max int
	trim     string // bytes trimmed from the end of the body
	check    func(body []byte) bool
	// keepLit keeps the literal and replaces only the body.
	keepLit bool
}

func (p *prefixRule) match(e *engine, ts, te int) {
	b := e.buf
	if !hasAt(b, ts, p.lit) || !boundaryBefore(b, ts) {
		return
	}
	i := ts + len(p.lit)
	j := e.run(i, p.body, p.max)
	if j-i > p.max {
		return
	}
	for j > i && p.trim != "" && bytes.IndexByte([]byte(p.trim), b[j-1]) >= 0 {
		j--
	}
	if j-i < p.min {
		return
	}
	if j < len(b) && isAlnum(b[j]) {
		return
	}
	if p.check != nil && !p.check(b[i:j]) {
		return
	}
	if p.keepLit {
		e.add(i, j, p.kind)
		return
	}
	e.add(ts, j, p.kind)
}

func prefix(lit string, kind int, body *charset, min, max int, check func([]byte) bool) trigger {
	p := &prefixRule{lit: lit, kind: kind, body: body, min: min, max: max, check: check}
	return trigger{lit: lower(lit), fn: p.match}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = fold(c)
	}
	return string(b)
}

// triggers are the built-in rules, by the literal that starts each,
// made on first use (by New).
var triggers = sync.OnceValue(func() []trigger {
	return []trigger{
		// AWS access key ids: a four-letter prefix and 16 upper-case
		// letters or digits.
		prefix("AKIA", kindAWSAccessKey, setUpperNum, 16, 16, nil),
		prefix("ASIA", kindAWSAccessKey, setUpperNum, 16, 16, nil),
		prefix("ABIA", kindAWSAccessKey, setUpperNum, 16, 16, nil),
		prefix("ACCA", kindAWSAccessKey, setUpperNum, 16, 16, nil),
		// GitHub.
		prefix("ghp_", kindGitHub, setAlnum, 30, 255, nil),
		prefix("gho_", kindGitHub, setAlnum, 30, 255, nil),
		prefix("ghu_", kindGitHub, setAlnum, 30, 255, nil),
		prefix("ghs_", kindGitHub, setAlnum, 30, 255, nil),
		prefix("ghr_", kindGitHub, setAlnum, 30, 255, nil),
		prefix("github_pat_", kindGitHub, setAlnumUS, 40, 255, nil),
		// GitLab.
		prefixTrim("glpat-", kindGitLab, setB64URLDot, 20, 255, nil, ".-"),
		prefixTrim("gldt-", kindGitLab, setB64URLDot, 20, 255, nil, ".-"),
		prefixTrim("glrt-", kindGitLab, setB64URLDot, 20, 255, nil, ".-"),
		prefixTrim("glptt-", kindGitLab, setB64URLDot, 20, 255, nil, ".-"),
		// Slack.
		{lit: "xox", fn: slackToken},
		prefixTrim("xapp-", kindSlack, setAlnumDash, 20, 255, letterDigit, "-"),
		{lit: "hooks.slack.com", fn: slackWebhook},
		// Stripe secret and restricted keys, webhook secrets.
		prefix("sk_live_", kindStripe, setAlnum, 16, 255, nil),
		prefix("sk_test_", kindStripe, setAlnum, 16, 255, nil),
		prefix("rk_live_", kindStripe, setAlnum, 16, 255, nil),
		prefix("rk_test_", kindStripe, setAlnum, 16, 255, nil),
		prefix("whsec_", kindStripe, setB64, 24, 255, nil),
		// OpenAI, Anthropic, OpenRouter and other sk- keys.
		{lit: "sk-", fn: skKey},
		// Google.
		prefix("AIza", kindGoogleAPI, setB64URL, 35, 35, nil),
		prefix("GOCSPX-", kindGoogleOAuth, setB64URL, 20, 255, nil),
		prefix("ya29.", kindGoogleOAuth, setB64URL, 20, 4096, nil),
		// Package registries.
		prefix("npm_", kindNPM, setAlnum, 36, 36, letterDigit),
		prefix("pypi-", kindPyPI, setB64URL, 50, 4096, mixed),
		// JWTs.
		{lit: "eyj", fn: jwt},
		// Twilio API key sids: SK and 32 hex digits.
		prefix("SK", kindTwilio, setHex, 32, 32, letterDigit),
		// SendGrid: SG.<22>.<43>.
		{lit: "sg.", fn: sendGrid},
		// Hugging Face.
		prefix("hf_", kindHuggingFace, setAlnum, 30, 64, upperLower),
		// DigitalOcean personal, OAuth and refresh tokens.
		prefix("dop_v1_", kindDigitalOcean, setLowerHex, 64, 64, nil),
		prefix("doo_v1_", kindDigitalOcean, setLowerHex, 64, 64, nil),
		prefix("dor_v1_", kindDigitalOcean, setLowerHex, 64, 64, nil),
		// Shopify.
		prefix("shpat_", kindShopify, setHex, 32, 32, nil),
		prefix("shpca_", kindShopify, setHex, 32, 32, nil),
		prefix("shppa_", kindShopify, setHex, 32, 32, nil),
		prefix("shpss_", kindShopify, setHex, 32, 32, nil),
		// HashiCorp Vault service and batch tokens.
		prefix("hvs.", kindVault, setB64URL, 24, 1024, letterDigit),
		prefix("hvb.", kindVault, setB64URL, 24, 1024, letterDigit),
		// AI providers an agent's user is likely to have.
		prefix("gsk_", kindGroq, setAlnum, 40, 255, letterDigit),
		prefix("xai-", kindXAI, setAlnum, 40, 255, letterDigit),
		prefix("pplx-", kindPerplexity, setAlnum, 40, 255, letterDigit),
		// age identities (this tool's own encryption keys).
		prefix("AGE-SECRET-KEY-1", kindAge, setUpperNum, 50, 100, nil),
		// Private-key blocks.
		{lit: "-----begin", fn: privateKey},
		// Passwords in URLs, also with JSON-escaped slashes.
		{lit: "://", fn: urlPassword},
		{lit: `:\/\/`, fn: urlPassword},
		{lit: `:\\/\\/`, fn: urlPassword},
		// Standalone Bearer and Basic credentials.
		{lit: "bearer", fn: bearer},
		{lit: "basic", fn: basic},
		// Keywords of secret-looking names.
		{lit: "pass", fn: assign, late: true},
		{lit: "pwd", fn: assign, late: true},
		{lit: "secret", fn: assign, late: true},
		{lit: "token", fn: assign, late: true},
		{lit: "key", fn: assign, late: true},
		{lit: "auth", fn: assign, late: true},
		{lit: "cred", fn: assign, late: true},
	}
})

// prefixTrim is prefix with bytes trimmed from the end of the body (a
// sentence's full stop after a token that may hold dots).
func prefixTrim(lit string, kind int, body *charset, min, max int, check func([]byte) bool, trim string) trigger {
	p := &prefixRule{lit: lit, kind: kind, body: body, min: min, max: max, check: check, trim: trim}
	return trigger{lit: lower(lit), fn: p.match}
}

func slackToken(e *engine, ts, te int) {
	b := e.buf
	if !hasAt(b, ts, "xox") || te+1 >= len(b) || !boundaryBefore(b, ts) {
		return
	}
	switch b[te] {
	case 'a', 'b', 'p', 'o', 's', 'r', 'e':
	default:
		return
	}
	if b[te+1] != '-' {
		return
	}
	i := te + 2
	j := e.run(i, setAlnumDash, 255)
	if j-i > 255 {
		return
	}
	for j > i && b[j-1] == '-' {
		j--
	}
	if j-i < 10 || !letterDigit(b[i:j]) {
		return
	}
	e.add(ts, j, kindSlack)
}

// slackWebhook keeps https://hooks.slack.com/services/ and replaces the
// rest of the path.
func slackWebhook(e *engine, ts, te int) {
	b := e.buf
	i, ok := slash(b, te)
	if !ok {
		return
	}
	seg := 0
	for _, s := range []string{"services", "workflows", "triggers"} {
		if hasAt(b, i, s) {
			seg = len(s)
		}
	}
	if seg == 0 {
		return
	}
	if i, ok = slash(b, i+seg); !ok {
		return
	}
	j := i
	for j < len(b) && j-i <= 512 {
		if setAlnumUS[b[j]] || b[j] == '-' {
			j++
		} else if k, ok := slash(b, j); ok {
			j = k
		} else {
			break
		}
	}
	if j-i < 10 {
		return
	}
	e.add(i, j, kindSlackWebhook)
}

// slash reports whether a slash, maybe escaped (\/ or \\/), is at i
// and returns the index after it.
func slash(b []byte, i int) (int, bool) {
	k := i
	for k < len(b) && k-i < 4 && b[k] == '\\' {
		k++
	}
	if k < len(b) && b[k] == '/' {
		return k + 1, true
	}
	return i, false
}

// skKey: sk-ant-… (Anthropic), sk-or-… (OpenRouter), else an OpenAI-style
// key (sk-…, sk-proj-…, sk-svcacct-…): at least 20 bytes that mix letters
// and digits, so that prose like "sk-learn" or "risk-based" stays.
func skKey(e *engine, ts, te int) {
	b := e.buf
	if !hasAt(b, ts, "sk-") || !boundaryBefore(b, ts) {
		return
	}
	kind := kindOpenAI
	i := te
	switch {
	case hasAt(b, i, "ant-"):
		kind = kindAnthropic
		i += 4
	case hasAt(b, i, "or-"):
		kind = kindOpenRouter
		i += 3
	}
	j := e.run(i, setB64URL, 1024)
	if j-i > 1024 {
		return
	}
	for j > i && b[j-1] == '-' {
		j--
	}
	v := b[i:j]
	if len(v) < 20 {
		return
	}
	if kind == kindOpenAI {
		if !(mixed(v) || (len(v) >= 32 && letterDigit(v))) {
			return
		}
	} else if !letterDigit(v) {
		return
	}
	e.add(ts, j, kind)
}

// jwt: three base64url parts separated by dots, the first starting eyJ
// (a JSON object), and any further parts (JWE).
func jwt(e *engine, ts, te int) {
	b := e.buf
	if !hasAt(b, ts, "eyJ") || !boundaryBefore(b, ts) {
		return
	}
	j := e.run(ts, setB64URL, maxValue)
	if j-ts < 10 || j >= len(b) || b[j] != '.' {
		return
	}
	k := e.run(j+1, setB64URL, maxValue)
	if k-(j+1) < 10 || k >= len(b) || b[k] != '.' {
		return
	}
	end := e.run(k+1, setB64URL, maxValue)
	for end < len(b) && b[end] == '.' && end+1 < len(b) && setB64URL[b[end+1]] && end-ts < maxValue {
		end = e.run(end+1, setB64URL, maxValue)
	}
	if end-ts > maxValue {
		return
	}
	e.add(ts, end, kindJWT)
}

func sendGrid(e *engine, ts, te int) {
	b := e.buf
	if !hasAt(b, ts, "SG.") || !boundaryBefore(b, ts) {
		return
	}
	j := e.run(te, setB64URL, 128)
	if j-te < 16 || j-te > 128 || j >= len(b) || b[j] != '.' {
		return
	}
	k := e.run(j+1, setB64URL, 128)
	if k-(j+1) < 16 || k-(j+1) > 128 {
		return
	}
	e.add(ts, k, kindSendGrid)
}

// privateKey removes a block from its BEGIN line through its END line. The
// body is eaten as long as it looks like one: base64, armor headers
// (Proc-Type: 4,ENCRYPTED), blanks, newlines and the JSON escapes \n \r
// \t \/. A block without END (cut output) is removed as far as its body
// goes, so a truncated key leaves nothing behind.
func privateKey(e *engine, ts, te int) {
	b := e.buf
	if ts < e.keyEnd || !hasAt(b, ts, "-----BEGIN ") {
		return // inside the block before
	}
	i := ts + len("-----BEGIN ")
	j := i
	for j < len(b) && j-i < 64 && (isUpper(b[j]) || isDigit(b[j]) || b[j] == ' ') {
		j++
	}
	if !bytes.Contains(b[i:j], []byte("PRIVATE KEY")) || !hasAt(b, j, "-----") {
		return
	}
	end, more, left := e.keyBody(j+5, keyBudget)
	e.keyEnd = end
	e.add(ts, end, kindPrivateKey)
	e.noteKey(end, more, left)
}

// keyBody eats a private key's body from i with the given budget. It
// returns where the block ends, whether it reached the end of a window that
// is not the last (so the block goes on), and the budget left.
func (e *engine) keyBody(i, budget int) (end int, more bool, left int) {
	b := e.buf
	start := i
	for i < len(b) {
		if i-start >= budget {
			return i, false, 0
		}
		c := b[i]
		switch {
		case c == '-' && hasAt(b, i, "-----END"):
			j := i + len("-----END")
			lim := min(len(b), j+64)
			for j < lim && (isUpper(b[j]) || isDigit(b[j]) || b[j] == ' ') {
				j++
			}
			if hasAt(b, j, "-----") {
				j += 5
			} else if j == len(b) && !e.final {
				return j, true, budget - (j - start)
			}
			return j, false, 0
		case setB64[c] || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':' || c == ',' || c == '-' || c == '.':
			i++
		case c == '\\':
			k := i
			for k < len(b) && b[k] == '\\' {
				k++
			}
			if k == len(b) {
				if e.final {
					return i, false, 0
				}
				return k, true, budget - (k - start)
			}
			switch b[k] {
			case 'n', 'r', 't', '/':
				i = k + 1
			default:
				return i, false, 0
			}
		default:
			return i, false, 0
		}
	}
	if e.final {
		return i, false, 0
	}
	return i, true, budget - (i - start)
}

// urlPassword replaces the password of scheme://user:password@host.
func urlPassword(e *engine, ts, te int) {
	b := e.buf
	ss := ts
	for ss > 0 && ts-ss < 32 && setScheme[b[ss-1]] {
		ss--
	}
	if ss == ts || !(isLower(b[ss]) || isUpper(b[ss])) {
		return
	}
	at := -1
	lim := min(len(b), te+512)
	for i := te; i < lim; i++ {
		c := b[i]
		if c == '@' {
			at = i
			continue
		}
		if c == '/' || c == '?' || c == '#' || c <= ' ' || c == '"' || c == '\'' || c == '\\' || c == '<' || c == '>' || c == '`' || c == 0x7f {
			break
		}
	}
	if at < 0 {
		return
	}
	// Already redacted (https://[REDACTED:github-token]@…).
	if bytes.Contains(b[te:at], []byte("[REDACTED")) {
		return
	}
	colon := bytes.IndexByte(b[te:at], ':')
	if colon < 0 {
		return
	}
	colon += te
	if colon+1 == at {
		return
	}
	pw := b[colon+1 : at]
	if placeholder(pw) {
		return
	}
	kind := kindURLPassword
	if dbScheme(b[ss:ts]) {
		kind = kindConnString
	}
	e.add(colon+1, at, kind)
}

func dbScheme(s []byte) bool {
	l := lower(string(s))
	for _, p := range []string{"postgres", "mysql", "mariadb", "mongodb", "redis", "rediss", "amqp", "amqps", "mssql", "sqlserver", "oracle", "clickhouse", "cockroachdb", "jdbc", "couchdb", "neo4j", "cassandra", "memcached", "nats", "kafka", "ldap", "ldaps", "smtp", "smtps", "ftp", "sftp", "mqtt", "db2", "snowflake"} {
		if l == p || (len(l) > len(p) && l[:len(p)] == p) {
			return true
		}
	}
	return false
}

// placeholder says whether a value is not a concrete secret: a variable
// reference, a template, a placeholder in brackets, a mask, or a marker.
func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	if bytes.Contains(v, []byte("[REDACTED")) {
		return true
	}
	switch v[0] {
	case '$', '%':
		return true
	case '<':
		return v[len(v)-1] == '>' || bytes.IndexByte(v, '>') > 0
	case '{':
		return true
	}
	if bytes.HasPrefix(v, []byte("{{")) {
		return true
	}
	same := true
	for _, c := range v[1:] {
		if c != v[0] {
			same = false
			break
		}
	}
	if same && len(v) >= 3 {
		return true
	}
	return false
}

// bearer: "Bearer <token>" anywhere (also outside an Authorization
// header). The token must mix letters and digits, so that prose ("the
// bearer token is…") stays.
func bearer(e *engine, ts, te int) {
	b := e.buf
	if !boundaryBefore(b, ts) {
		return
	}
	i := te
	k := 0
	for i < len(b) && k < 3 && b[i] == ' ' {
		i++
		k++
	}
	if k == 0 {
		return
	}
	j := credRun(b, i)
	v := b[i:j]
	if len(v) < 8 || !letterDigit(v) || j-i > maxValue {
		if !(len(v) >= 32 && upperLower(v) && entropy(v) >= 3.5) {
			return
		}
	}
	e.add(i, j, kindBearer)
}

// credRun returns the end of a credential (token68 and JSON-escaped
// slashes) starting at i.
func credRun(b []byte, i int) int {
	j := i
	lim := min(len(b), i+maxValue+1)
	for j < lim {
		if setCred[b[j]] {
			j++
		} else if hasAt(b, j, `\/`) {
			j += 2
		} else {
			break
		}
	}
	return j
}

// basic: "Basic <base64 of user:password>" anywhere.
func basic(e *engine, ts, te int) {
	b := e.buf
	if !boundaryBefore(b, ts) {
		return
	}
	i := te
	k := 0
	for i < len(b) && k < 3 && b[i] == ' ' {
		i++
		k++
	}
	if k == 0 {
		return
	}
	j := e.run(i, setB64, 1024)
	if j-i < 8 || j-i > 1024 || !isBasicCred(b[i:j]) {
		return
	}
	e.add(i, j, kindBasic)
}

// isBasicCred says whether v is base64 of user:password.
func isBasicCred(v []byte) bool {
	var dec [768]byte
	n, err := base64.StdEncoding.Decode(dec[:], v)
	if err != nil {
		n, err = base64.RawStdEncoding.Decode(dec[:], bytes.TrimRight(v, "="))
		if err != nil {
			return false
		}
	}
	d := dec[:n]
	c := bytes.IndexByte(d, ':')
	if c < 0 || c == n-1 {
		return false
	}
	for _, x := range d {
		if x < ' ' || x == 0x7f {
			return false
		}
	}
	return true
}
