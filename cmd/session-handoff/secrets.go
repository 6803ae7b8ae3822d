package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

// Environment variables that carry passphrases. A passphrase is never
// taken from a command-line argument, where other users could read it.
const (
	passphraseEnv    = "SESSION_HANDOFF_PASSPHRASE"
	keyPassphraseEnv = "SESSION_HANDOFF_KEY_PASSPHRASE"
)

// maxPassphrase bounds a passphrase read from a file.
const maxPassphrase = 4096

// passphraseSource reads a passphrase from, in order: a file named by a
// flag, an environment variable, or a prompt on the terminal.
type passphraseSource struct {
	a    *app
	file *string
	// fileFlag is the flag that sets file, for the hint when no
	// passphrase can be had; or is the hint's last way out.
	fileFlag, or string
	env          []string
	prompt       string
	confirm      bool // ask twice on a terminal (when setting a passphrase)
	cached       []byte
}

// get returns the passphrase, asking at most once.
func (p *passphraseSource) get() ([]byte, error) {
	if p.cached != nil {
		return p.cached, nil
	}
	pass, err := p.read()
	if err != nil {
		return nil, err
	}
	p.cached = pass
	return pass, nil
}

func (p *passphraseSource) read() ([]byte, error) {
	if p.file != nil && *p.file != "" {
		data, err := safefile.ReadFile(*p.file, maxPassphrase)
		if err != nil {
			return nil, fmt.Errorf("read passphrase file: %w", err)
		}
		// One trailing newline is the file's, not the passphrase's.
		data = bytes.TrimSuffix(bytes.TrimSuffix(data, []byte("\n")), []byte("\r"))
		if len(data) == 0 {
			return nil, fmt.Errorf("passphrase file %s is empty", *p.file)
		}
		return data, nil
	}
	for _, name := range p.env {
		if v := p.a.getenv(name); v != "" {
			return []byte(v), nil
		}
	}
	// The prompt goes to the controlling terminal, not to the app's
	// streams, which may be a pipe carrying a bundle.
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil || !isTerminal(tty) {
		if tty != nil {
			tty.Close()
		}
		return nil, withHint(errors.New("a passphrase is needed and there is no terminal to ask on"), p.hint())
	}
	defer tty.Close()
	fmt.Fprintf(tty, "%s: ", p.prompt)
	pass, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	if p.confirm {
		fmt.Fprint(tty, "again: ")
		again, err := term.ReadPassword(int(tty.Fd()))
		fmt.Fprintln(tty)
		if err != nil {
			return nil, fmt.Errorf("read passphrase: %w", err)
		}
		if !bytes.Equal(pass, again) {
			return nil, errors.New("the passphrases do not match")
		}
	}
	if len(pass) == 0 {
		return nil, errors.New("empty passphrase")
	}
	return pass, nil
}

// hint says where a passphrase can be given when there is no terminal.
func (p *passphraseSource) hint() string {
	h := "set " + p.env[0] + " in the environment"
	if p.fileFlag != "" {
		h += ", or name a file that holds it with " + p.fileFlag + " FILE (mode 0600)"
	}
	if p.or != "" {
		h += "; or " + p.or
	}
	return h
}

// keyPassphrase is the source for the signing key's passphrase, whose
// file flag is named flag.
func (a *app) keyPassphrase(file *string, flag string) *passphraseSource {
	return &passphraseSource{a: a, file: file, fileFlag: flag, env: []string{keyPassphraseEnv, passphraseEnv}, prompt: "passphrase for the signing key"}
}

// keyring opens the keyring named by --keys or the default location.
func (a *app) keyring() (exchange.Keyring, error) {
	var usual []string
	if home, err := paths.Home(a.getenv); err == nil {
		usual = exchange.UsualSSHKeys(home)
	}
	if a.global.keysDir != "" {
		return exchange.Keyring{Dir: a.global.keysDir, UsualSSH: usual}, nil
	}
	d, err := paths.Config(a.getenv)
	if err != nil {
		return exchange.Keyring{}, err
	}
	return exchange.Keyring{Dir: d, UsualSSH: usual}, nil
}
