// Command gentranscript writes a large, realistic agent transcript (JSONL)
// for benchmarks: a Claude Code session, a Codex CLI rollout or a Gemini
// CLI recording of requests, replies, tool calls with outputs of several
// kilobytes, edits and todo lists. It is the input of bench/capture.sh.
//
//	go run ./bench/gentranscript -agent claude-code -mb 100 -o claude.jsonl
//	go run ./bench/gentranscript -agent codex -mb 100 -o codex.jsonl
//
// The generator is internal/transcriptgen, the one the capture package's
// Go benchmarks use; with the default seed and -cwd the file is the same,
// byte for byte, as the one BenchmarkCaptureClaude (or ...Codex) reads
// at that size.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

func main() {
	agent := flag.String("agent", transcriptgen.Agents[0], "the agent: "+strings.Join(transcriptgen.Agents, ", "))
	mb := flag.Int("mb", 100, "size in MiB (the transcript stops after the turn that reaches it)")
	out := flag.String("o", "", "write the transcript to this file (required)")
	seed := flag.Uint64("seed", 0, "random seed (0: the size in bytes, as the capture benchmarks do)")
	cwd := flag.String("cwd", "/home/dev/src/app", "the project directory the transcript names")
	flag.Parse()
	if *out == "" || *mb <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gentranscript [-agent "+strings.Join(transcriptgen.Agents, "|")+"] [-mb N] [-seed S] [-cwd DIR] -o FILE")
		os.Exit(2)
	}
	if err := run(*agent, *mb<<20, *seed, *cwd, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gentranscript:", err)
		os.Exit(1)
	}
}

func run(agent string, size int, seed uint64, cwd, path string) error {
	if seed == 0 {
		seed = uint64(size)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// The generator buffers a megabyte at a time itself.
	if err := transcriptgen.New(seed, cwd).Write(agent, f, size); err != nil {
		return err
	}
	return f.Close()
}
