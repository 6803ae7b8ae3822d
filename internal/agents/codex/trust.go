package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/session-handoff/session-handoff/internal/agent"
)

// Hook is one command hook of a Codex hooks.json, as Codex keys and
// hashes it to decide whether the user trusts it.
type Hook struct {
	// Key is Codex's name for it: "<hooks.json path>:<event>:<group>:<handler>",
	// event in snake case (session_start), group and handler the
	// positions in the file.
	Key string
	// Event is the event as hooks.json names it (SessionStart).
	Event string
	// Command is the hook's command line.
	Command string
	// Hash is what trusting it stores: the key's trusted_hash under
	// [hooks.state] in config.toml.
	Hash string
}

// Hooks lists the command hooks of the hooks.json at path (its
// absolute path, which the keys hold), text being its content.
//
// Codex runs a hook that is not managed only when config.toml holds
// [hooks.state."KEY"] trusted_hash equal to the hook's current hash; its
// /hooks screen stores that when the user trusts it. The hash is the
// SHA-256, as "sha256:HEX", of the canonical JSON (keys sorted, compact,
// no field that is unset) of {event_name, matcher, hooks: [the one
// handler]}, the handler normalised: timeout 600 when unset and at least
// 1, async false when unset (openai/codex codex-rs/hooks/src/engine/discovery.rs,
// command_hook_hash; codex-rs/config/src/fingerprint.rs, version_for_toml;
// checked against the currentHash that @openai/codex@0.169.0's app-server
// reports in hooks/list).
func Hooks(path string, text []byte) ([]Hook, error) {
	var file struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string  `json:"type"`
				Command       string  `json:"command"`
				Timeout       *int64  `json:"timeout"`
				Async         bool    `json:"async"`
				StatusMessage *string `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(text, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []Hook
	for event, groups := range file.Hooks {
		label := snakeCase(event)
		for gi, g := range groups {
			for hi, h := range g.Hooks {
				if h.Type != "command" || strings.TrimSpace(h.Command) == "" {
					continue
				}
				timeout := int64(600)
				if h.Timeout != nil {
					timeout = max(*h.Timeout, 1)
				}
				handler := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
				if h.StatusMessage != nil {
					handler["statusMessage"] = *h.StatusMessage
				}
				identity := map[string]any{"event_name": label, "hooks": []any{handler}}
				if g.Matcher != nil {
					identity["matcher"] = *g.Matcher
				}
				hash, err := canonicalHash(identity)
				if err != nil {
					return nil, err
				}
				out = append(out, Hook{
					Key:   fmt.Sprintf("%s:%s:%d:%d", path, label, gi, hi),
					Event: event, Command: h.Command, Hash: hash,
				})
			}
		}
	}
	return out, nil
}

// canonicalHash is "sha256:HEX" of v as compact JSON with sorted keys and
// no HTML escaping, which is how serde_json writes it.
func canonicalHash(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// snakeCase turns an event name (SessionStart) into Codex's key label
// (session_start).
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TrustedHashes reads the trusted hashes a Codex config.toml holds,
// by hook key ([hooks.state."KEY"] trusted_hash).
func TrustedHashes(configText []byte) (map[string]string, error) {
	var cfg struct {
		Hooks struct {
			State map[string]struct {
				TrustedHash string `toml:"trusted_hash"`
			} `toml:"state"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(configText), &cfg); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, s := range cfg.Hooks.State {
		if s.TrustedHash != "" {
			out[k] = s.TrustedHash
		}
	}
	return out, nil
}

// hookTrust is doctor's check (agent.Agent.HookTrust): our hooks in the
// Codex hooks.json files that Codex does not run because config.toml
// holds no trusted hash for them, or another one (the hook changed since
// it was trusted). Codex skips an untrusted hook without a word.
func hookTrust(c agent.TrustCheck) (*agent.Distrust, error) {
	if len(c.Dirs) == 0 {
		return nil, nil
	}
	cfgPath := filepath.Join(c.Dirs[0], "config.toml")
	cfg, err := c.Read(cfgPath)
	if err != nil {
		return nil, err
	}
	trusted, err := TrustedHashes(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	var untrusted []string
	for _, f := range c.Installed {
		text, err := c.Read(f)
		if err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, err
		}
		hooks, err := Hooks(abs, text)
		if err != nil {
			return nil, err
		}
		for _, h := range hooks {
			_, ours, found := strings.Cut(h.Command, " hook "+Name+" ")
			if found && trusted[h.Key] != h.Hash {
				untrusted = append(untrusted, ours+" ("+h.Event+" in "+f+")")
			}
		}
	}
	if len(untrusted) == 0 {
		return nil, nil
	}
	slices.Sort(untrusted)
	return &agent.Distrust{
		Detail: "installed in " + strings.Join(c.Installed, " and ") + ", but not trusted (new, or changed since trusted), so Codex does not run them: " + strings.Join(untrusted, ", "),
		Fix:    "start codex, type /hooks and trust the session-handoff hooks",
	}, nil
}
