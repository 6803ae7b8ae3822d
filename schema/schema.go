// Package schema holds the embedded JSON Schemas of session-handoff's
// formats and the strict decoding every reader of them goes through:
// invalid UTF-8, duplicate keys, trailing data and unknown fields are
// errors, and validation reports every violation with its JSON pointer.
// It imports nothing of ours.
package schema

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

//go:embed *.schema.json
var files embed.FS

// Names of the embedded schemas.
const (
	Handoff = "handoff.schema.json"
)

// Source returns the text of an embedded schema, for documentation and
// for tools that want to validate on their own.
func Source(name string) ([]byte, error) {
	return files.ReadFile(name)
}

// Violation is one way an instance breaks its schema.
type Violation struct {
	// Pointer is the JSON pointer (RFC 6901) of the offending value;
	// empty for the document itself.
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func (v Violation) String() string {
	p := v.Pointer
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Message
}

// ErrInvalid is wrapped by *ValidationError.
var ErrInvalid = errors.New("does not match schema")

// ValidationError lists every violation found in one document.
type ValidationError struct {
	Schema     string
	Violations []Violation
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return fmt.Sprintf("%d schema violation(s): %s", len(e.Violations), strings.Join(parts, "; "))
}

// Unwrap lets errors.Is match ErrInvalid.
func (e *ValidationError) Unwrap() error { return ErrInvalid }

// Validate checks data against the named schema: first StrictCheck, then
// the schema itself. A schema failure is a *ValidationError listing every
// violation.
func Validate(name string, data []byte) error {
	validations.Add(1)
	if err := StrictCheck(data); err != nil {
		return err
	}
	schemas, err := compiled()
	if err != nil {
		return err
	}
	root, ok := schemas[name]
	if !ok {
		return fmt.Errorf("no embedded schema %q", name)
	}
	inst, err := decodeInstance(data)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var violations []Violation
	root.validateValue(inst, "", &violations)
	if len(violations) == 0 {
		return nil
	}
	sort.SliceStable(violations, func(i, j int) bool { return violations[i].Pointer < violations[j].Pointer })
	return &ValidationError{Schema: name, Violations: violations}
}

// Decode validates data against the named schema and then decodes it into
// v, refusing fields v does not know. Use it for every document read from
// disk or from another machine.
func Decode(name string, data []byte, v any) error {
	if err := Validate(name, data); err != nil {
		return err
	}
	return decodeStrict(data, v)
}

// DecodeStrict decodes a document this program wrote and checked against
// its schema when it was stored (a record of our own store): StrictCheck
// (UTF-8, no duplicate keys, bounded nesting) and a decode that refuses
// unknown fields, without compiling or running the schema, which costs
// more than the rest of a command. Anything from outside goes through
// Decode.
func DecodeStrict(data []byte, v any) error {
	if err := StrictCheck(data); err != nil {
		return err
	}
	return decodeStrict(data, v)
}

// validations counts the documents validated against a schema, for tests
// that hold a path to reading without one.
var validations atomic.Int64

// Validations is how many documents this process has validated against
// a schema so far.
func Validations() int64 { return validations.Load() }

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}
