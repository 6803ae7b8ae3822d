package redact

import (
	"bytes"
	"math"
	"strings"
	"sync"
)

// The assignment rule: a value given to a secret-looking name.
//
//	DB_PASSWORD=hunter2           export GITHUB_TOKEN="…"
//	password: hunter2             "client_secret": "…"
//	{\"api_key\": \"…\"}          --token …   --password=…
//	Server=db;User Id=sa;Password=…;
//	Authorization: Bearer …
//
// The name is cut into words (at _ . - and case changes). Its last word,
// after dropping words such as "value" or "confirmation", decides:
// password words (password, passwd, passphrase, pass, pwd) give kind
// password; secret, credential(s) give secret; words ending in token give
// token; key with a qualifier (api_key, secretKey, x-api-key, ACCOUNT_KEY)
// gives secret, AWS's secret access key aws-secret-key; a bare key or auth
// is weak: its value must look random (16+ bytes, mixed classes, entropy
// over 3 bits a byte). Authorization takes a scheme and a credential.

const maxName = 64

// maxUnquoted bounds an unquoted value; a longer run is not taken for one.
const maxUnquoted = 4096

type family int

const (
	famNone family = iota
	famPassword
	famSecret
	famToken
	famWeak
	famAuthHeader
)

func assign(e *engine, ts, te int) {
	b := e.buf
	// A name starts at most maxName bytes back, and not before the end of
	// a secret found in phase one (there the marker's ']' will be).
	fl, inside := e.floor(ts)
	if inside || ts < e.lastEnd {
		return // within a secret already found
	}
	lo := max(0, ts-maxName, fl)
	ns := ts
	for ns > lo && setName[b[ns-1]] {
		ns--
	}
	if ns == lo && lo > 0 && lo != fl && setName[b[lo-1]] {
		return
	}
	// prev is the byte before the name as a second pass would see it.
	prev := func(i int) byte {
		if i <= 0 || i == fl {
			return ']'
		}
		return b[i-1]
	}
	hi := min(len(b), te+maxName)
	ne := te
	for ne < hi && setName[b[ne]] {
		ne++
	}
	if ne == hi && hi < len(b) && setName[b[hi]] {
		return
	}
	if ne == e.lastName {
		return // another keyword of a name already examined
	}
	e.lastName = ne
	// A JSON escape just before the name (\nAPI_KEY=…) is not part of it.
	if prev(ns) == '\\' {
		switch b[ns] {
		case 'n', 't', 'r', 'b', 'f':
			ns++
		case 'u':
			if ns+5 <= ne && setHex[b[ns+1]] && setHex[b[ns+2]] && setHex[b[ns+3]] && setHex[b[ns+4]] {
				ns += 5
			}
		}
	}
	dashes := 0
	for ns < ne && b[ns] == '-' {
		ns++
		dashes++
	}
	if ns >= ne || b[ne-1] == '.' || b[ne-1] == '-' {
		return
	}
	name := b[ns:ne]

	// The operator, after the name's closing quote if it has one.
	p := ne
	quotes := 0
	for p < len(b) && quotes < 4 && (b[p] == '"' || b[p] == '\'' || b[p] == '\\' || b[p] == '`') {
		p++
		quotes++
	}
	jsonKey := quotes > 0 && b[p-1] == '"'
	sp := skipBlanks(b, p)
	spaceBefore := sp > p
	p = sp
	if p >= len(b) {
		return
	}
	var op byte
	switch b[p] {
	case '=':
		if p+1 < len(b) && b[p+1] == '=' {
			return // comparison
		}
		op = '='
		p++
		if p < len(b) && b[p] == '>' {
			p++ // 'password' => 'x'
		}
	case ':':
		if p+1 < len(b) && b[p+1] == ':' {
			return // Token::new
		}
		op = ':'
		p++
		if p < len(b) && b[p] == '=' {
			op = '='
			p++
		}
	default:
		if !spaceBefore || quotes > 0 || (dashes == 0 && !netrc(b, ns, name)) {
			return
		}
		op = ' ' // --token value, or .netrc's password value
	}
	sp = skipBlanks(b, p)
	p = sp
	fam, kind := classify(name)
	if fam == famNone || (fam == famAuthHeader && op == ' ') {
		return
	}
	if fam == famWeak {
		// "Public key: age1…": a word before a bare key can say it is
		// no secret.
		if w := wordBefore(b, ns, fl); w != "" && plainKeyWords()[w] {
			return
		}
	}

	if fam == famAuthHeader {
		authHeader(e, p)
		return
	}

	// In a URL's query a value ends at '&'; elsewhere '&' may be part of
	// a password.
	query := prev(ns) == '?' || prev(ns) == '&' || (ns-6 >= fl && ns >= 6 && hasAt(b, ns-6, `\u0026`))
	// A bare double quote opens a value only outside a string; inside
	// one it ends the string the name is in ({"PASS=":""}).
	inStr := e.inString(p)
	if inStr && p < len(b) && b[p] == '"' {
		return
	}
	vs, ve, quoted, next := e.value(p, query, inStr)
	if vs < 0 {
		return
	}
	if !quoted && !inStr && jsonKey && op == ':' {
		return // a JSON number or literal: a marker there would break the JSON
	}
	if !quoted && op == ':' && !lastOnLine(b, ve) {
		return // prose: "wrong passphrase: the passphrase is wrong"
	}
	v := b[vs:ve]
	if !valueOK(fam, v, name, quoted, op, spaceBefore, next) {
		return
	}
	ado := fam == famPassword && op == '=' && !quoted && (next == ';' || (ns > 0 && prev(ns) != ']' && precededBySemicolon(b, ns)))
	if ado {
		kind = kindConnString
	} else if len(name) == 3 && bytes.EqualFold(name, []byte("pwd")) {
		return // PWD alone is the shell's working directory; Pwd=…; counts
	}
	e.add(vs, ve, kind)
	e.lastEnd = max(e.lastEnd, ve)
}

// netrc says whether name is the password keyword of a .netrc entry:
// machine HOST login USER password VALUE.
func netrc(b []byte, ns int, name []byte) bool {
	if string(name) != "password" {
		return false
	}
	ls := max(0, ns-256)
	before := b[ls:ns]
	if i := bytes.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return bytes.Contains(before, []byte("machine ")) && bytes.Contains(before, []byte(" login "))
}

// wordBefore returns the lower-cased word of letters that ends one blank
// before ns, not reaching back to floor.
func wordBefore(b []byte, ns, floor int) string {
	i := ns - 1
	if i < 1 || i <= floor || b[i] != ' ' {
		return ""
	}
	j := i
	for j > 0 && j > floor+1 && i-j < 16 && (isLower(b[j-1]) || isUpper(b[j-1])) {
		j--
	}
	if j == i {
		return ""
	}
	return lower(string(b[j:i]))
}

// lastOnLine says whether nothing but blanks and a line's end (a newline,
// an escaped one, a comment, the end of a string, a separator of a flow
// mapping) follows i: YAML's "password: x", not prose's "password: the …".
func lastOnLine(b []byte, i int) bool {
	i = skipBlanks(b, i)
	if i >= len(b) {
		return true
	}
	switch b[i] {
	case '\n', '\r', '#', '"', '\'', ',', '}', ']', ';':
		return true
	case '\\':
		return i+1 < len(b) && (b[i+1] == 'n' || b[i+1] == 'r' || b[i+1] == '"')
	}
	return false
}

func skipBlanks(b []byte, p int) int {
	for k := 0; p < len(b) && k < 8 && isSpace(b[p]); k++ {
		p++
	}
	return p
}

func precededBySemicolon(b []byte, ns int) bool {
	i := ns - 1
	for i >= 0 && ns-i < 8 && isSpace(b[i]) {
		i--
	}
	return i >= 0 && b[i] == ';'
}

// value finds the value that starts at p: quoted ("…", '…', `…`, or
// JSON-escaped \"…\"), or a run up to a blank, quote, separator or escape.
// It returns its bounds, whether it was quoted and the byte after it
// (0 at the end); vs < 0 when there is none.
func (e *engine) value(p int, query, inStr bool) (vs, ve int, quoted bool, next byte) {
	b := e.buf
	if p >= len(b) {
		return -1, -1, false, 0
	}
	k := p
	for k < len(b) && k-p < 8 && b[k] == '\\' {
		k++
	}
	if k < len(b) && (b[k] == '"' || b[k] == '\'' || b[k] == '`') {
		q := b[k]
		esc := k - p // backslashes before the opening quote
		if esc%2 == 0 && (esc > 0 || (inStr && q == '"')) {
			// An unescaped quote after literal backslashes, or one that
			// ends the string the name is in: no value here.
			return -1, -1, false, 0
		}
		vs = k + 1
		lim := min(len(b), vs+maxValue)
		for i := vs; i < lim; i++ {
			c := b[i]
			if c == '\n' {
				break
			}
			if c == '"' && q != '"' && inStr && !oddBackslashes(b[:i], i-1) {
				break // the enclosing JSON string ends before the closing quote
			}
			if c != q {
				continue
			}
			r := 0
			for i-r-1 >= vs && b[i-r-1] == '\\' {
				r++
			}
			if esc == 0 {
				if r%2 == 0 {
					return vs, i, true, q
				}
				continue
			}
			if r == esc {
				return vs, i - r, true, q
			}
			if r%2 == 0 {
				break // the enclosing string ends here
			}
		}
		// No closing quote: take the value as unquoted.
		p = vs
	} else if k > p {
		return -1, -1, false, 0 // an escape such as \n right after the operator
	}
	i := e.unquotedEnd(p, query)
	if i-p > maxUnquoted || i == p {
		return -1, -1, false, 0
	}
	if i < len(b) {
		next = b[i]
	}
	return p, i, false, next
}

// unquotedEnd returns where an unquoted value starting at p ends: at a
// blank, a quote, a separator or an escape. The end is the same from every
// start inside one run, so it is remembered.
func (e *engine) unquotedEnd(p int, query bool) int {
	if e.val.ok && e.val.query == query && e.val.s <= p && p <= e.val.e {
		return e.val.e
	}
	b := e.buf
	i := p
	for i < len(b) {
		c := b[i]
		if c <= ' ' || c == '"' || c == '\'' || c == '`' || c == ',' || c == ';' || (c == '&' && query) || c == '|' ||
			c == '<' || c == '>' || c == '(' || c == ')' || c == '{' || c == '}' || c == '[' || c == ']' || c == 0x7f {
			break
		}
		if c == '\\' && i+1 < len(b) {
			switch b[i+1] {
			case 'n', 'r', 't', 'b', 'f', '"', '\'', 'u':
				goto done // an escape ends the value
			}
		}
		i++
	}
done:
	e.val.ok, e.val.query, e.val.s, e.val.e = true, query, p, i
	return i
}

var trivial = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"true": true, "false": true, "null": true, "none": true, "nil": true, "undefined": true,
		"yes": true, "no": true, "on": true, "off": true, "empty": true, "required": true, "optional": true,
		"string": true, "str": true, "bool": true, "boolean": true, "int": true, "integer": true, "number": true,
		"bytes": true, "any": true, "object": true, "text": true, "secretstr": true, "secretstring": true,
		"redacted": true, "hidden": true, "masked": true, "omitted": true, "removed": true, "unset": true,
		"default": true, "env": true, "environment": true, "inherit": true, "prompt": true, "stdin": true,
		"see": true, "todo": true, "tbd": true, "n/a": true,
	}
})

func isTrivial(v []byte) bool {
	if len(v) > 16 {
		return false
	}
	return trivial()[lower(string(v))]
}

// identLike: an identifier or a dotted path of them (code, not a value).
func identLike(v []byte) (ok, dotted bool) {
	start := true
	for _, c := range v {
		switch {
		case c == '.':
			if start {
				return false, false
			}
			start = true
			dotted = true
		case isLower(c) || isUpper(c) || c == '_':
			start = false
		case isDigit(c):
			if start {
				return false, false
			}
		default:
			return false, false
		}
	}
	if start && dotted && len(v) > 1 && v[len(v)-2] != '.' {
		return true, true // x.y. before a type switch's (type)
	}
	return !start, dotted
}

// version: a version or version range of a package manifest (^1.2.3).
func version(v []byte) bool {
	i := 0
	for i < len(v) && (v[i] == '^' || v[i] == '~' || v[i] == '>' || v[i] == '<' || v[i] == '=' || v[i] == 'v') {
		i++
	}
	if i == len(v) || !isDigit(v[i]) {
		return false
	}
	dots := 0
	for ; i < len(v); i++ {
		c := v[i]
		if c == '.' {
			dots++
		} else if !isDigit(c) && c != 'x' && c != '*' {
			break
		}
	}
	return dots >= 1 && (i == len(v) || v[i] == '-' || v[i] == '+')
}

func valueOK(fam family, v, name []byte, quoted bool, op byte, spaceBefore bool, next byte) bool {
	if len(v) == 0 || placeholder(v) || isTrivial(v) || version(v) {
		return false
	}
	if bytes.EqualFold(v, name) {
		return false // token: token
	}
	if bytes.Contains(v, []byte("://")) {
		return false // a URL (its password has its own rule)
	}
	if len(v) <= 9 && v[0] == '#' && allHex(v[1:]) {
		return false // a colour: Token.String: "#bc983e"
	}
	blank := bytes.IndexByte(v, ' ') >= 0 || bytes.IndexByte(v, '\t') >= 0
	digits := true
	for _, c := range v {
		if !isDigit(c) {
			digits = false
			break
		}
	}
	if digits && len(v) < 6 {
		return false // ports, counts
	}
	if !quoted && len(v) > 2 && len(v) <= 18 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && allHex(v[2:]) {
		return false // a constant: FILTER_PASS = 0x2
	}
	if !quoted {
		if (v[0] == '&' || v[0] == '*' || v[0] == '!') && len(v) > 1 {
			if ok, _ := identLike(v[1:]); ok {
				return false // &config{…}, *ptr, !flag: code
			}
		}
		ident, dotted := identLike(v)
		if ident {
			if next == '(' || next == '[' || next == '<' || next == '{' {
				return false // a call or an index: code
			}
			if dotted {
				return false // a reference: process.env.TOKEN, var.db_password
			}
			if op == '=' && spaceBefore {
				return false // code: password = password_input
			}
			if op == ':' && (next == ',' || next == '}' || next == ')') {
				return false // a keyed literal: Password: pass,
			}
		}
		if op == ' ' && !letterDigit(v) && !bytes.ContainsAny(v, "!#$%*+/=?@^_~") {
			return false // --password will be asked for
		}
	}
	switch fam {
	case famPassword:
		if blank && bytes.Count(v, []byte(" ")) >= 5 {
			return false // prose, not a passphrase
		}
		return true
	case famSecret, famToken:
		if blank || len(v) < 4 {
			return false
		}
		// A machine-made secret mixes classes or is long; a lone word is
		// an option's value: credentials: "include", "token": "refresh".
		if l, u, d := classes(v); !(d && (l || u)) && !(l && u) && len(v) < 16 && !bytes.ContainsAny(v, "!#$%&*+/=?@^~") {
			return false
		}
		if !quoted {
			// Unquoted, a token must look like one: "token: something"
			// in prose stays.
			ident, _ := identLike(v)
			if ident && !letterDigit(v) && !(upperLower(v) && len(v) >= 16) {
				return false
			}
		}
		return true
	case famWeak:
		return looksRandom(v)
	}
	return false
}

// looksRandom: 16+ bytes without blanks, at least two of lower, upper and
// digits, not a path, URL, UUID or dotted name, and Shannon entropy of at
// least 3 bits a byte.
func looksRandom(v []byte) bool {
	if len(v) < 16 || bytes.ContainsAny(v, " \t:") {
		return false
	}
	if v[0] == '/' || v[0] == '.' || v[0] == '~' || bytes.Contains(v, []byte("://")) {
		return false
	}
	if ok, _ := identLike(v); ok && bytes.IndexByte(v, '_') >= 0 {
		return false // snake_case_name
	}
	if isUUID(v) {
		return false
	}
	l, u, d := classes(v)
	n := 0
	for _, x := range []bool{l, u, d} {
		if x {
			n++
		}
	}
	if n < 2 {
		return false
	}
	return entropy(v) >= 3.0
}

func isUUID(v []byte) bool {
	if len(v) != 36 {
		return false
	}
	for i, c := range v {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !setHex[c] {
			return false
		}
	}
	return true
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var n [256]int
	for _, c := range v {
		n[c]++
	}
	h := 0.0
	l := float64(len(v))
	for _, k := range n {
		if k > 0 {
			p := float64(k) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}

// Words of names.
var (
	suffixWords = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"value": true, "val": true, "plain": true, "plaintext": true, "raw": true, "b64": true,
			"base64": true, "encoded": true, "enc": true, "str": true, "string": true, "confirm": true,
			"confirmation": true, "again": true, "repeat": true, "new": true, "old": true, "current": true,
			"hash": true, "data": true, "bytes": true, "text": true, "override": true, "secret": true,
			"base": true,
		}
	})
	// Qualifiers that make "key" a secret.
	secretKeyWords = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"api": true, "access": true, "secret": true, "private": true, "signing": true, "sign": true,
			"master": true, "auth": true, "encryption": true, "encrypt": true, "decryption": true,
			"client": true, "account": true, "license": true, "licence": true, "app": true,
			"application": true, "service": true, "admin": true, "subscription": true, "webhook": true,
			"session": true, "shared": true, "storage": true, "deploy": true, "hmac": true, "crypto": true,
			"consumer": true, "cookie": true, "jwt": true, "root": true, "server": true, "sas": true,
			"openai": true, "anthropic": true, "claude": true, "gemini": true, "google": true, "groq": true,
			"mistral": true, "cohere": true, "stripe": true, "sendgrid": true, "mailgun": true,
			"twilio": true, "azure": true, "aws": true, "algolia": true, "pinecone": true, "firebase": true,
			"supabase": true, "datadog": true, "sentry": true, "openrouter": true, "deepseek": true,
			"xai": true, "replicate": true, "together": true, "fireworks": true, "voyage": true,
			"tavily": true, "serp": true, "brave": true, "exa": true, "perplexity": true, "elevenlabs": true,
			"huggingface": true, "hf": true, "github": true, "gitlab": true, "slack": true, "linear": true,
			"notion": true, "airtable": true, "heroku": true, "vercel": true, "netlify": true,
			"cloudflare": true, "digitalocean": true, "do": true, "mapbox": true, "maps": true,
		}
	})
	// Qualifiers that make "key" a plain identifier.
	plainKeyWords = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"public": true, "publishable": true, "pub": true, "primary": true, "foreign": true, "sort": true,
			"partition": true, "cache": true, "range": true, "row": true, "column": true, "composite": true,
			"unique": true, "index": true, "group": true, "lookup": true, "map": true, "dict": true,
			"object": true, "react": true, "i18n": true, "translation": true, "message": true, "hot": true,
			"short": true, "shortcut": true, "keyboard": true, "idempotency": true, "dedup": true,
			"routing": true, "shard": true, "s3": true, "bucket": true, "cursor": true, "next": true,
			"start": true, "end": true, "natural": true, "surrogate": true, "locale": true, "order": true,
			"schema": true, "json": true, "yaml": true, "field": true, "attribute": true, "attr": true,
			"config": true, "settings": true, "registry": true, "ssh": true, "gpg": true, "host": true,
			"known": true, "tree": true, "node": true, "item": true, "list": true, "table": true,
			"redis": true, "kv": true, "storage_key": true, "state": true, "store": true, "event": true,
		}
	})
	fusedSecretKeys = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"apikey": true, "accesskey": true, "secretkey": true, "privatekey": true, "signingkey": true,
			"masterkey": true, "authkey": true, "encryptionkey": true, "clientkey": true, "accountkey": true,
			"licensekey": true, "appkey": true, "servicekey": true, "adminkey": true, "subscriptionkey": true,
			"webhookkey": true, "sessionkey": true, "sharedkey": true, "storagekey": true, "deploykey": true,
			"hmackey": true, "cryptokey": true, "consumerkey": true, "restapikey": true, "sharedaccesskey": true,
		}
	})
)

// nameWords cuts a lower-cased name into words at _ . - and case
// changes (apiKey, APIKey, API_KEY); it keeps the last len(words).
func nameWords(name []byte, low *[maxName]byte, words *[8][]byte) int {
	nw := 0
	start := 0
	for i := 0; i <= len(name); i++ {
		cut, next := false, 0
		if i == len(name) || name[i] == '_' || name[i] == '.' || name[i] == '-' {
			cut, next = true, i+1
		} else if i > start {
			c, p := name[i], name[i-1]
			if isUpper(c) && (isLower(p) || isDigit(p)) || isUpper(c) && isUpper(p) && i+1 < len(name) && isLower(name[i+1]) {
				cut, next = true, i
			}
		}
		if !cut {
			continue
		}
		if i > start {
			if nw == len(words) {
				copy(words[:], words[1:])
				nw--
			}
			words[nw] = low[start:i]
			nw++
		}
		start = next
	}
	return nw
}

func allHex(w []byte) bool {
	for _, c := range w {
		if !setHex[c] {
			return false
		}
	}
	return len(w) > 0
}

func allDigits(w []byte) bool {
	for _, c := range w {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// classify decides from a name's words whether its value is a secret.
func classify(name []byte) (family, int) {
	if len(name) > maxName {
		return famNone, 0
	}
	// "--- PASS: TestX" is go test's output, not a password.
	if string(name) == "PASS" {
		return famNone, 0
	}
	var low [maxName]byte
	for i, c := range name {
		low[i] = fold(c)
	}
	var words [8][]byte
	nw := nameWords(name, &low, &words)
	// Drop trailing qualifiers such as _value, _confirmation, 2.
	last := nw - 1
	for last > 0 {
		w := words[last]
		if !(allDigits(w) || suffixWords()[string(w)]) {
			break
		}
		// "secret" as a suffix only after a key word (api_key_secret);
		// as the last word it is the sensitive word itself.
		if string(w) == "secret" && last == nw-1 {
			break
		}
		last--
	}
	if last < 0 {
		return famNone, 0
	}
	w := string(words[last])
	prev := ""
	if last > 0 {
		prev = string(words[last-1])
	}
	hasAWS, hasSecret := false, false
	for _, x := range words[:nw] {
		switch string(x) {
		case "aws":
			hasAWS = true
		case "secret":
			hasSecret = true
		}
	}
	switch {
	case contains(w, "password") || contains(w, "passwd") || contains(w, "passphrase") || w == "pass" || w == "pwd":
		return famPassword, kindPassword
	case hasSuffix(w, "secret") || w == "credential" || w == "credentials" || w == "creds" || w == "cred":
		if hasAWS {
			return famSecret, kindAWSSecretKey
		}
		return famSecret, kindSecret
	case hasSuffix(w, "token"):
		return famToken, kindToken
	case w == "key" || fusedSecretKeys()[w]:
		if (hasAWS && (hasSecret || w == "secretkey")) || (w == "key" && prev == "access" && hasSecret) {
			return famSecret, kindAWSSecretKey
		}
		if fusedSecretKeys()[w] || secretKeyWords()[prev] {
			return famSecret, kindSecret
		}
		if plainKeyWords()[prev] {
			return famNone, 0
		}
		return famWeak, kindSecret
	case w == "secretaccesskey":
		return famSecret, kindAWSSecretKey
	case w == "auth" || w == "basicauth" || w == "httpauth":
		return famWeak, kindSecret
	case w == "authorization":
		return famAuthHeader, kindAuthorization
	}
	return famNone, 0
}

func contains(s, sub string) bool {
	return strings.Contains(s, sub)
}

func hasSuffix(s, suf string) bool {
	return len(s) >= len(suf) && s[len(s)-len(suf):] == suf
}

// authHeader reads the value of an Authorization header from p: an
// optional quote, a scheme and a credential. Bearer and Token credentials
// are bearer-token, Basic basic-auth; for another scheme (Digest,
// AWS4-HMAC-SHA256, …) the rest of the value is removed as authorization.
// A lone credential without scheme counts if it looks like a token.
func authHeader(e *engine, p int) {
	b := e.buf
	// One opening quote, maybe escaped; an unescaped double quote inside
	// a string ends it.
	k := 0
	for p < len(b) && k < 8 && b[p] == '\\' {
		p++
		k++
	}
	if p < len(b) && (b[p] == '"' || b[p] == '\'' || b[p] == '`') {
		if k%2 == 0 && (k > 0 || b[p] == '"' && e.inString(p)) {
			return
		}
		p++
	}
	i := p
	for i < len(b) && i-p < 32 && (isLower(b[i]) || isUpper(b[i]) || isDigit(b[i]) || b[i] == '-') {
		i++
	}
	scheme := b[p:i]
	s := skipBlanks(b, i)
	if s == i || s >= len(b) {
		// No scheme: a lone credential.
		j := credRun(b, p)
		v := b[p:j]
		if j-p > maxValue || len(v) < 16 || !letterDigit(v) || placeholder(v) {
			return
		}
		e.add(p, j, kindAuthorization)
		return
	}
	switch lower(string(scheme)) {
	case "bearer", "token", "bot", "jwt", "apikey", "api-key", "key":
		j := credRun(b, s)
		v := b[s:j]
		if j-s > maxValue || len(v) < 4 || placeholder(v) || isTrivial(v) {
			return
		}
		e.add(s, j, kindBearer)
	case "basic":
		j := e.run(s, setB64, 1024)
		if j-s > 1024 || j-s < 4 {
			return
		}
		e.add(s, j, kindBasic)
	default:
		if len(scheme) == 0 {
			return
		}
		// The rest of the header value: up to a quote, an escape or the
		// end of the line.
		j := s
		lim := min(len(b), s+maxValue)
		for j < lim && b[j] != '"' && b[j] != '\'' && b[j] != '\\' && b[j] != '\n' && b[j] != '\r' && b[j] != '`' {
			j++
		}
		for j > s && isSpace(b[j-1]) {
			j--
		}
		v := b[s:j]
		if len(v) < 8 || placeholder(v) {
			return
		}
		e.add(s, j, kindAuthorization)
	}
}
