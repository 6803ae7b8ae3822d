package handover

import (
	"github.com/session-handoff/session-handoff/internal/paths"

	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Approving a file whose path holds another configuration's digest and
// path approves that file only, not the other one.
func TestApprovalIsExactNotASubstring(t *testing.T) {
	dir := t.TempDir()
	approvals := paths.ConfigDir(dir).HandoverApprovals()
	other := filepath.Join(dir, "project", "handover.toml")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("[[step]]\nexec = [\"rm\", \"-rf\", \"/\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	digest, err := configDigest(other)
	if err != nil {
		t.Fatal(err)
	}
	crafted := filepath.Join(dir, "evil", digest+" "+other)
	if err := os.MkdirAll(filepath.Dir(crafted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(crafted, []byte("# harmless\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Approve(approvals, crafted); err != nil {
		t.Fatal(err)
	}
	if ok, err := Approved(approvals, crafted); err != nil || !ok {
		t.Fatalf("the approved file: %v %v", ok, err)
	}
	if ok, err := Approved(approvals, other); err != nil || ok {
		t.Fatalf("another project's configuration approved through a crafted path: %v %v", ok, err)
	}
	// Approving the other one and changing it: no longer approved.
	if err := Approve(approvals, other); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Approved(approvals, other); !ok {
		t.Fatal("approval lost")
	}
	if err := os.WriteFile(other, []byte("# changed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ok, _ := Approved(approvals, other); ok {
		t.Fatal("changed bytes still approved")
	}
}

func TestMalformedApprovalsLineIsAnError(t *testing.T) {
	dir := t.TempDir()
	approvals := paths.ConfigDir(dir).HandoverApprovals()
	cfg := filepath.Join(dir, "handover.toml")
	if err := os.WriteFile(cfg, []byte("# x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	digest, _ := configDigest(cfg)
	for _, bad := range []string{
		"garbage\n",
		digest + "\n",
		strings.ToUpper(digest) + " " + cfg + "\n",
		digest + " relative/handover.toml\n",
		digest + "  " + cfg + "\n", // the path would start with a space
	} {
		data := digest + " " + cfg + "\n" + bad
		if err := os.WriteFile(approvals, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Approved(approvals, cfg)
		if err == nil || !strings.Contains(err.Error(), approvals+":2:") {
			t.Errorf("line %q: %v", bad, err)
		}
		if err := Approve(approvals, cfg); err == nil || !strings.Contains(err.Error(), approvals+":2:") {
			t.Errorf("approve over line %q: %v", bad, err)
		}
	}
}
