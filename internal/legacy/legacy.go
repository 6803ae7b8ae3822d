// Package legacy reads what earlier versions of session-handoff wrote: the
// single-file store handoffs.json and the JSON bundles of format versions 2
// and 3, optionally wrapped in passphrase encryption, and turns them into
// current records.
//
// Those bundles carried the signer's public key inside the bundle and did
// not sign the signer's name, so their signatures prove nothing about who
// made them. Records read here are therefore always marked as unsigned
// (source.kind "legacy"), whatever the old signature says.
package legacy

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/scrypt"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/ctxio"
	"github.com/session-handoff/session-handoff/schema"
)

// MaxInput bounds a legacy file.
const MaxInput = 64 << 20

// MaxItems bounds the records in one legacy store.
const MaxItems = 100000

// Bounds of the scrypt cost a legacy wrapper may ask for. The old tool
// always used N=32768, r=8, p=1: 32 MiB of memory (128·N·r bytes) and
// 2^18 block mixes (N·r·p). A wrapper may ask for twice that, no more: a
// 251-byte file asking for N=2^20, r=32, p=16 used to take 4 GiB and
// minutes.
const (
	MaxScryptMemory = 64 << 20
	MaxScryptWork   = 1 << 19
)

// ErrWrongPassphrase is returned when an encrypted legacy bundle does not
// open with the passphrase given.
var ErrWrongPassphrase = errors.New("wrong passphrase")

// ErrNotLegacy is wrapped when a file is none of the legacy formats.
var ErrNotLegacy = errors.New("not a legacy session-handoff file")

// Item is one record as the old store and bundles held it.
type Item struct {
	ID        string          `json:"id"`
	CreatedAt string          `json:"created_at"`
	Tool      string          `json:"tool"`
	Project   json.RawMessage `json:"project"`
	Title     string          `json:"title"`
	Summary   string          `json:"summary"`
	Next      json.RawMessage `json:"next"`
	Changed   json.RawMessage `json:"changed"`
}

// Kind names what a legacy file turned out to be.
type Kind string

// The legacy file kinds.
const (
	KindStore     Kind = "store"            // handoffs.json
	KindBundle    Kind = "bundle"           // {"version":2|3,…}
	KindEncrypted Kind = "encrypted bundle" // the AES-GCM wrapper around a bundle
)

// Result is what a legacy file held, converted.
type Result struct {
	Kind    Kind
	Records []*handoff.Record
}

// Read converts a legacy file. passphrase is asked for only when the file
// is an encrypted bundle. now stamps nothing in the records: conversion is
// deterministic, so reading the same file twice gives the same ids.
func Read(data []byte, name string, passphrase func() ([]byte, error)) (*Result, error) {
	return ReadContext(context.Background(), data, name, passphrase)
}

// ReadContext is Read with the key derivation of an encrypted bundle
// interrupted by ctx: once ctx is done it returns at once, with an error
// wrapping ctx's.
func ReadContext(ctx context.Context, data []byte, name string, passphrase func() ([]byte, error)) (*Result, error) {
	if len(data) > MaxInput {
		return nil, fmt.Errorf("%s: over %d bytes", name, MaxInput)
	}
	if err := schema.StrictCheck(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var probe struct {
		Version   *int            `json:"version"`
		Items     json.RawMessage `json:"items"`
		Algorithm string          `json:"algorithm"`
		Record    json.RawMessage `json:"record"`
	}
	if err := json.Unmarshal(data, &probe); err != nil || probe.Version == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNotLegacy)
	}
	switch {
	case probe.Algorithm != "":
		plain, err := decrypt(ctx, data, passphrase)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res, err := readBundle(plain)
		if err != nil {
			return nil, fmt.Errorf("%s (decrypted): %w", name, err)
		}
		res.Kind = KindEncrypted
		return res, nil
	case probe.Items != nil:
		if *probe.Version != 1 {
			return nil, fmt.Errorf("%s: legacy store version %d, this program reads version 1", name, *probe.Version)
		}
		res, err := readStore(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return res, nil
	case probe.Record != nil:
		res, err := readBundle(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return res, nil
	}
	return nil, fmt.Errorf("%s: %w", name, ErrNotLegacy)
}

func readStore(data []byte) (*Result, error) {
	var st struct {
		Version int               `json:"version"`
		Items   []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("legacy store: %v", err)
	}
	if len(st.Items) > MaxItems {
		return nil, fmt.Errorf("legacy store: %d items, over the limit of %d", len(st.Items), MaxItems)
	}
	res := &Result{Kind: KindStore}
	for i, raw := range st.Items {
		rec, err := convert(raw)
		if err != nil {
			return nil, fmt.Errorf("legacy store item %d: %w", i+1, err)
		}
		res.Records = append(res.Records, rec)
	}
	return res, nil
}

func readBundle(data []byte) (*Result, error) {
	var b struct {
		Version   int             `json:"version"`
		Checksum  string          `json:"checksum"`
		Record    json.RawMessage `json:"record"`
		Signer    json.RawMessage `json:"signer"`
		Signature json.RawMessage `json:"signature"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("legacy bundle: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if b.Version != 2 && b.Version != 3 {
		return nil, fmt.Errorf("legacy bundle version %d, this program reads versions 2 and 3", b.Version)
	}
	if b.Record == nil {
		return nil, errors.New("legacy bundle: no record")
	}
	if err := checkChecksum(b.Checksum, b.Record); err != nil {
		return nil, err
	}
	rec, err := convert(b.Record)
	if err != nil {
		return nil, err
	}
	return &Result{Kind: KindBundle, Records: []*handoff.Record{rec}}, nil
}

// checkChecksum compares the bundle's checksum, "sha256:<hex>" or bare hex,
// with the SHA-256 of the record's JSON, as written or compacted.
func checkChecksum(sum string, record json.RawMessage) error {
	want := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(sum)), "sha256:")
	if want == "" {
		return errors.New("legacy bundle: no checksum")
	}
	raw := sha256.Sum256(record)
	var compact bytes.Buffer
	if err := json.Compact(&compact, record); err != nil {
		return fmt.Errorf("legacy bundle: record: %v", err)
	}
	comp := sha256.Sum256(compact.Bytes())
	if want != hex.EncodeToString(raw[:]) && want != hex.EncodeToString(comp[:]) {
		return errors.New("legacy bundle: checksum does not match the record")
	}
	return nil
}

var kdfPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^scrypt\(N=(\d{1,8}),r=(\d{1,2}),p=(\d{1,2})\)$`) })

func decrypt(ctx context.Context, data []byte, passphrase func() ([]byte, error)) ([]byte, error) {
	var w struct {
		Version    int    `json:"version"`
		Algorithm  string `json:"algorithm"`
		KDF        string `json:"kdf"`
		Salt       string `json:"salt"`
		Nonce      string `json:"nonce"`
		Ciphertext string `json:"ciphertext"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("legacy encrypted bundle: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	if w.Version != 1 {
		return nil, fmt.Errorf("legacy encryption version %d, this program reads version 1", w.Version)
	}
	if w.Algorithm != "aes-256-gcm" {
		return nil, fmt.Errorf("legacy encryption algorithm %q is not supported", handoff.Shorten(w.Algorithm, 40))
	}
	m := kdfPattern().FindStringSubmatch(w.KDF)
	if m == nil {
		return nil, fmt.Errorf("legacy key derivation %q is not supported", handoff.Shorten(w.KDF, 60))
	}
	n, _ := strconv.Atoi(m[1])
	r, _ := strconv.Atoi(m[2])
	p, _ := strconv.Atoi(m[3])
	if n < 2 || n&(n-1) != 0 || r < 1 || p < 1 || int64(n)*int64(r)*128 > MaxScryptMemory || int64(n)*int64(r)*int64(p) > MaxScryptWork {
		return nil, fmt.Errorf("legacy scrypt parameters N=%d r=%d p=%d are outside the accepted range (N a power of two; at most %d MiB of memory, 128·N·r, and %d for N·r·p)", n, r, p, MaxScryptMemory>>20, MaxScryptWork)
	}
	salt, err1 := base64.StdEncoding.DecodeString(w.Salt)
	nonce, err2 := base64.StdEncoding.DecodeString(w.Nonce)
	ct, err3 := base64.StdEncoding.DecodeString(w.Ciphertext)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, errors.New("legacy encrypted bundle: salt, nonce and ciphertext must be standard base64")
	}
	if len(salt) < 8 || len(nonce) != 12 {
		return nil, fmt.Errorf("legacy encrypted bundle: salt of %d bytes or nonce of %d bytes is invalid", len(salt), len(nonce))
	}
	if passphrase == nil {
		return nil, errors.New("legacy bundle is encrypted and no passphrase was given")
	}
	pass, err := passphrase()
	if err != nil {
		return nil, err
	}
	// scrypt does not stop for an interrupt: it runs apart, and an
	// interrupt returns at once.
	key, err := ctxio.Do(ctx, func() ([]byte, error) { return scrypt.Key(pass, salt, n, r, p, 32) })
	if err != nil {
		return nil, fmt.Errorf("derive key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, nonce, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("legacy encrypted bundle: %w (or the file was altered)", ErrWrongPassphrase)
	}
	return plain, nil
}

// convert turns one legacy item into a current record. The id is derived
// from the item (its time and a hash of its legacy id and title), so a
// legacy file imported twice yields the same ids and nothing is duplicated.
func convert(raw json.RawMessage) (*handoff.Record, error) {
	var it Item
	if err := json.Unmarshal(raw, &it); err != nil {
		return nil, fmt.Errorf("record: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	created, err := time.Parse(time.RFC3339Nano, it.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("record %q: created_at %q is not an RFC 3339 time", handoff.Shorten(it.ID, 40), handoff.Shorten(it.CreatedAt, 40))
	}
	created = created.UTC().Truncate(time.Millisecond)
	if created.UnixMilli() < 0 || created.UnixMilli() >= 1<<48 {
		return nil, fmt.Errorf("record %q: created_at is out of range", handoff.Shorten(it.ID, 40))
	}
	tool := strings.ToLower(strings.TrimSpace(it.Tool))
	if !handoff.ValidTool(tool) {
		tool = "generic"
	}
	rec := &handoff.Record{
		SchemaVersion: handoff.SchemaVersion,
		ID:            derivedID(created, it.ID, it.Title),
		CreatedAt:     created,
		Tool:          tool,
		Title:         handoff.Clip(strings.TrimSpace(it.Title), handoff.MaxTitle),
		Summary:       handoff.Clip(strings.TrimSpace(it.Summary), handoff.MaxText),
		Tags:          []string{"legacy"},
		Source:        handoff.Source{Kind: handoff.SourceLegacy},
	}
	if rec.Title == "" {
		rec.Title = "(untitled legacy handoff)"
	}
	rec.Project = convertProject(it.Project)
	for _, s := range stringList(it.Next) {
		rec.NextSteps = append(rec.NextSteps, handoff.Clip(s, handoff.MaxItem))
	}
	for _, p := range stringList(it.Changed) {
		rec.Files = append(rec.Files, handoff.FileTouched{Path: handoff.Clip(p, 4096), Action: "edited"})
	}
	if len(rec.NextSteps) > handoff.MaxItems {
		rec.NextSteps = rec.NextSteps[:handoff.MaxItems]
	}
	if len(rec.Files) > 5000 {
		rec.Files = rec.Files[:5000]
	}
	if errs := rec.Check(); len(errs) > 0 {
		return nil, fmt.Errorf("record %q: %w", handoff.Shorten(it.ID, 40), errors.Join(errs...))
	}
	return rec, nil
}

func derivedID(created time.Time, legacyID, title string) handoff.ID {
	sum := sha256.Sum256([]byte("session-handoff legacy id\x00" + legacyID + "\x00" + title))
	var b [16]byte
	ms := uint64(created.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	copy(b[6:], sum[:10])
	return handoff.IDFromBytes(b)
}

// convertProject accepts the old project field as a path string or as an
// object with path and name.
func convertProject(raw json.RawMessage) handoff.Project {
	var p handoff.Project
	var s string
	if json.Unmarshal(raw, &s) == nil {
		p.Path = s
	} else {
		var o struct {
			Path string `json:"path"`
			Name string `json:"name"`
		}
		if json.Unmarshal(raw, &o) == nil {
			p.Path, p.Name = o.Path, o.Name
		}
	}
	if p.Path != "" && !filepath.IsAbs(p.Path) {
		// A relative or home-based path cannot be resolved on this
		// machine; keep it as the name only.
		if p.Name == "" {
			p.Name = p.Path
		}
		p.Path = ""
	}
	if p.Name == "" && p.Path != "" {
		p.Name = filepath.Base(p.Path)
	}
	p.Path = handoff.Clip(p.Path, 4096)
	p.Name = handoff.Clip(p.Name, 256)
	return p
}

// stringList accepts a list of strings, a single string (one per line), or
// nothing, and drops empty items.
func stringList(raw json.RawMessage) []string {
	var out []string
	var list []string
	var one string
	switch {
	case len(raw) == 0 || string(raw) == "null":
	case json.Unmarshal(raw, &list) == nil:
	case json.Unmarshal(raw, &one) == nil:
		list = strings.Split(one, "\n")
	}
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
