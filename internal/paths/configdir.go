package paths

import "path/filepath"

// PauseFile is the name of the handover kill switch, in a ConfigDir (every
// project) or in a project's root (that project only).
const PauseFile = "PAUSE"

// ConfigDir is the directory of keys, trust and configuration (Config, or
// the one --keys names). It is the one place that names the files in it;
// each method returns the path of one.
type ConfigDir string

// SigningKey is the OpenSSH private signing key.
func (d ConfigDir) SigningKey() string { return d.file("signing_key") }

// SigningPublicKey is the public half of SigningKey, beside it.
func (d ConfigDir) SigningPublicKey() string { return d.SigningKey() + ".pub" }

// AgeIdentity is the age X25519 identity that decrypts bundles sent here.
func (d ConfigDir) AgeIdentity() string { return d.file("age_identity.txt") }

// Trust is the allowed_signers trust store.
func (d ConfigDir) Trust() string { return d.file("allowed_signers") }

// RedactPatterns holds the user's own redaction patterns.
func (d ConfigDir) RedactPatterns() string { return d.file("redact-patterns") }

// People is the address book.
func (d ConfigDir) People() string { return d.file("people") }

// Devices lists my other machines, paired with 'devices add'.
func (d ConfigDir) Devices() string { return d.file("devices") }

// DeviceName is this machine's name as a device of mine, as 'devices
// add --name' last gave it.
func (d ConfigDir) DeviceName() string { return d.file("device-name") }

// Sync says which projects are kept in step with my other machines.
func (d ConfigDir) Sync() string { return d.file("sync") }

// Remotes lists the configured remotes.
func (d ConfigDir) Remotes() string { return d.file("remotes") }

// HandoverApprovals lists the project configurations approved for
// handover runs.
func (d ConfigDir) HandoverApprovals() string { return d.file("handover-approved") }

// Pause is the kill switch that stops handover runs in every project.
func (d ConfigDir) Pause() string { return d.file(PauseFile) }

func (d ConfigDir) file(name string) string { return filepath.Join(string(d), name) }
