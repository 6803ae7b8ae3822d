// Command gensessions writes an archive of agent sessions for the search
// benchmark: n sessions of about kb KiB each, of the ten agents in turn,
// each in the place its agent keeps it under home, each with its own id,
// time and project, and its files dated when it ran. Claude Code, Codex
// CLI and Gemini CLI sessions are generated (internal/transcriptgen);
// the other seven replay a session each agent wrote itself (the fixtures
// under internal/agents, replay.go), OpenCode's, Kilo's and Crush's into
// their SQLite databases through the sqlite3 command (sqlite.go). It is
// the input of bench/search.sh; run it from the repository's root (or
// give -fixtures).
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

	"github.com/session-handoff/session-handoff/internal/agents/claude"
	"github.com/session-handoff/session-handoff/internal/agents/cline"
	"github.com/session-handoff/session-handoff/internal/agents/codex"
	"github.com/session-handoff/session-handoff/internal/agents/copilot"
	"github.com/session-handoff/session-handoff/internal/agents/crush"
	"github.com/session-handoff/session-handoff/internal/agents/gemini"
	"github.com/session-handoff/session-handoff/internal/agents/kilo"
	"github.com/session-handoff/session-handoff/internal/agents/opencode"
	"github.com/session-handoff/session-handoff/internal/agents/pi"
	"github.com/session-handoff/session-handoff/internal/agents/qwen"
	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

// agentOrder is the order sessions take the agents in: session i is of
// agentOrder[i%10].
var agentOrder = []string{claude.Name, codex.Name, gemini.Name, copilot.Name, string(opencode.Name), cline.Name, pi.Name, qwen.Name, string(kilo.Name), string(crush.Name)}

func main() {
	n := flag.Int("n", 1000, "sessions to write")
	kb := flag.Int("kb", 256, "size of each session in KiB (a session stops after the turn that reaches it)")
	home := flag.String("home", "", "the home directory to write them under (required)")
	from := flag.Int("from", 0, "the number of the first session (to add sessions to an archive)")
	fixtures := flag.String("fixtures", filepath.Join("internal", "agents"), "the directory of the agents' packages, whose testdata holds the transcripts replayed")
	flag.Parse()
	if *home == "" || *n <= 0 || *kb <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gensessions [-n N] [-kb KB] [-from I] [-fixtures DIR] -home DIR")
		os.Exit(2)
	}
	g := &gen{home: *home, fixtures: *fixtures, dbs: map[string]*dbWriter{}}
	for i := *from; i < *from+*n; i++ {
		if err := g.write(i, *kb<<10); err != nil {
			fmt.Fprintln(os.Stderr, "gensessions:", err)
			os.Exit(1)
		}
	}
	for _, w := range g.dbs {
		if err := w.flush(); err != nil {
			fmt.Fprintln(os.Stderr, "gensessions:", err)
			os.Exit(1)
		}
	}
}

// gen writes sessions under home.
type gen struct {
	home, fixtures string
	dbs            map[string]*dbWriter // by agent
}

// write writes session i, of agent i%10, in its agent's place.
func (g *gen) write(i, size int) error {
	project := fmt.Sprintf("app%d", i%50)
	id := fmt.Sprintf("%08x-6b1e-4c41-9a3e-%012x", i, i)
	start := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 17 * time.Minute)
	seed := uint64(i) + 1
	var paths []string
	var err error
	switch agent := agentOrder[i%len(agentOrder)]; agent {
	case claude.Name, codex.Name, gemini.Name:
		var path string
		path, err = g.generated(agent, i, id, project, start, size)
		paths = []string{path}
	case copilot.Name:
		dir := filepath.Join(g.home, ".copilot", "session-state", id)
		paths = []string{filepath.Join(dir, "events.jsonl"), filepath.Join(dir, "workspace.yaml")}
		err = replayLines(g.fixtures, copilotFixture, id, seed, size, start, paths[0])
		if err == nil {
			err = replaySide(g.fixtures, copilotYAML, copilotFixture.id, id, paths[1])
		}
	case pi.Name:
		paths = []string{filepath.Join(g.home, ".pi", "agent", "sessions", "--home-dev-src-"+project+"--", start.Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")}
		err = replayLines(g.fixtures, piFixture, id, seed, size, start, paths[0])
	case qwen.Name:
		paths = []string{filepath.Join(g.home, ".qwen", "projects", "-home-dev-src-"+project, "chats", id+".jsonl")}
		err = replayLines(g.fixtures, qwenFixture, id, seed, size, start, paths[0])
	case cline.Name:
		cid := fmt.Sprintf("%d_%05x", start.UnixMilli(), i&0xfffff)
		dir := filepath.Join(g.home, ".cline", "data", "sessions", cid)
		paths = []string{filepath.Join(dir, cid+".messages.json"), filepath.Join(dir, cid+".json")}
		err = replayMessages(g.fixtures, clineFixture, cid, seed, size, start, paths[0])
		if err == nil {
			err = replaySide(g.fixtures, clineManifest, clineFixture.id, cid, paths[1])
		}
	case string(opencode.Name), string(kilo.Name), string(crush.Name):
		return g.database(agent, i, seed, size, start)
	}
	if err != nil {
		return err
	}
	// An archive's sessions were written when they ran, not now.
	end := start.Add(time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(p, end, end); err != nil {
			return err
		}
	}
	return nil
}

// database adds session i to agent's database.
func (g *gen) database(agent string, i int, seed uint64, size int, start time.Time) error {
	w := g.dbs[agent]
	if w == nil {
		f := map[string]dbFixture{string(opencode.Name): opencodeDB, string(kilo.Name): kiloDB, string(crush.Name): crushDB}[agent]
		var err error
		if w, err = newDBWriter(g.fixtures, g.home, f); err != nil {
			return err
		}
		g.dbs[agent] = w
	}
	id := fmt.Sprintf("%s%0*x", w.f.id[:4], len(w.f.id)-4, i)
	if agent == string(crush.Name) {
		id = fmt.Sprintf("%08x-6b1e-4c41-9a3e-%012x", i, i)
	}
	return w.add(i, id, seed, size, start)
}

// generated writes session i of agent (Claude Code, Codex CLI or Gemini
// CLI) with transcriptgen, and says where.
func (g *gen) generated(agent string, i int, id, project string, start time.Time, size int) (string, error) {
	tg := transcriptgen.New(uint64(i)+1, "/home/dev/src/"+project)
	tg.Session = id
	tg.Start = start
	var path string
	switch agent {
	case claude.Name:
		path = filepath.Join(g.home, ".claude", "projects", "-home-dev-src-"+project, id+".jsonl")
	case codex.Name:
		path = filepath.Join(g.home, ".codex", "sessions", start.Format("2006/01/02"), "rollout-"+start.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	default:
		path = filepath.Join(g.home, ".gemini", "tmp", fmt.Sprintf("%064x", i%50), "chats", fmt.Sprintf("session-%s-%08x.jsonl", start.Format("2006-01-02T15-04"), i))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := tg.Write(agent, w, size); err != nil {
		f.Close()
		return "", err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
