package store

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data and the metadata needed to read it back, but
// not its times, which spares a journal commit when f did not grow.
func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
