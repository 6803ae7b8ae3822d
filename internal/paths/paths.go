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
	"runtime"
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

// OldStores are where session-handoff v0.7.5 and earlier kept their store,
// handoffs.json: Go's os.UserConfigDir()/session-handoff (its
// defaultStorePath in internal/handoff/store.go), decided here from getenv
// as that function does ($XDG_CONFIG_HOME or ~/.config on Unix, ~/Library/
// Application Support on macOS, %AppData% on Windows), and the current
// configuration directory, which is the same place on Linux by default.
// Paths are listed once each.
func OldStores(getenv Env) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	var dirs []string
	if d, err := Config(getenv); err == nil {
		dirs = append(dirs, d)
	}
	switch runtime.GOOS {
	case "windows":
		if d := getenv("AppData"); d != "" {
			dirs = append(dirs, filepath.Join(d, app))
		}
	case "darwin", "ios":
		if h, err := Home(getenv); err == nil {
			dirs = append(dirs, filepath.Join(h, "Library", "Application Support", app))
		}
	default:
		if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
			dirs = append(dirs, filepath.Join(x, app))
		} else if h, err := Home(getenv); err == nil {
			dirs = append(dirs, filepath.Join(h, ".config", app))
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		p := filepath.Join(d, OldStoreFile)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// OldStoreFile is the name of v0.7.5's store file.
const OldStoreFile = "handoffs.json"
