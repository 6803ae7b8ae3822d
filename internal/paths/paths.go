// Package paths decides where session-handoff keeps its files.
//
// Data (the store) lives under $XDG_DATA_HOME/session-handoff, by default
// ~/.local/share/session-handoff; keys, the trust store and configuration
// under $XDG_CONFIG_HOME/session-handoff, by default ~/.config/session-handoff.
// SESSION_HANDOFF_HOME, when set, replaces both with $SESSION_HANDOFF_HOME/data
// and $SESSION_HANDOFF_HOME/config, so tests and users can keep several
// independent setups.
package paths

import (
	"os"
	"path/filepath"
)

// HomeEnv is the environment variable that relocates everything.
const HomeEnv = "SESSION_HANDOFF_HOME"

const app = "session-handoff"

// Env looks up an environment variable; tests substitute their own.
type Env func(string) string

// Data returns the directory of the local store.
func Data(getenv Env) (string, error) {
	return dir(getenv, "data", "XDG_DATA_HOME", filepath.Join(".local", "share"))
}

// Config returns the directory of keys, trust and configuration.
func Config(getenv Env) (string, error) {
	return dir(getenv, "config", "XDG_CONFIG_HOME", ".config")
}

func dir(getenv Env, sub, xdgVar, fallback string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv(HomeEnv); h != "" {
		return filepath.Abs(filepath.Join(h, sub))
	}
	if x := getenv(xdgVar); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, app), nil
	}
	home, err := Home(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, fallback, app), nil
}
