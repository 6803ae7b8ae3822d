// Package devices is the list of my other machines. Each machine keeps its
// own keys; pairing records the other machine's public signing key and age
// recipient here, so that its handoffs are trusted as mine (its signing
// key is pinned in the trust store under "me@NAME") and what I sync is
// encrypted to it. Removing a device takes both away.
//
// The list is one text file in the configuration directory (docs/FORMAT.md
// §10), written atomically under a lock, like the address book.
package devices

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/tsvconf"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// header is the first line of the file: its format and version.
const header = "session-handoff-devices 1"

// Bounds on the file and on a device's name.
const (
	// MaxFileSize bounds the devices file.
	MaxFileSize = 256 << 10
	// MaxDevices bounds the number of paired devices.
	MaxDevices = 100
	// MaxName bounds a device's name, in bytes.
	MaxName = 64
)

// PrincipalPrefix starts the trust-store principal of every device of
// mine: a device named laptop signs as "me@laptop". Only pairing gives a
// key such a name; people.CheckName refuses it everywhere else.
const PrincipalPrefix = people.MinePrefix

// Errors callers tell apart.
var (
	// ErrUnknown is wrapped when a name is not a paired device.
	ErrUnknown = errors.New("not a paired device")
	// ErrExists is wrapped when a name or a key is paired already,
	// differently.
	ErrExists = errors.New("already paired")
	// ErrSelf is wrapped when the keys are this machine's own.
	ErrSelf = errors.New("that is this device's own pairing text")
)

// Device is one of my machines.
type Device struct {
	// Name is how I call the machine (its host name by default).
	Name string `json:"name"`
	// Recipient is its age recipient (age1…), what sync encrypts to.
	Recipient string `json:"recipient"`
	// SigningKey is its signing key, "ssh-ed25519 BASE64".
	SigningKey string `json:"signing_key"`
}

// Principal is the name the device's signing key is trusted under.
func (d Device) Principal() string { return PrincipalPrefix + d.Name }

// Fingerprint is the SHA256 fingerprint of the device's signing key.
func (d Device) Fingerprint() string {
	k, err := crypto.ParsePublicKey(d.SigningKey)
	if err != nil {
		return ""
	}
	return k.Fingerprint()
}

// RecipientInfo is the device as a recipient of a bundle.
func (d Device) RecipientInfo() (crypto.RecipientInfo, error) {
	r, canon, err := crypto.ParseRecipient(d.Recipient)
	if err != nil {
		return crypto.RecipientInfo{}, err
	}
	return crypto.RecipientInfo{Recipient: r, Canonical: canon}, nil
}

// New checks a name (people.CheckDeviceName, the rule of every name given
// to a signer), an age recipient and a signing key line (a comment after
// the key is dropped) and returns them in canonical form. Both keys
// are required: a device both reads and signs.
func New(name, recipient, signingKey string) (Device, error) {
	if len(name) > MaxName {
		return Device{}, fmt.Errorf("device name %s: longer than %d bytes", untrusted.Quote(name, MaxName), MaxName)
	}
	if err := people.CheckDeviceName(name); err != nil {
		return Device{}, fmt.Errorf("device name: %w", err)
	}
	if strings.TrimSpace(signingKey) == "" {
		return Device{}, fmt.Errorf("device %s: no signing key", name)
	}
	p, err := people.New(PrincipalPrefix+name, recipient, signingKey)
	if err != nil {
		return Device{}, err
	}
	return Device{Name: name, Recipient: p.Recipient, SigningKey: p.SigningKey}, nil
}

// List is the devices file as read.
type List struct{ devices []Device }

// file is the devices file in the configuration directory dir.
func file(dir string) tsvconf.File {
	return tsvconf.File{Path: paths.ConfigDir(dir).Devices(), What: "devices list", Kind: "devices list", Header: header,
		Comment: "NAME<TAB>AGE-RECIPIENT<TAB>SIGNING-KEY; managed by 'session-handoff devices'",
		MaxSize: MaxFileSize, Perm: 0o600}
}

// Load reads the devices paired in the configuration directory dir; a
// missing file is none.
func Load(dir string) (*List, error) {
	l := &List{}
	seen := map[string]bool{}
	err := file(dir).Read(func(f []string) error {
		if len(f) != 3 {
			return errors.New("want NAME, AGE-RECIPIENT and SIGNING-KEY separated by tabs")
		}
		d, err := New(f[0], f[1], f[2])
		if err != nil {
			return err
		}
		if seen[d.Name] {
			return fmt.Errorf("%s is listed twice", d.Name)
		}
		if len(l.devices) >= MaxDevices {
			return fmt.Errorf("more than %d devices", MaxDevices)
		}
		seen[d.Name] = true
		l.devices = append(l.devices, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// All returns the devices sorted by name.
func (l *List) All() []Device {
	out := append([]Device(nil), l.devices...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a device by name.
func (l *List) Lookup(name string) (Device, bool) {
	for _, d := range l.devices {
		if d.Name == name {
			return d, true
		}
	}
	return Device{}, false
}

// Fingerprints are the fingerprints of the devices' signing keys.
func (l *List) Fingerprints() []string {
	var out []string
	for _, d := range l.devices {
		out = append(out, d.Fingerprint())
	}
	return out
}

// Recipients are the devices as the recipients of a bundle.
func (l *List) Recipients() ([]crypto.RecipientInfo, error) {
	var out []crypto.RecipientInfo
	for _, d := range l.All() {
		ri, err := d.RecipientInfo()
		if err != nil {
			return nil, fmt.Errorf("device %s: %w", d.Name, err)
		}
		out = append(out, ri)
	}
	return out, nil
}

func (l *List) records() [][]string {
	var out [][]string
	for _, d := range l.All() {
		out = append(out, []string{d.Name, d.Recipient, d.SigningKey})
	}
	return out
}

// Add pairs d: it is added to the devices list of the configuration
// directory dir, and its signing key is pinned in the trust store under
// d.Principal(). It returns the device as paired, and added false when it
// was paired already. Pairing the same text again changes nothing: the
// same keys under another name are the device paired already, unless
// named says the user chose that name (--as), which is refused
// (ErrExists), as is a name paired with other keys: 'devices rm' first.
func Add(dir string, d Device, named bool) (paired Device, added bool, err error) {
	key, err := crypto.ParsePublicKey(d.SigningKey)
	if err != nil {
		return Device{}, false, err
	}
	err = file(dir).Update(func() ([][]string, error) {
		l, err := Load(dir)
		if err != nil {
			return nil, err
		}
		paired = d
		for _, o := range l.devices {
			if !named && o.SigningKey == d.SigningKey && o.Recipient == d.Recipient {
				// The name in a text is the other machine's own
				// suggestion: this device, paired as o.Name.
				paired = o
			}
		}
		d := paired
		for _, o := range l.devices {
			switch {
			case o == d:
			case o.Name == d.Name:
				return nil, fmt.Errorf("%s: %w with other keys (%s)", d.Name, ErrExists, o.Fingerprint())
			case o.SigningKey == d.SigningKey || o.Recipient == d.Recipient:
				return nil, fmt.Errorf("these keys: %w as %s", ErrExists, o.Name)
			}
		}
		if _, ok := l.Lookup(paired.Name); !ok {
			if len(l.devices) >= MaxDevices {
				return nil, fmt.Errorf("%d devices are paired already", MaxDevices)
			}
			l.devices = append(l.devices, paired)
			added = true
		}
		// Pinned even when listed already: a crash between the two
		// writes is mended by pairing again.
		err = crypto.UpdateTrustStore(paths.ConfigDir(dir).Trust(), func(ts *crypto.TrustStore) error { return ts.Pin(paired.Principal(), key) })
		return l.records(), err
	})
	if err != nil {
		return Device{}, false, err
	}
	return paired, added, nil
}

// Remove unpairs the device named name: it leaves the list, and its key's
// trust under its principal leaves the trust store. It returns the device
// removed.
func Remove(dir, name string) (Device, error) {
	var gone Device
	err := file(dir).Update(func() ([][]string, error) {
		l, err := Load(dir)
		if err != nil {
			return nil, err
		}
		d, ok := l.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("%s: %w", untrusted.Quote(name, MaxName), ErrUnknown)
		}
		gone = d
		l.devices = slices.DeleteFunc(l.devices, func(o Device) bool { return o == d })
		err = crypto.UpdateTrustStore(paths.ConfigDir(dir).Trust(), func(ts *crypto.TrustStore) error {
			_, err := ts.Remove(d.Principal())
			return err
		})
		return l.records(), err
	})
	return gone, err
}

// SelfName is this machine's own name in its pairing text, as 'devices
// add --name' last gave it and SetSelfName kept it in the configuration
// directory dir: "" when none was given (the host name is used).
func SelfName(dir string) (string, error) {
	path := paths.ConfigDir(dir).DeviceName()
	data, err := safefile.ReadFile(path, MaxName+1)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read this device's name: %w", err)
	}
	name := strings.TrimSuffix(string(data), "\n")
	if err := people.CheckDeviceName(name); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return name, nil
}

// SetSelfName keeps name as this machine's own name in its pairing texts
// from now on, so that the text it answers a pairing with names it as the
// other machine was told (a one-line file, written atomically).
func SetSelfName(dir, name string) error {
	if err := people.CheckDeviceName(name); err != nil {
		return err
	}
	if old, err := SelfName(dir); err == nil && old == name {
		return nil
	}
	return safefile.WriteFile(paths.ConfigDir(dir).DeviceName(), []byte(name+"\n"), 0o600)
}
