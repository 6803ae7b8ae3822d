// Package jsonfast decodes JSON the way transcript readers need it: one
// object on a line into a typed struct (Decode), lenient about a field's
// type as a hostile or changing transcript requires, on a small parser of
// its own that accepts and refuses exactly what encoding/json does
// (DecodeObject), several times faster; and Unmarshal, json.Unmarshal
// into a zero value on that parser, for the readers that decode as
// encoding/json does, type errors and all. internal/transcript's reading
// toolkit hands it to every reader; it knows no agent and no transcript.
package jsonfast
