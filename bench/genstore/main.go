// Command genstore fills a store with N handoffs for benchmarks: one in
// twenty for a git project it creates, the rest for other paths. Records
// are written directly and the index rebuilt once, so making 10,000 takes
// seconds, not the minutes that fsynced saves would.
//
//	go run ./bench/genstore DIR N
//
// DIR/app is the project (a git repository); DIR/home is the
// SESSION_HANDOFF_HOME. Each record file's modification time is the
// record's creation time.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/agents"
	"github.com/session-handoff/session-handoff/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genstore:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 3 {
		return fmt.Errorf("usage: genstore DIR N")
	}
	dir := os.Args[1]
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		return fmt.Errorf("count %q: want a positive number", os.Args[2])
	}
	project := filepath.Join(dir, "app")
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
		return cmd.Output()
	}
	if _, err := git("init", "-q", "-b", "main", project); err != nil {
		return fmt.Errorf("git init: %w", err)
	}
	if _, err := git("-C", project, "commit", "-q", "--allow-empty", "-m", "first"); err != nil {
		return fmt.Errorf("git commit: %w", err)
	}
	head, err := git("-C", project, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	storeDir := filepath.Join(dir, "home", "data")
	if err := os.MkdirAll(filepath.Join(storeDir, "records"), 0o700); err != nil {
		return err
	}
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	for i := range n {
		rec, err := handoff.New(start.Add(time.Duration(i)*time.Minute), agents.Codex, "Handoff number "+strconv.Itoa(i))
		if err != nil {
			return err
		}
		rec.Summary = "Where things stood after session " + strconv.Itoa(i) + strings.Repeat(".", i%200)
		rec.NextSteps = []string{"Do the next thing", "Then the one after"}
		rec.Decisions = []string{"Keep the design as it is"}
		rec.Project.Path = filepath.Join(dir, "other", "p"+strconv.Itoa(i%20))
		if i%20 == 0 {
			rec.Project.Path = project
			rec.Git = &handoff.GitState{Root: project, Branch: "main", Head: strings.TrimSpace(string(head))}
		}
		if err := rec.Normalize(); err != nil {
			return err
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		path := filepath.Join(storeDir, "records", string(rec.ID)+".json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
		// The file's time is the record's, as if saved then: tools that
		// order files by time (ls -t in bench/store.sh) see the order the
		// index has, not thousands of files written in the same tick.
		if err := os.Chtimes(path, rec.CreatedAt, rec.CreatedAt); err != nil {
			return err
		}
	}
	s, err := store.Open(storeDir)
	if err != nil {
		return err
	}
	_, err = s.Check(true) // builds the index from the records
	return err
}
