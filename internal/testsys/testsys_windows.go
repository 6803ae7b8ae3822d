//go:build windows

package testsys

import "errors"

const fifoSupported = false

func mkfifo(string) error { return errors.ErrUnsupported }

func syncAll() {}
