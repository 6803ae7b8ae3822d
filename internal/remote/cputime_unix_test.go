//go:build unix

package remote

import (
	"syscall"
	"time"
)

// cpuTime is the user and system time of this process and of the
// children it waited for: what a receive costs, which the machine's load
// inflates less than the time it takes.
func cpuTime() time.Duration {
	var t time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err == nil {
			t += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return t
}
