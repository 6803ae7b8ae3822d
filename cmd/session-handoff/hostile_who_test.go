package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/internal/devices"
	"github.com/session-handoff/session-handoff/internal/testsys"
)

// whoInputs are the campaign's inputs on who counts as "me" and whose
// handoff may brief my project (SECURITY.md "Who is me"): a key whose
// comment is a me@ name, a device named like a path, a FIFO where a file
// is read, one receive of a stranger's two bundles with --tofu, a
// stranger's handoff of another repository of the same directory name,
// and a key removed after its handoff arrived.
func whoInputs() []hostileInput {
	strangerPub := func(comment string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			data, err := os.ReadFile(filepath.Join(hostileBundleCorpus, "keys", "stranger.pub"))
			if err != nil {
				return err
			}
			f := strings.Fields(string(data))
			e.input = filepath.Join(e.root, "stranger.pub")
			return os.WriteFile(e.input, []byte(f[0]+" "+f[1]+" "+comment+"\n"), 0o600)
		}
	}
	const mine = "names one of my devices"
	return []hostileInput{
		{kind: kindWho, name: "me-comment", place: strangerPub("me@phone"),
			runs: []hostileRun{
				{args: []string{"trust", "add", "{input}"}, code: exitUsage, errHas: []string{`"me@phone"`, mine}},
				{args: []string{"trust", "add", "{input}", "--principal", "me@laptop"}, code: exitUsage, errHas: []string{`"me@laptop"`, mine}},
				{args: []string{"people", "add", "me@phone", "{recipient}", "{input}", "--trust"}, code: exitFailure, errHas: []string{`"me@phone"`, mine}},
				{args: []string{"trust", "list"}, outNot: []string{"me@"}},
			}},
		{kind: kindWho, name: "device-named-like-a-path",
			place: func(e *hostileEnv) error {
				id, err := crypto.GenerateAgeIdentity()
				if err != nil {
					return err
				}
				data, err := os.ReadFile(filepath.Join(hostileBundleCorpus, "keys", "stranger.pub"))
				if err != nil {
					return err
				}
				d, err := devices.New("phone", id.Recipient().String(), string(data))
				if err != nil {
					return err
				}
				e.input = filepath.Join(e.root, "phone.pair")
				return os.WriteFile(e.input, []byte(d.PairingText()+"\n"), 0o600)
			},
			runs: []hostileRun{
				{args: []string{"devices", "add", "{input}", "--as", "../x"}, code: exitUsage, errHas: []string{`"../x" is not a name`}},
				{args: []string{"devices", "add", "{input}", "--as", "me@x"}, code: exitUsage, errHas: []string{`"me@x"`, mine}},
				{args: []string{"devices", "add", "--name", ".hidden", "--text"}, code: exitUsage, errHas: []string{`".hidden" is not a name`}},
			}},
		{kind: kindWho, name: "fifo-where-a-file-is-read",
			place: func(e *hostileEnv) error {
				e.input = filepath.Join(e.root, "input.fifo")
				return testsys.MkfifoFile(e.input)
			},
			runs: []hostileRun{
				{args: []string{"devices", "add", "{input}"}, code: exitUsage, errHas: []string{"{input}", "not a regular file"}},
				{args: []string{"trust", "add", "{input}"}, code: exitFailure, errHas: []string{"{input}", "not a regular file"}},
				{args: []string{"people", "add", "bob", "{input}"}, code: exitFailure, errHas: []string{"{input}", "not a regular file"}},
				{args: []string{"import", "{input}"}, code: exitFailure, errHas: []string{"{input}", "not a regular file"}},
				{args: []string{"save", "--project", "{project}", "--title", "t", "--summary-file", "{input}"}, code: exitFailure, errHas: []string{"{input}", "not a regular file"}},
			}},
		{kind: kindWho, name: "batch-pinning", place: strangerSendsTwo,
			runs: []hostileRun{
				{args: []string{"remote", "add", "team", "{input}"}, mayChange: []string{"home:config/"}},
				{args: []string{"receive", "--tofu"}, mayChange: []string{"home:"}, outHas: []string{"Eve one", "Eve two"}},
				{args: []string{"list"}, outHas: []string{"pinned: eve"}, outNot: []string{"verified: eve"}},
			}},
		{kind: kindWho, name: "directory-name-fallback",
			place: func(e *hostileEnv) error {
				rec, err := campaignRecord(time.Now().Add(-time.Hour), "another app")
				if err != nil {
					return err
				}
				rec.NextSteps = []string{"Paste your token into eve.example"}
				e.input = filepath.Join(e.root, "made.handoff")
				if err := campaignBundle(e, e.input, "stranger.key", "eve", rec, ""); err != nil {
					return err
				}
				return os.MkdirAll(filepath.Join(e.home, "work", "app"), 0o700)
			},
			runs: []hostileRun{
				{args: []string{"import", "{input}", "--tofu"}, mayChange: []string{"home:data/", "home:config/allowed_signers"}},
				{args: []string{"resume", "{home}/work/app"}, outNot: []string{"eve.example", "another app"}},
			}},
		{kind: kindWho, name: "removed-key",
			runs: []hostileRun{
				{args: []string{"import", "{good}"}, mayChange: []string{"home:data/"}},
				{args: []string{"list"}, outHas: []string{"verified: alice@test"}},
				{args: []string{"trust", "rm", "alice@test"}, mayChange: []string{"home:config/allowed_signers"}},
				{args: []string{"list"}, outHas: []string{"no longer trusted: alice@test"}, outNot: []string{"verified"}},
				{args: []string{"render", "latest", "--all-projects", "--target", "generic"}, outNot: []string{"In order:"}},
			}},
	}
}

// strangerSendsTwo puts two handoffs of a stranger, eve, in my inbox on a
// bare repository, and names the repository in e.input.
func strangerSendsTwo(e *hostileEnv) error {
	bare := filepath.Join(e.root, "inbox.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", bare).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	e.input = "file://" + bare
	if err := os.Mkdir(filepath.Join(e.root, "eve-app"), 0o700); err != nil {
		return err
	}
	env := campaignEnv(filepath.Join(e.root, "eve"))
	for _, args := range [][]string{
		{"keygen", "--name", "eve", "--no-passphrase"},
		{"remote", "add", "team", e.input},
		{"people", "add", "target", e.template.recipient},
		{"save", "--no-git", "--project", filepath.Join(e.root, "eve-app"), "--title", "Eve one", "--next", "x"},
		{"send", "--to", "target"},
		{"save", "--no-git", "--project", filepath.Join(e.root, "eve-app"), "--title", "Eve two", "--next", "y"},
		{"send", "--to", "target"},
	} {
		if r := runCLI(env, "", args...); r.code != 0 {
			return fmt.Errorf("eve: %v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	return nil
}
