package paths

import (
	"os"

	"github.com/session-handoff/session-handoff/handoff"
)

// MaxHostname bounds the machine name recorded in a handoff or a bundle,
// in bytes (POSIX allows host names of up to 255).
const MaxHostname = 255

// Hostname is the name of this machine as handoffs and bundles record it:
// the host name without control characters, cut to MaxHostname bytes on a
// character boundary; "" when the system does not say.
func Hostname() string { return hostname(os.Hostname) }

func hostname(get func() (string, error)) string {
	h, err := get()
	if err != nil {
		return ""
	}
	return handoff.Clip(handoff.CleanText(h), MaxHostname)
}
