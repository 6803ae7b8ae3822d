package doctor

import (
	"fmt"

	"github.com/session-handoff/session-handoff/internal/devices"
	"github.com/session-handoff/session-handoff/internal/devsync"
	"github.com/session-handoff/session-handoff/internal/remote"
)

// checkSync says whether the project (or, outside one, every project)
// syncs with my other devices, and what keeps it from working: no device
// paired, a remote that is not configured, sends left pending and why the
// last one failed. ok is
// false when sync was never set up: no line then.
func checkSync(s Setup) (c Check, ok bool) {
	c = Check{Name: "sync"}
	conf, err := devsync.Load(s.ConfigDir)
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c, true
	}
	if len(conf.All()) == 0 {
		return c, false
	}
	set := conf.For(s.Project)
	if !set.On {
		c.Status, c.Detail = OK, "sync is off here"
		return c, true
	}
	l, err := devices.Load(s.ConfigDir)
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c, true
	}
	rc, err := remote.LoadConfig(s.ConfigDir)
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		return c, true
	}
	r, err := rc.Pick(set.Remote)
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = Fail, "sync is on but its remote is not usable: "+err.Error(), "session-handoff remote add NAME URL"
		return c, true
	case len(l.All()) == 0:
		c.Status, c.Detail, c.Fix = Warn, "sync is on but no other machine is paired", "session-handoff devices add"
		return c, true
	}
	c.Status, c.Detail = OK, fmt.Sprintf("sync is on, through %s, with %s", r.Name, count(len(l.All()), "device"))
	n, fail, err := devsync.PendingThrough(s.DataDir, r.Name)
	switch {
	case err != nil:
		c.Status, c.Detail = Fail, err.Error()
	case fail != nil:
		// Never ok while a send is failing, pending or not.
		c.Status, c.Fix = Warn, fail.Fix
		if n > 0 {
			c.Detail += fmt.Sprintf("; %s not yet pushed", count(n, "bundle"))
		}
		c.Detail += ": the last send failed: " + fail.Reason
		if c.Fix == "" {
			c.Fix = "session-handoff sync push"
		}
	case n > 0:
		c.Status, c.Fix = Warn, "session-handoff sync push"
		c.Detail += fmt.Sprintf("; %s not yet pushed", count(n, "bundle"))
	}
	return c, true
}
