//go:build !unix

package store

import "testing"

// readAsNobody needs a Unix user to switch to.
func readAsNobody(t *testing.T, _ string, _ int) { t.Skip("no other user to read as") }
