package main

import (
	"bytes"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/session-handoff/session-handoff/internal/legacy/oldtools"
)

// The stories legacy_*.txtar start from files the earlier tools wrote.
// The 'oldtool' command writes them as those tools did, byte for byte
// (package oldtools follows each tool's own writer: session-handoff
// v0.7.5's writeStore, export and encryptBundle; agent-handover 0.1.0's
// MemoryStore.write and Checkpoint._save; agent-handoff 0.1.0's files as
// its README describes them, its code not being published with it):
//
//	oldtool store FILE                     handoffs.json with oldItems
//	oldtool bundle v1|v2|v3 FILE [N]       export --format json of item N (default 0); v3 signed by wregen
//	oldtool bundle v3-badsig|v3-nosig FILE a v3 bundle v0.7.5 would refuse
//	oldtool encrypt IN OUT PASSPHRASE      export --passphrase of bundle IN
//	oldtool memory DIR                     agent-handover's memory/ of two weeks
//	oldtool checkpoint FILE STATUS         .agent-handover/checkpoint.json, in_progress or completed
//	oldtool soul DIR                       agent-handoff's SOUL.md, MEMORY.md, HANDOFF.md
func cmdOldTool(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: oldtool store|bundle|encrypt|memory|checkpoint|soul ARGS…")
	}
	write := func(name string, data []byte) {
		p := ts.MkAbs(name)
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, data, 0o644))
	}
	switch args[0] {
	case "store":
		write(args[1], oldtools.StoreFile(oldItems()))
	case "bundle":
		if len(args) < 3 {
			ts.Fatalf("usage: oldtool bundle v1|v2|v3|v3-badsig|v3-nosig FILE [N]")
		}
		n := 0
		if len(args) == 4 {
			n = int(args[3][0] - '0')
		}
		write(args[2], oldBundle(ts, args[1], oldItems()[n]))
	case "encrypt":
		if len(args) != 4 {
			ts.Fatalf("usage: oldtool encrypt IN OUT PASSPHRASE")
		}
		in, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		// v0.7.5 drew the salt and nonce at random; fixed here.
		write(args[2], oldtools.Encrypt(in, args[3], []byte("0123456789abcdef"), []byte("unique nonce")))
	case "memory":
		for _, f := range oldMemory() {
			p, data := oldtools.MemoryFile(f.layer, f.content, f.tag, f.date)
			write(filepath.Join(args[1], p), data)
		}
	case "checkpoint":
		if len(args) != 3 {
			ts.Fatalf("usage: oldtool checkpoint FILE in_progress|completed")
		}
		steps := []oldtools.CheckpointStep{{Name: "session_note", State: "done"}, {Name: "current_state", State: "pending"}, {Name: "publish", State: "pending"}}
		finished := ""
		if args[2] == "completed" {
			for i := range steps {
				steps[i].State = "done"
			}
			finished = "2026-03-05T09:01:02.654321+00:00"
		}
		write(args[1], oldtools.Checkpoint(args[2], steps, "2026-03-05T09:00:00.123456+00:00", finished))
	case "soul":
		for name, text := range oldtools.AgentHandoffFiles("mycoolbot") {
			write(filepath.Join(args[1], name), []byte(text))
		}
	default:
		ts.Fatalf("oldtool: unknown kind %q", args[0])
	}
}

// oldItems are the handoffs of the v0.7.5 stories, saved as its cmdSave
// did: two in the same second (ids 20260312-101112 and -002), tool names
// as typed, a rename in the changed files, a summary with the characters
// encoding/json escapes, and text only in the next steps to search for.
func oldItems() []oldtools.Record {
	at := time.Date(2026, 3, 12, 10, 11, 12, 0, time.UTC)
	a := oldtools.NewRecord(nil, at, "codex", "/home/wregen/repos/my-app", "Refactor auth middleware",
		"Extracted token parser, tests still failing on refresh flow", []string{"Fix refresh test matrix", "Run race tests"},
		[]string{"auth/old_parser.go -> auth/parser.go", "auth/token.go"})
	b := oldtools.NewRecord([]string{a.ID}, at, "Claude Code", "/home/wregen/repos/my-app", "Document the API",
		"Docs for <Token> & <Session> drafted", []string{"Ask Ana about the ZEBRA-7 rollout"}, nil)
	c := oldtools.NewRecord(nil, at.Add(26*time.Hour), "Cursor", "/home/wregen/repos/site", "Tidy CI",
		"Pinned staticcheck", []string{"Remove the flaky e2e job"}, []string{"ci.yml"})
	return []oldtools.Record{a, b, c}
}

// oldSignKey is the key wregen signed v3 bundles with.
var oldSignKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{42}, 32))

func oldBundle(ts *testscript.TestScript, kind string, rec oldtools.Record) []byte {
	switch kind {
	case "v1":
		return oldtools.BundleV1(rec)
	case "v2":
		return oldtools.BundleV2(rec)
	case "v3":
		return oldtools.BundleV3(rec, oldSignKey, "wregen")
	case "v3-badsig":
		// One byte of the signature changed: v0.7.5 said "bundle
		// signature verification failed".
		b := oldtools.BundleV3(rec, oldSignKey, "wregen")
		i := bytes.Index(b, []byte(`"signature": "`)) + len(`"signature": "`)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return b
	case "v3-nosig":
		// Version 3 without signer and signature: v0.7.5 said "import
		// bundle missing signature metadata".
		b := oldtools.BundleV2(rec)
		return bytes.Replace(b, []byte(`"version": 2`), []byte(`"version": 3`), 1)
	}
	ts.Fatalf("oldtool bundle: unknown kind %q", kind)
	return nil
}

// oldMemoryFile is one MemoryStore.write call.
type oldMemoryFile struct {
	layer              int
	content, tag, date string
}

// oldMemory is an agent-handover memory folder: notes of two days (two
// tags on one day, one of them written as "api/auth", which the tool made
// api-auth), the current state, and a layer-3 archive.
func oldMemory() []oldMemoryFile {
	return []oldMemoryFile{
		{1, "Fixed the login redirect.\n", "refactor", "2026-02-02"},
		{1, "Token parser extracted; refresh flow failing.\n", "api/auth", "2026-03-04"},
		{1, "Rate limiter next.\n", "refactor", "2026-03-04"},
		{2, "# Where we are\n\nAuth refactor half done; see layer1 notes.\n", "general", "2026-03-04"},
		{3, "January: chose JWT over sessions.\n", "refactor", "2026-01-31"},
	}
}
