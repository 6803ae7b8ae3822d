// Command gensessions writes an archive of agent sessions for the search
// benchmark: n sessions of about kb KiB each, in turn Claude Code, Codex
// CLI and Gemini CLI transcripts (internal/transcriptgen, the formats the
// generator writes), each in the place its agent keeps it under home
// (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp), each with its
// own id, time and project. It is the input of bench/search.sh.
//
//	go run ./bench/gensessions -n 20000 -kb 256 -home /tmp/archive
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

func main() {
	n := flag.Int("n", 1000, "sessions to write")
	kb := flag.Int("kb", 256, "size of each session in KiB (a session stops after the turn that reaches it)")
	home := flag.String("home", "", "the home directory to write them under (required)")
	from := flag.Int("from", 0, "the number of the first session (to add sessions to an archive)")
	flag.Parse()
	if *home == "" || *n <= 0 || *kb <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gensessions [-n N] [-kb KB] [-from I] -home DIR")
		os.Exit(2)
	}
	for i := *from; i < *from+*n; i++ {
		if err := write(*home, i, *kb<<10); err != nil {
			fmt.Fprintln(os.Stderr, "gensessions:", err)
			os.Exit(1)
		}
	}
}

// write writes session i, of agent i%3, in its agent's place.
func write(home string, i, size int) error {
	project := fmt.Sprintf("/home/dev/src/app%d", i%50)
	g := transcriptgen.New(uint64(i)+1, project)
	g.Session = fmt.Sprintf("%08x-6b1e-4c41-9a3e-%012x", i, i)
	g.Start = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 17 * time.Minute)
	stamp := g.Start.Format("2006-01-02T15-04-05")
	// transcriptgen.Agents: Claude Code, Codex CLI, Gemini CLI, in turn.
	agent := transcriptgen.Agents[i%3]
	var path string
	switch i % 3 {
	case 0:
		path = filepath.Join(home, ".claude", "projects", fmt.Sprintf("-home-dev-src-app%d", i%50), g.Session+".jsonl")
	case 1:
		path = filepath.Join(home, ".codex", "sessions", g.Start.Format("2006/01/02"), "rollout-"+stamp+"-"+g.Session+".jsonl")
	default:
		path = filepath.Join(home, ".gemini", "tmp", fmt.Sprintf("%064x", i%50), "chats", fmt.Sprintf("session-%s-%08x.jsonl", g.Start.Format("2006-01-02T15-04"), i))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := g.Write(agent, w, size); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	// An archive's sessions were written when they ran, not now.
	end := g.Start.Add(time.Hour)
	return os.Chtimes(path, end, end)
}
