package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
)

// The tests here run writers in other processes: the test binary again,
// running TestHelperWriter with its orders in the environment.
const (
	envHelperDir  = "STORE_TEST_HELPER_DIR"
	envHelperMode = "STORE_TEST_HELPER_MODE"
	envHelperN    = "STORE_TEST_HELPER_N"
	envHelperSeed = "STORE_TEST_HELPER_SEED"
)

// TestHelperWriter is not a test: it is the body of a writer process.
//
// Mode "save" saves N records and prints "D put <id> <title>" after each.
// Mode "mixed" does N random operations on records it made itself: save a
// new one, replace one, remove one. Before each it prints
// "B <op> <id> <title>" and after it "D <op> <id> <title>", so that a test
// that kills it knows what was acknowledged and what was in flight.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv(envHelperDir)
	if dir == "" {
		t.Skip("helper process for the multi-process tests")
	}
	n, _ := strconv.Atoi(os.Getenv(envHelperN))
	seed, _ := strconv.ParseUint(os.Getenv(envHelperSeed), 10, 64)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	s, err := Open(dir)
	if err != nil {
		fmt.Println("E", err)
		os.Exit(3)
	}
	mixed := os.Getenv(envHelperMode) == "mixed"
	var mine []*handoff.Record
	fail := func(err error) {
		fmt.Println("E", strings.ReplaceAll(err.Error(), "\n", " "))
		os.Exit(3)
	}
	for i := 0; i < n; i++ {
		op := "put"
		if mixed && len(mine) > 0 {
			switch x := rng.IntN(10); {
			case x < 2:
				op = "replace"
			case x < 5:
				op = "remove"
			}
		}
		switch op {
		case "put":
			r, err := handoff.New(time.Now(), "codex", fmt.Sprintf("seed %d op %d", seed, i))
			if err != nil {
				fail(err)
			}
			r.Project = handoff.Project{Path: "/src/p", Name: "p"}
			r.Summary = strings.Repeat("summary ", rng.IntN(100))
			if mixed {
				fmt.Println("B", op, r.ID, strings.ReplaceAll(r.Title, " ", "_"))
			}
			if err := s.Save(r); err != nil {
				fail(err)
			}
			mine = append(mine, r)
			fmt.Println("D", op, r.ID, strings.ReplaceAll(r.Title, " ", "_"))
		case "replace":
			k := rng.IntN(len(mine))
			r := *mine[k]
			r.Title = fmt.Sprintf("seed %d op %d replaced", seed, i)
			fmt.Println("B", op, r.ID, strings.ReplaceAll(r.Title, " ", "_"))
			if _, err := s.Put(&r, true); err != nil {
				fail(err)
			}
			mine[k] = &r
			fmt.Println("D", op, r.ID, strings.ReplaceAll(r.Title, " ", "_"))
		case "remove":
			k := rng.IntN(len(mine))
			r := mine[k]
			fmt.Println("B", op, r.ID, "-")
			if err := s.Remove(r.ID); err != nil {
				fail(err)
			}
			mine = append(mine[:k], mine[k+1:]...)
			fmt.Println("D", op, r.ID, "-")
		}
	}
}

// writerProc is a running helper writer.
type writerProc struct {
	cmd   *exec.Cmd
	out   io.ReadCloser
	lines []string
}

func startWriter(t *testing.T, dir, mode string, n int, seed uint64) *writerProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		envHelperDir+"="+dir, envHelperMode+"="+mode,
		envHelperN+"="+strconv.Itoa(n), envHelperSeed+"="+strconv.FormatUint(seed, 10))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &writerProc{cmd: cmd, out: out}
}

// run reads the writer's output to the end. With killAfter > 0 it sends
// SIGKILL once it has read that many lines, wherever the writer then is.
func (p *writerProc) run(killAfter int) (killed bool, err error) {
	sc := bufio.NewScanner(p.out)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "E ") {
			return false, errors.New(line)
		}
		if strings.HasPrefix(line, "B ") || strings.HasPrefix(line, "D ") {
			p.lines = append(p.lines, line)
			if len(p.lines) == killAfter {
				p.cmd.Process.Signal(syscall.SIGKILL)
			}
		}
	}
	err = p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true, nil
		}
	}
	return false, err
}

func TestConcurrentWriterProcesses(t *testing.T) {
	const procs, each = 8, 200
	s := newTestStore(t)
	var wg sync.WaitGroup
	ps := make([]*writerProc, procs)
	errs := make([]error, procs)
	for i := range ps {
		ps[i] = startWriter(t, s.Dir(), "save", each, uint64(i+1))
	}
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = p.run(0)
		}()
	}
	wg.Wait()
	saved := map[string]bool{}
	for i, p := range ps {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		for _, l := range p.lines {
			saved[strings.Fields(l)[2]] = true
		}
	}
	if len(saved) != procs*each {
		t.Fatalf("writers acknowledged %d saves, want %d", len(saved), procs*each)
	}
	es := assertConsistent(t, s)
	if len(es) != procs*each {
		t.Fatalf("listed %d records, want %d", len(es), procs*each)
	}
	for _, e := range es {
		delete(saved, string(e.ID))
	}
	if len(saved) > 0 {
		t.Fatalf("%d acknowledged records not listed", len(saved))
	}
	rep, err := s.Check(false)
	if err != nil || rep.Records != procs*each || rep.TempFound != 0 || rep.IndexWasStale || rep.IndexRebuilt {
		t.Fatalf("check = %+v, %v", rep, err)
	}
}

// TestCrashedWriterProcesses kills writer processes at random points, round
// after round on the same store, and checks after each round that a reader
// sees a consistent store: every record file parses, the index lists
// exactly the record files, Check finds nothing wrong, and every
// acknowledged operation took effect.
func TestCrashedWriterProcesses(t *testing.T) {
	rounds := 30
	if testing.Short() {
		rounds = 5
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	s := newTestStore(t)

	// want maps an id to its acknowledged title, "" once removed. maybe
	// holds the other acceptable title of an id whose operation was in
	// flight at the kill.
	want := map[string]string{}
	for round := 0; round < rounds; round++ {
		const procs = 2
		ps := make([]*writerProc, procs)
		killAt := make([]int, procs)
		for i := range ps {
			ps[i] = startWriter(t, s.Dir(), "mixed", 200, rng.Uint64())
			killAt[i] = 1 + rng.IntN(40)
		}
		var wg sync.WaitGroup
		killed := make([]bool, procs)
		errs := make([]error, procs)
		for i, p := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				killed[i], errs[i] = p.run(killAt[i])
			}()
		}
		wg.Wait()

		maybe := map[string][2]string{}
		for i, p := range ps {
			if errs[i] != nil {
				t.Fatalf("round %d writer %d: %v", round, i, errs[i])
			}
			var inflight []string
			for _, l := range p.lines {
				f := strings.Fields(l)
				title := strings.ReplaceAll(f[3], "_", " ")
				if f[1] == "remove" {
					title = ""
				}
				if f[0] == "B" {
					inflight = f
					continue
				}
				inflight = nil
				want[f[2]] = title
			}
			if inflight != nil {
				title := strings.ReplaceAll(inflight[3], "_", " ")
				if inflight[1] == "remove" {
					title = ""
				}
				maybe[inflight[2]] = [2]string{want[inflight[2]], title}
			}
		}

		// Even before any repair, the index lists no record whose file is
		// missing: records are written before their line, tombstones
		// before the removal.
		if data, err := os.ReadFile(indexPath(s)); err == nil {
			ix, err := parseIndex(data, nil)
			if err != nil {
				t.Fatalf("round %d: index damaged by a kill: %v\n%s", round, err, data)
			}
			for i := range ix.live {
				id := string(ix.line(i)[2:tombstoneLen])
				if _, err := os.Stat(filepath.Join(s.Dir(), "records", id+".json")); err != nil {
					t.Fatalf("round %d: index lists %s: %v", round, id, err)
				}
			}
		}

		// A reader comes along: it must repair what the crash left.
		es := assertConsistent(t, s)
		if t.Failed() {
			t.Fatalf("round %d (seed %d): store inconsistent after kill", round, seed)
		}
		got := map[string]string{}
		for _, e := range es {
			got[string(e.ID)] = e.Title
		}
		for id, title := range want {
			if m, ok := maybe[id]; ok {
				if got[id] != m[0] && got[id] != m[1] {
					t.Fatalf("round %d: %s is %q, want %q or %q", round, id, got[id], m[0], m[1])
				}
				want[id] = got[id]
				continue
			}
			if got[id] != title {
				t.Fatalf("round %d: acknowledged %s is %q, want %q", round, id, got[id], title)
			}
		}
		for id, m := range maybe {
			if _, ok := want[id]; !ok { // an unacknowledged new record
				if got[id] != m[0] && got[id] != m[1] {
					t.Fatalf("round %d: in-flight %s is %q", round, id, got[id])
				}
				want[id] = got[id]
			}
		}
		if len(got) != countLive(want) {
			t.Fatalf("round %d: %d records listed, %d expected", round, len(got), countLive(want))
		}
		if round%10 == 9 {
			rep, err := s.Check(true)
			if err != nil || len(rep.Bad) > 0 || rep.IndexWasStale {
				t.Fatalf("round %d: check(true) = %+v, %v", round, rep, err)
			}
			if rep, _ := s.Check(false); rep.TempFound != 0 {
				t.Fatalf("round %d: temp files remain after repair", round)
			}
		}
	}
	t.Logf("%d records after %d rounds", countLive(want), rounds)
}

func countLive(m map[string]string) int {
	n := 0
	for _, v := range m {
		if v != "" {
			n++
		}
	}
	return n
}
