//go:build unix

package proc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A step's "server &" (or an ssh ControlPersist master) keeps the output
// open after the process exits 0: Run returns all the same, and the
// process's own result decides (issue 50: a handover exec step that exited
// 0 at once was reported "timed out"; receive took 20.9 s).
func TestAChildHoldingTheOutputDecidesNothing(t *testing.T) {
	for _, script := range []string{
		"sleep 60 & echo started",
		"setsid sleep 60 & echo started", // out of the group, out of reach of the kill
	} {
		cmd := Command(context.Background(), "/bin/sh", "-c", script+"; echo $! >&2")
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if pid, perr := strconv.Atoi(strings.TrimSpace(errOut.String())); perr == nil {
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
		}
		if Result(err) != nil || out.String() != "started\n" {
			t.Errorf("%s: %v (%v), output %q", script, Result(err), err, out.String())
		}
	}
}

// When the context is done, the whole process group is killed: what the
// command started in the background dies with it. The child holds the
// write end of a pipe (fd 3): the read end sees its end only once every
// holder is dead, so the test waits on that, not on a clock.
func TestCancelKillsTheGroup(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := Command(ctx, "/bin/sh", "-c", "sleep 600 & echo $!; wait")
	cmd.ExtraFiles = []*os.File{w}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(child, syscall.SIGKILL) })
	cancel()
	if err := cmd.Wait(); err == nil {
		t.Fatal("a killed command succeeded")
	}
	// Returns once the background sleep is gone too. The deadline only
	// bounds a failure: a sleep that outlived the cancel holds the pipe
	// for its 600 s.
	if err := r.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("read %d, %v from the children's pipe: want its end (the background child outlived the cancel)", n, err)
	}
}

func isLinux() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// A detached command runs in a session of its own: killing the group of
// the process that started it does not reach it.
func TestDetachedHasASessionOfItsOwn(t *testing.T) {
	cmd := Detached("/bin/sh", "-c", "sleep 60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if !isLinux() {
		t.Skip("reads the session from /proc")
	}
	if sid := statField(t, cmd.Process.Pid, 3); sid != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("session %s, want the child's own (%d)", sid, cmd.Process.Pid)
	}
}

// statField is field n (0: the state) after the command name of
// /proc/PID/stat: 2 is the process group, 3 the session.
func statField(t *testing.T, pid, n int) string {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if n >= len(fields) {
		t.Fatalf("/proc/%d/stat: %q", pid, stat)
	}
	return fields[n]
}
