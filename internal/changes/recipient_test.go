package changes

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// An armed merge driver (.git/info/attributes names it, the
// configuration defines it) and a local change to the file the patch
// changes: git apply --3way merges, and the merge is git's own, with
// markers, not the driver's.
func TestApplyRunsNoMergeDriver(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "auth.go", "package auth\n\nfunc A() { laptop() }\n\nfunc B() {}\n")
	})
	marker := filepath.Join(t.TempDir(), "ran")
	write(t, desktop, ".git/info/attributes", "* merge=arm\n")
	run(t, desktop, "config", "merge.arm.driver", "touch "+marker+"; false")
	write(t, desktop, "auth.go", "package auth\n\nfunc A() { desktop() }\n\nfunc B() {}\n")
	pl, err := Apply(context.Background(), desktop, data, ApplyOptions{StashMessage: "t"})
	testsys.Check(t, err)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the repository's merge driver ran: %v", err)
	}
	if got := read(t, desktop, "auth.go"); len(pl.Conflicts) != 1 || !strings.Contains(got, "<<<<<<< ours") || !strings.Contains(got, "laptop()") {
		t.Fatalf("conflicts %v, auth.go:\n%s", pl.Conflicts, got)
	}
}

// outside is a directory outside every worktree, and what it holds
// after the test (nothing, when apply kept out).
func outside(t *testing.T) string { return t.TempDir() }

func mustBeEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	testsys.Check(t, err)
	if len(entries) > 0 {
		t.Fatalf("apply wrote outside the worktree: %v", entries)
	}
}

// A patch that creates dir/file, where the recipient's dir is a link
// (untracked, or ignored) to a directory outside the worktree: refused,
// dry run included, and nothing is written through the link.
func TestApplyRefusesALinkOnTheWay(t *testing.T) {
	for _, ignored := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignored=%v", ignored), func(t *testing.T) {
			_, desktop, data := carry(t, func(laptop string) { write(t, laptop, "dir/file", "pwned\n") })
			out := outside(t)
			testsys.Check(t, os.Symlink(out, filepath.Join(desktop, "dir")))
			if ignored {
				write(t, desktop, ".git/info/exclude", "dir\n")
			}
			for _, dry := range []bool{true, false} {
				_, err := Apply(context.Background(), desktop, data, ApplyOptions{DryRun: dry, StashMessage: "t"})
				if !errors.Is(err, ErrLink) {
					t.Fatalf("dry run %v: Apply = %v, want ErrLink", dry, err)
				}
			}
			mustBeEmpty(t, out)
		})
	}
}

// A link only the base commit has: the desktop has made it a plain file
// since, so nothing on its disk is a link, but a new branch at the base
// checks the link out, and a change of its content with no mode line
// would re-point it. Refused before anything is switched.
func TestApplyRefusesALinkOnlyTheBaseCommitHas(t *testing.T) {
	laptop, desktop, base := linked(t)
	run(t, desktop, "rm", "-q", "lnk")
	write(t, desktop, "lnk", "a plain file now\n")
	run(t, desktop, "add", "lnk")
	run(t, desktop, "commit", "-q", "-m", "no link")
	data := repointed(t, laptop, base)
	_, err := Apply(context.Background(), desktop, data, ApplyOptions{Branch: "from-laptop", StashMessage: "t"})
	if !errors.Is(err, ErrLink) {
		t.Fatalf("Apply = %v, want ErrLink", err)
	}
	if out := run(t, desktop, "branch", "--list", "from-laptop"); out != "" {
		t.Fatalf("the branch was made: %q", out)
	}
}

// linked makes the repository and its clone with a tracked link lnk to
// auth.go, committed on both; base is that commit.
func linked(t *testing.T) (laptop, desktop, base string) {
	laptop, desktop = laptopAndDesktop(t)
	testsys.Check(t, os.Symlink("auth.go", filepath.Join(laptop, "lnk")))
	run(t, laptop, "add", "lnk")
	run(t, laptop, "commit", "-q", "-m", "link")
	run(t, desktop, "pull", "-q", "--ff-only")
	return laptop, desktop, strings.TrimSpace(run(t, laptop, "rev-parse", "HEAD"))
}

// repointed is a patch that points the laptop's link lnk at /etc, with
// the mode left out of its index line (so that Check passes it).
func repointed(t *testing.T, laptop, base string) []byte {
	testsys.Check(t, os.Remove(filepath.Join(laptop, "lnk")))
	testsys.Check(t, os.Symlink("/etc", filepath.Join(laptop, "lnk")))
	diff := run(t, laptop, "diff", "--full-index", "HEAD")
	diff = strings.Replace(diff, " 120000\n", "\n", 1)
	data := []byte(header + "\n# base " + base + "\n" + diff)
	if _, err := Check(data); err != nil {
		t.Fatalf("the patch does not pass Check, so the test tests nothing: %v", err)
	}
	return data
}

// A patch that changes a tracked link's content with no mode line (its
// index line without the mode Check refuses) would re-point the link at
// an absolute path outside the worktree: refused, and the link stays.
func TestApplyRefusesToRepointALink(t *testing.T) {
	laptop, desktop, base := linked(t)
	data := repointed(t, laptop, base)
	for _, opts := range []ApplyOptions{{DryRun: true}, {}, {Branch: "b"}} {
		if _, err := Apply(context.Background(), desktop, data, opts); !errors.Is(err, ErrLink) {
			t.Fatalf("Apply(%+v) = %v, want ErrLink", opts, err)
		}
	}
	if got, err := os.Readlink(filepath.Join(desktop, "lnk")); err != nil || got != "auth.go" {
		t.Fatalf("the link now points at %q (%v)", got, err)
	}
}

// The recipient has an ignored file where the patch creates one: apply
// refuses before anything, and the file is the user's still (the undo
// of a failed git apply used to remove every file the patch creates).
func TestApplyLeavesAnIgnoredFileItDidNotCreate(t *testing.T) {
	_, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "auth.go", "patched\n")
		write(t, laptop, "trace.log", "the laptop's\n")
		run(t, laptop, "add", "-f", "trace.log")
	})
	write(t, desktop, "trace.log", "mine\n")
	_, err := Apply(context.Background(), desktop, data, ApplyOptions{StashMessage: "t"})
	if !errors.Is(err, ErrWorktree) {
		t.Fatalf("Apply = %v, want ErrWorktree", err)
	}
	if got := read(t, desktop, "trace.log"); got != "mine\n" {
		t.Fatalf("the user's ignored file holds %q", got)
	}
}

// A journal left by a killed apply of one handoff is undone with the
// journal alone when the next handoff is applied: an untracked file of
// the user's that the next patch creates is not removed.
func TestApplyReplaysTheJournalAlone(t *testing.T) {
	_, desktop, next := carry(t, func(laptop string) { write(t, laptop, "notes.txt", "the next handoff's\n") })
	head := strings.TrimSpace(run(t, desktop, "rev-parse", "HEAD"))
	write(t, desktop, ".git/"+journalName, "head "+head+"\nbranch refs/heads/main\nnew-branch \nstash \n")
	write(t, desktop, "notes.txt", "mine\n")
	_, err := Apply(context.Background(), desktop, next, ApplyOptions{StashMessage: "t"})
	if !errors.Is(err, ErrWorktree) {
		t.Fatalf("Apply = %v, want ErrWorktree (notes.txt is in the way)", err)
	}
	if got := read(t, desktop, "notes.txt"); got != "mine\n" {
		t.Fatalf("the user's untracked file holds %q", got)
	}
}

// The journal names what the killed apply wrote, with its blob id: undo
// removes such a file when it holds that (or nothing: killed between
// creating and writing it), and leaves it otherwise.
func TestUndoRemovesOnlyWhatApplyWrote(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		removed       bool
	}{{"as written", "written by apply\n", true}, {"edited", "edited since\n", false}, {"empty", "", true}} {
		t.Run(tc.name, func(t *testing.T) {
			_, desktop := laptopAndDesktop(t)
			content := "written by apply\n"
			sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(content), content)))
			head := strings.TrimSpace(run(t, desktop, "rev-parse", "HEAD"))
			write(t, desktop, ".git/"+journalName, "head "+head+"\nbranch refs/heads/main\nnew-branch \nstash \ncreate "+hex.EncodeToString(sum[:])+" made/by apply.txt\n")
			write(t, desktop, "made/by apply.txt", tc.content)
			j, err := readJournal(filepath.Join(desktop, ".git", journalName))
			testsys.Check(t, err)
			g, err := reader(context.Background(), desktop)
			testsys.Check(t, err)
			testsys.Check(t, j.undo(context.Background(), g, desktop, "t"))
			_, err = os.Stat(filepath.Join(desktop, "made/by apply.txt"))
			if tc.removed != os.IsNotExist(err) {
				t.Fatalf("the file after undo: %v (want removed: %v)", err, tc.removed)
			}
		})
	}
}

// base85Encode is git's base-85 of a binary patch block, for tests.
func base85Encode(data []byte) string {
	var b strings.Builder
	for len(data) > 0 {
		n := min(52, len(data))
		line := data[:n]
		data = data[n:]
		if n <= 26 {
			b.WriteByte(byte('A' + n - 1))
		} else {
			b.WriteByte(byte('a' + n - 27))
		}
		for i := 0; i < n; i += 4 {
			var acc uint32
			for k := 0; k < 4; k++ {
				acc <<= 8
				if i+k < n {
					acc |= uint32(line[i+k])
				}
			}
			var group [5]byte
			for k := 4; k >= 0; k-- {
				group[k] = en85[acc%85]
				acc /= 85
			}
			b.Write(group[:])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func deflate(data []byte) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// Many binary literals, each within MaxBinary, over MaxInflated in all:
// refused before git sees them (a few KB that git apply --check would
// inflate to gigabytes).
func TestCheckBoundsTheInflatedTotal(t *testing.T) {
	var body strings.Builder
	block := base85Encode(deflate([]byte("x")))
	for i := range MaxInflated/MaxBinary + 1 {
		fmt.Fprintf(&body, "diff --git a/b%d.bin b/b%d.bin\nnew file mode 100644\nindex 0000000..1111111\nGIT binary patch\nliteral %d\n%s\nliteral 0\nHcmV?d00001\n\n", i, i, MaxBinary, block)
	}
	_, err := Check([]byte(pre + body.String()))
	if !errors.Is(err, ErrHostile) || !strings.Contains(err.Error(), "in all") {
		t.Fatalf("Check = %v, want a refusal of the total", err)
	}
}

// A delta of a few bytes whose header says its result is 4 GiB: refused
// by the size it states.
func TestCheckBoundsADeltaByItsResult(t *testing.T) {
	delta := []byte{0x01, 0x80, 0x80, 0x80, 0x80, 0x10} // source 1 byte, result 1<<32
	body := "diff --git a/z.bin b/z.bin\nindex 1111111..2222222 100644\nGIT binary patch\ndelta 6\n" + base85Encode(deflate(delta)) + "\n"
	_, err := Check([]byte(pre + body))
	if !errors.Is(err, ErrHostile) || !strings.Contains(err.Error(), "4294967296") {
		t.Fatalf("Check = %v, want a refusal of the delta's result", err)
	}
}

// A link made after apply's first look at the worktree (by a new branch
// checked out, or another process): the look right before git apply
// refuses it. What is left is the moment between that look and git's
// write, which apply cannot lock (SECURITY.md).
func TestApplyLooksAgainRightBeforeGit(t *testing.T) {
	ctx := context.Background()
	_, desktop, data := carry(t, func(laptop string) { write(t, laptop, "dir/file", "pwned\n") })
	sum, err := Check(data)
	testsys.Check(t, err)
	g, err := reader(ctx, desktop)
	testsys.Check(t, err)
	tmp, patch, err := tempPatch(data)
	testsys.Check(t, err)
	defer os.RemoveAll(tmp)
	out := outside(t)
	testsys.Check(t, os.Symlink(out, filepath.Join(desktop, "dir")))
	pl := &Plan{Summary: sum}
	if err := pl.apply(ctx, g, desktop, patch, ApplyOptions{}); !errors.Is(err, ErrLink) {
		t.Fatalf("apply = %v, want ErrLink", err)
	}
	mustBeEmpty(t, out)
}
