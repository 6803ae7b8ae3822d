//go:build e2e

package e2e

import (
	"strings"

	"github.com/session-handoff/session-handoff/handoff"
)

func hasFile(r handoff.Record, rel string) bool {
	for _, f := range r.Files {
		if f.Path == rel {
			return true
		}
	}
	return false
}

func hasCommand(r handoff.Record, cmd string) bool {
	if r.Session == nil {
		return false
	}
	for _, c := range r.Session.Commands {
		if strings.Contains(c.Command, cmd) {
			return true
		}
	}
	return false
}

// clip shortens a request body for a failure message.
func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}
