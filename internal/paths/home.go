package paths

import (
	"errors"
	"os"
)

// Home returns the user's home directory: $HOME as getenv sees it (tests
// set it there), else the operating system's idea of it. It is the one
// place that decides it; getenv nil is os.Getenv.
func Home(getenv Env) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New("cannot find the home directory: set HOME or " + HomeEnv)
	}
	return h, nil
}
