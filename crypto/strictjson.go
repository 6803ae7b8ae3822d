package crypto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ValidateStrictJSON checks that data is exactly one JSON value in valid
// UTF-8, with no object holding the same key twice at any depth (after
// unescaping, so "a" and "\u0061" are the same key), no nesting deeper than
// maxDepth, and nothing but whitespace after the value. encoding/json accepts
// all of these silently, and a parser that keeps the first duplicate while
// another keeps the last would read different documents from the same signed
// bytes.
func ValidateStrictJSON(data []byte, maxDepth int) error {
	if !utf8.Valid(data) {
		return fmt.Errorf("json is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := checkJSONValue(dec, 0, maxDepth); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("json has data after the top-level value")
	}
	return nil
}

func checkJSONValue(dec *json.Decoder, depth, maxDepth int) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("json: unexpected end of input")
		}
		return fmt.Errorf("json: %w", err)
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxDepth {
		return fmt.Errorf("json is nested deeper than %d levels", maxDepth)
	}
	switch delim {
	case '{':
		seen := make(map[string]struct{})
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return fmt.Errorf("json: %w", err)
			}
			key, ok := kt.(string)
			if !ok {
				return fmt.Errorf("json: object key is not a string")
			}
			if _, dup := seen[key]; dup {
				return fmt.Errorf("json has duplicate key %s", quoteShort(key))
			}
			seen[key] = struct{}{}
			if err := checkJSONValue(dec, depth+1, maxDepth); err != nil {
				return err
			}
		}
	case '[':
		for dec.More() {
			if err := checkJSONValue(dec, depth+1, maxDepth); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("json: unexpected %v", delim)
	}
	// The closing delimiter; Token checks that it matches.
	if _, err := dec.Token(); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("json: unexpected end of input")
		}
		return fmt.Errorf("json: %w", err)
	}
	return nil
}
