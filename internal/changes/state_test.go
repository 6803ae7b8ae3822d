package changes

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/session-handoff/session-handoff/internal/testsys"
)

// AppliedState tells, with no git, a worktree that has a patch's changes
// from one that has none of them, and says it cannot tell anything else:
// never "not applied" of a worktree that has them (issue 49).
func TestAppliedStateTellsOrSaysItCannot(t *testing.T) {
	laptop, desktop, data := carry(t, func(laptop string) {
		write(t, laptop, "auth.go", "package auth\n\nfunc A() { work() }\n\nfunc B() {}\n")
		write(t, laptop, "new/made.go", "package made\n")
		write(t, laptop, "blob.bin", "\x00\x01binary\xff")
		testsys.Check(t, os.Remove(filepath.Join(laptop, "staged.txt")))
	})
	if got := AppliedState(laptop, data); got != AllApplied {
		t.Errorf("the worktree the patch was made from: %v, want AllApplied", got)
	}
	if got := AppliedState(desktop, data); got != NoneApplied {
		t.Errorf("a clone at the base: %v, want NoneApplied", got)
	}
	if _, err := Apply(context.Background(), desktop, data, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := AppliedState(desktop, data); got != AllApplied {
		t.Errorf("after apply: %v, want AllApplied", got)
	}
	// Edited since: neither, so it cannot tell.
	write(t, desktop, "auth.go", "package auth // edited after\n")
	if got := AppliedState(desktop, data); got != CannotTell {
		t.Errorf("edited after apply: %v, want CannotTell", got)
	}
	// A link where a file is: never followed, cannot tell.
	testsys.Check(t, os.Remove(filepath.Join(desktop, "auth.go")))
	testsys.Check(t, os.Symlink(filepath.Join(laptop, "auth.go"), filepath.Join(desktop, "auth.go")))
	if got := AppliedState(desktop, data); got != CannotTell {
		t.Errorf("a link at the path: %v, want CannotTell", got)
	}
	if got := AppliedState(desktop, []byte("not a patch")); got != CannotTell {
		t.Errorf("no patch: %v", got)
	}
}
