package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// transcriptCorpus returns about size bytes of JSONL shaped like a Claude
// Code transcript: user requests, assistant prose with code, tool calls
// (Bash, Read, Edit) and their results (test output, file contents, git log,
// JSON), usage blocks. It is mostly benign: words like token, key, password,
// auth and secret occur often in code and prose, URLs are common, and one
// line in about every secretEvery carries a real-shaped fake secret.
func transcriptCorpus(size int, secretEvery int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	hex := func(n int) string {
		const digits = "0123456789abcdef"
		s := make([]byte, n)
		for i := range s {
			s[i] = digits[rng.IntN(16)]
		}
		return string(s)
	}
	alnum := func(n int) string {
		const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		s := make([]byte, n)
		for i := range s {
			s[i] = digits[rng.IntN(len(digits))]
		}
		return string(s)
	}
	prose := []string{
		"I'll refactor the token parser so that refresh tokens are validated before the access token is issued.",
		"The tests in auth/middleware_test.go still fail because the key rotation is not applied to cached sessions.",
		"Let me check how the password reset flow stores its one-time codes; they should expire after 15 minutes.",
		"Run `go test ./...` again after the change. The secret manager client is mocked in tests.",
		"The API key is read from the environment at start-up, never from the config file, see internal/config/load.go:42.",
		"Basic usage of the CLI is documented in README.md; the bearer of a session cookie gets read access only.",
		"Looking at https://github.com/session-handoff/session-handoff/blob/main/docs/FORMAT.md#redactions for the schema.",
		"Committed as 3f9c2a1 (fix: keep ordering of keys in the index). The risk-based retry task-list is in TODO.md.",
		"We store the sha256 of every blob; the manifest lists name, media type, size and hash.",
		"The lexer emits a token for each keyword; the parser consumes tokens until EOF.",
	}
	code := []string{
		"func (s *Server) authenticate(r *http.Request) (*User, error) {\n\ttoken := r.Header.Get(\"Authorization\")\n\tif token == \"\" {\n\t\treturn nil, errNoToken\n\t}\n\tclaims, err := s.keys.Verify(strings.TrimPrefix(token, \"Bearer \"))\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"verify token: %w\", err)\n\t}\n\treturn s.users.Get(claims.Subject)\n}\n",
		"def reset_password(user, new_password):\n    if len(new_password) < 12:\n        raise ValueError(\"password too short\")\n    user.password_hash = hasher.hash(new_password)\n    user.save()\n",
		"const config = {\n  apiKey: process.env.API_KEY,\n  secret: process.env.APP_SECRET,\n  timeoutMs: 5000,\n  retries: 3,\n};\nexport default config;\n",
		"type Config struct {\n\tAPIKey   string `json:\"api_key\"`\n\tPassword string `json:\"password\"`\n\tTokenTTL time.Duration `json:\"token_ttl\"`\n}\n",
		"for key, value := range m {\n\tkeys = append(keys, key)\n\tfmt.Printf(\"%s=%v\\n\", key, value)\n}\nsort.Strings(keys)\n",
		"  - name: Run tests\n    env:\n      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n    run: go test -race ./...\n",
	}
	outputs := []string{
		"=== RUN   TestTokenRefresh\n--- PASS: TestTokenRefresh (0.01s)\n=== RUN   TestKeyRotation\n--- FAIL: TestKeyRotation (0.02s)\n    keys_test.go:88: got 2 keys, want 3\nFAIL\nexit status 1\nFAIL\tgithub.com/acme/auth\t0.412s\n",
		"total 48\ndrwxr-xr-x  6 dev dev 4096 Mar  2 10:14 .\n-rw-r--r--  1 dev dev 1289 Mar  2 10:14 go.mod\n-rw-r--r--  1 dev dev 5120 Mar  2 10:14 token.go\n-rw-r--r--  1 dev dev 2210 Mar  2 10:14 password.go\n",
		"{\"id\": \"550e8400-e29b-41d4-a716-446655440000\", \"name\": \"build\", \"status\": \"completed\", \"conclusion\": \"success\", \"head_sha\": \"HEADSHA\"}\n",
		"ok  \tgithub.com/acme/auth/internal/keys\t0.120s\nok  \tgithub.com/acme/auth/internal/session\t0.087s\n?   \tgithub.com/acme/auth/cmd/authd\t[no test files]\n",
	}
	secrets := []string{
		"export GITHUB_TOKEN=ghp_" + "SECRET36",
		"curl -H \"Authorization: Bearer sk-proj-" + "SECRET48" + "\" https://api.openai.com/v1/models",
		"DATABASE_URL=postgres://app:" + "PASS12" + "@db.internal:5432/app",
		"aws_secret_access_key = " + "SECRET40",
	}
	req := 0
	for b.Len() < size {
		req++
		ts := fmt.Sprintf("2026-03-%02dT%02d:%02d:%02dZ", 1+req%28, req%24, req%60, (req*7)%60)
		uuid := fmt.Sprintf("%s-%s-4%s-8%s-%s", hex(8), hex(4), hex(3), hex(3), hex(12))
		var line map[string]any
		switch rng.IntN(4) {
		case 0:
			text := prose[rng.IntN(len(prose))] + " " + prose[rng.IntN(len(prose))]
			line = map[string]any{"type": "user", "timestamp": ts, "uuid": uuid, "sessionId": "s1", "cwd": "/home/dev/src/auth", "gitBranch": "feat/token-refresh",
				"message": map[string]any{"role": "user", "content": text}}
		case 1:
			text := prose[rng.IntN(len(prose))] + "\n\n```go\n" + code[rng.IntN(len(code))] + "```\n" + prose[rng.IntN(len(prose))]
			line = map[string]any{"type": "assistant", "timestamp": ts, "uuid": uuid, "requestId": "req_" + alnum(24),
				"message": map[string]any{"id": "msg_" + alnum(24), "role": "assistant", "model": "claude-sonnet-4-5",
					"content": []any{map[string]any{"type": "text", "text": text}},
					"usage":   map[string]any{"input_tokens": rng.IntN(5000), "cache_read_input_tokens": rng.IntN(90000), "output_tokens": rng.IntN(2000), "service_tier": "standard"}}}
		case 2:
			cmd := []string{"go test ./...", "git log --oneline -5", "ls -la", "go vet ./internal/keys/", "grep -rn token internal/"}[rng.IntN(5)]
			line = map[string]any{"type": "assistant", "timestamp": ts, "uuid": uuid,
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + alnum(24), "name": "Bash",
					"input": map[string]any{"command": cmd, "description": "Run the checks"}}},
					"usage": map[string]any{"input_tokens": rng.IntN(5000), "output_tokens": rng.IntN(2000)}}}
		default:
			var out strings.Builder
			for range 1 + rng.IntN(6) {
				o := outputs[rng.IntN(len(outputs))]
				out.WriteString(strings.ReplaceAll(o, "HEADSHA", hex(40)))
			}
			for range rng.IntN(3) {
				fmt.Fprintf(&out, "%s %s\n", hex(7), prose[rng.IntN(len(prose))][:40])
			}
			if secretEvery > 0 && rng.IntN(secretEvery) == 0 {
				s := secrets[rng.IntN(len(secrets))]
				s = strings.ReplaceAll(s, "SECRET36", alnum(36))
				s = strings.ReplaceAll(s, "SECRET48", alnum(48))
				s = strings.ReplaceAll(s, "SECRET40", alnum(40))
				s = strings.ReplaceAll(s, "PASS12", alnum(12))
				out.WriteString(s + "\n")
			}
			line = map[string]any{"type": "user", "timestamp": ts, "uuid": uuid,
				"message":       map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + alnum(24), "content": out.String(), "is_error": false}}},
				"toolUseResult": map[string]any{"stdout": out.String(), "stderr": "", "interrupted": false}}
		}
		j, err := json.Marshal(line)
		if err != nil {
			panic(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
