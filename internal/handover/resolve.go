package handover

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/store"
)

// ConfigFile is the configuration file looked for in the project root and
// then in the user's configuration directory.
const ConfigFile = "handover.toml"

// BuiltinConfigName is what ResolveConfig reports as the path of the
// built-in default configuration.
const BuiltinConfigName = "(built-in default)"

// NotApprovedError is returned for a project's handover.toml that the
// user has not approved as it is now: a cloned repository's configuration
// can run commands, so it runs only after 'handover allow'.
type NotApprovedError struct{ Path string }

func (e *NotApprovedError) Error() string {
	return fmt.Sprintf("%s is not approved to run on this machine (new, or changed since it was approved)", e.Path)
}

// ResolveConfig decides which configuration a run in the project at root
// uses, and returns it with its path: the file named explicitly if any;
// else the project's handover.toml, only if approved (a *NotApprovedError
// otherwise); else the user's handover.toml in configDir; else the
// built-in default (path BuiltinConfigName). The command and doctor both
// decide through it.
func ResolveConfig(explicit, root, configDir string) (*Config, string, error) {
	if explicit != "" {
		c, err := LoadConfig(explicit)
		return c, explicit, err
	}
	projectConfig := filepath.Join(root, ConfigFile)
	if _, err := os.Stat(projectConfig); err == nil {
		ok, err := Approved(paths.ConfigDir(configDir).HandoverApprovals(), projectConfig)
		if err != nil {
			return nil, projectConfig, err
		}
		if !ok {
			return nil, projectConfig, &NotApprovedError{Path: projectConfig}
		}
		c, err := LoadConfig(projectConfig)
		return c, projectConfig, err
	}
	userConfig := filepath.Join(configDir, ConfigFile)
	if _, err := os.Stat(userConfig); err == nil || !errors.Is(err, fs.ErrNotExist) {
		c, err := LoadConfig(userConfig)
		return c, userConfig, err
	}
	return DefaultConfig(), BuiltinConfigName, nil
}

// RunnerOptions are what NewRunner needs from its caller.
type RunnerOptions struct {
	// Project is the project's root directory.
	Project string
	// Keyring is the user's keys and configuration directory.
	Keyring exchange.Keyring
	Store   *store.Store
	Config  *Config
	// Producer names this program in exported bundles.
	Producer bundle.Producer
	// Env looks up environment variables; Log receives the run's lines.
	Env func(string) string
	Log io.Writer
	// Observe, when set, is told of every phase of every step (tests).
	Observe func(step string, phase Phase)
}

// NewRunner assembles the run of o.Config for o.Project: its state
// directory in the store, the PAUSE files that stop it, and where the send
// steps find remotes and people. It loads no secret; LoadSecrets does.
func NewRunner(o RunnerOptions) *Runner {
	return &Runner{
		Project: o.Project, StateDir: StateDir(o.Store.Dir(), o.Project),
		PauseFiles: PauseFiles(o.Keyring.Dir, o.Project), ConfigDir: o.Keyring.Dir,
		Config: o.Config, Store: o.Store, Producer: o.Producer, Env: o.Env, Log: o.Log, Observe: o.Observe,
	}
}

// NeedsSigningKey reports whether a step of the configuration signs a
// bundle (export, send).
func (c *Config) NeedsSigningKey() bool {
	return slices.ContainsFunc(c.Steps, func(st Step) bool { return st.Kind == KindExport || st.Kind == KindSend })
}

// LoadSecrets loads what a real run needs and a dry run does not: the
// user's redaction patterns and, when a step signs, the signing key. A run
// is unattended, so passphrase reads the key's passphrase from the
// environment, never from a prompt.
func (r *Runner) LoadSecrets(kr exchange.Keyring, passphrase func() ([]byte, error)) error {
	red, err := redact.LoadUserPatterns(kr.Dir)
	if err != nil {
		return err
	}
	r.Redactor = red
	if r.Config.NeedsSigningKey() {
		if r.SigningKey, err = kr.SigningKey(passphrase); err != nil {
			return err
		}
	}
	return nil
}
