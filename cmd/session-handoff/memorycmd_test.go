package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/memory"
)

func TestMemoryWriteShow(t *testing.T) {
	env := testEnv(t)
	dir := filepath.Join(t.TempDir(), "memory")
	if _, errOut, code := runCase(t, env, "", "memory init", func(a *app) error {
		return runMemoryInit(a, memoryInitOptions{dir: dir, name: "Aria"})
	}); code != 0 {
		t.Fatal(errOut)
	}
	note := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(note, []byte("from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(o memoryWriteOptions) func(*app) error {
		o.dir = dir
		return func(a *app) error { return runMemoryWrite(a, o) }
	}
	l1 := func(tag string) memory.Note { return memory.Note{Layer: 1, Tag: tag, Date: "2026-03-05"} }
	notePath := filepath.Join(dir, "layer1", "2026-03", "api-2026-03-05.md")
	for _, tc := range []struct {
		name     string
		stdin    string
		opts     memoryWriteOptions
		code     int
		out, err string
	}{
		{"from standard input", "fixed the redirect\n", memoryWriteOptions{note: l1("api"), args: []string{"-"}}, 0, "wrote " + notePath + "\n", ""},
		{"from a file, same day appends", "", memoryWriteOptions{note: l1("api"), file: note}, 0, "wrote " + notePath + "\n", ""},
		{"with a key", "keyed\n", memoryWriteOptions{note: memory.Note{Layer: 1, Tag: "api", Date: "2026-03-05", Key: "k1"}, args: []string{"-"}}, 0, "wrote ", ""},
		{"the same key again", "keyed\n", memoryWriteOptions{note: memory.Note{Layer: 1, Tag: "api", Date: "2026-03-05", Key: "k1"}, args: []string{"-"}}, 0,
			notePath + " holds an entry with key k1 already; nothing written\n", ""},
		{"the current state", "all green\n", memoryWriteOptions{note: memory.Note{Layer: 2}, args: []string{"-"}}, 0, "wrote " + filepath.Join(dir, "layer2", "current-state.md") + "\n", ""},
		{"no layer", "x\n", memoryWriteOptions{args: []string{"-"}}, 2, "", "session-handoff: memory write: --layer is required: 1 (notes), 2 (current state) or 3 (archive)\n"},
		{"layer 1 without a tag: the general note", "x\n", memoryWriteOptions{note: memory.Note{Layer: 1, Date: "2026-03-05"}, args: []string{"-"}}, 0, "wrote " + filepath.Join(dir, "layer1", "2026-03", "general-2026-03-05.md") + "\n", ""},
		{"a tag to clean", "x\n", memoryWriteOptions{note: memory.Note{Layer: 1, Tag: "api/Auth", Date: "2026-03-05"}, args: []string{"-"}}, 0, "wrote " + filepath.Join(dir, "layer1", "2026-03", "api-Auth-2026-03-05.md") + "\n", "note: tag \"api/Auth\" written as \"api-Auth\"\n"},
		{"a bad tag", "x\n", memoryWriteOptions{note: l1("../x"), args: []string{"-"}}, 2, "", "session-handoff: memory write: --tag \"../x\""},
		{"a tag on layer 2", "x\n", memoryWriteOptions{note: memory.Note{Layer: 2, Tag: "api"}, args: []string{"-"}}, 2, "", "session-handoff: memory write: layer 2 takes no --tag and no --key\n"},
		{"no text", "", memoryWriteOptions{note: l1("api")}, 2, "", "session-handoff: memory write: no text: give --file F, or \"-\" to read standard input\n"},
		{"both --file and -", "x\n", memoryWriteOptions{note: l1("api"), file: note, args: []string{"-"}}, 2, "", "session-handoff: memory write: give --file or \"-\", not both\n"},
		{"empty text", "  \n", memoryWriteOptions{note: l1("api"), args: []string{"-"}}, 1, "", "session-handoff: memory write: standard input: text is empty\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(notePath)
			out, errOut, code := runCase(t, env, tc.stdin, "memory write", write(tc.opts))
			if code != tc.code || !strings.HasPrefix(out, tc.out) || tc.out == "" && out != "" || !strings.HasPrefix(errOut, tc.err) || tc.err == "" && errOut != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q…", code, out, errOut, tc.code, tc.out, tc.err)
			}
			after, _ := os.ReadFile(notePath)
			if tc.code != 0 && string(after) != string(before) {
				t.Fatalf("a refused write changed %s", notePath)
			}
		})
	}
	data, err := os.ReadFile(notePath)
	if err != nil || !strings.Contains(string(data), "fixed the redirect") || !strings.Contains(string(data), "from a file") || strings.Count(string(data), "keyed") != 1 {
		t.Fatalf("the note holds %q (%v)", data, err)
	}

	show := func(o memoryShowOptions) func(*app) error {
		if o.dir == "" {
			o.dir = dir
		}
		return func(a *app) error { return runMemoryShow(a, o) }
	}
	out, errOut, code := runCase(t, env, "", "memory show", show(memoryShowOptions{layer: 1, json: true}))
	var files []memory.File
	if err := json.Unmarshal([]byte(out), &files); code != 0 || err != nil || len(files) != 3 || files[0].Tag != "api" || files[0].Entries != 3 || files[2].Tag != "general" {
		t.Fatalf("show --layer 1 --json: exit %d, %v, stdout %q, stderr %q", code, err, out, errOut)
	}
	for _, tc := range []struct {
		name     string
		opts     memoryShowOptions
		code     int
		out, err string
	}{
		{"the current state", memoryShowOptions{layer: 2}, 0, "all green\n", ""},
		{"a file", memoryShowOptions{file: "layer2/current-state.md"}, 0, "all green\n", ""},
		{"the list", memoryShowOptions{}, 0, "LAYER", ""},
		{"a tag that matches nothing", memoryShowOptions{tag: "web"}, 0, "", "no memory files in " + dir + " match\n"},
		{"a file and a filter", memoryShowOptions{file: "layer2/current-state.md", layer: 2, filtered: true}, 2, "", "session-handoff: memory show: give a FILE or --layer/--tag, not both\n"},
		{"a bad layer", memoryShowOptions{layer: 4}, 2, "", "session-handoff: memory show: --layer 4: want 1, 2 or 3\n"},
		{"a tag on layer 2", memoryShowOptions{layer: 2, tag: "api"}, 2, "", "session-handoff: memory show: layer 2 has no tags\n"},
		{"a path outside", memoryShowOptions{file: "../../etc/passwd"}, 1, "", "session-handoff: memory show: "},
		{"no memory directory", memoryShowOptions{dir: filepath.Join(dir, "none"), layer: 2}, 1, "", "session-handoff: memory show: "},
	} {
		t.Run("show "+tc.name, func(t *testing.T) {
			out, errOut, code := runCase(t, env, "", "memory show", show(tc.opts))
			if code != tc.code || !strings.HasPrefix(out, tc.out) || tc.out == "" && out != "" || !strings.HasPrefix(errOut, tc.err) || tc.err == "" && errOut != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q…", code, out, errOut, tc.code, tc.out, tc.err)
			}
		})
	}
}
