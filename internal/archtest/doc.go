// Package archtest holds no code: its test checks the module's layering
// (docs/ARCHITECTURE.md), so that a change that breaks it fails
// `go test ./...` and CI.
package archtest
