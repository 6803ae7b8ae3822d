package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/changes"
)

// Hostile changes (issue 34): each patch of testdata/hostile/changes
// travels as the changes.patch of a handoff signed by the trusted
// alice@test, is imported, and apply must refuse it before git sees it,
// naming the cause its first line ("# want: CAUSE") gives, with the
// project's files as they were.

// changesInputs are the inputs of the hostile changes corpus.
func changesInputs() ([]hostileInput, error) {
	files, err := filepath.Glob(filepath.Join(hostileCorpus, "changes", "*.patch"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no hostile patches: %v", err)
	}
	var out []hostileInput
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		first, _, _ := strings.Cut(string(body), "\n")
		rec, err := campaignRecord(time.Now().Add(-time.Hour), "hostile changes "+filepath.Base(f))
		if err != nil {
			return nil, err
		}
		id := string(rec.ID)
		out = append(out, hostileInput{kind: kindChanges, name: filepath.Base(f), file: f,
			place: func(e *hostileEnv) error {
				e.input = filepath.Join(e.root, "changes.handoff")
				return changesBundle(e, rec, body)
			},
			runs: []hostileRun{
				{args: []string{"import", "{input}"}, mayChange: []string{"home:data/"}, outHas: []string{"imported"}},
				{args: []string{"apply", id, "--project", "{project}", "--dry-run"}, code: exitFailure,
					errHas: []string{changes.Name, id, strings.TrimPrefix(first, "# want: ")}},
				{args: []string{"apply", id, "--project", "{project}", "--force"}, code: exitFailure,
					errHas: []string{changes.Name, id, strings.TrimPrefix(first, "# want: ")}},
			},
			after: func(e *hostileEnv, _ map[string]treeState) error { return untouchedGit(e.project) },
		})
	}
	return out, nil
}

// changesBundle writes to e.input a bundle of rec, signed by alice@test,
// carrying patch (after our preamble, at the project's HEAD) as its
// changes.patch.
func changesBundle(e *hostileEnv, rec *handoff.Record, patch []byte) error {
	head, err := exec.Command("git", "-C", e.project, "rev-parse", "HEAD").Output()
	if err != nil {
		return fmt.Errorf("project HEAD: %w", err)
	}
	data := append([]byte("# session-handoff changes 1\n# base "+strings.TrimSpace(string(head))+"\n"), patch...)
	src, err := changesBlob(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		return err
	}
	r := *rec
	r.Project = handoff.Project{Path: "/elsewhere/project", Name: filepath.Base(e.project)}
	r.Attachments = []handoff.Attachment{{Name: src.Name, MediaType: src.MediaType, Size: src.Size, SHA256: src.SHA256}}
	b, err := campaignBundleBlobs(e, "signing.key", "alice@test", &r, "", false, []bundle.BlobSource{src})
	if err != nil {
		return err
	}
	return os.WriteFile(e.input, b, 0o600)
}

// untouchedGit fails unless the project's git has no change, no stash and
// no branch but main: a refused patch leaves nothing behind in git either.
func untouchedGit(project string) error {
	for _, c := range [][]string{{"status", "--porcelain", "--untracked-files=no"}, {"stash", "list"}, {"branch", "--list", "--format=%(refname:short)"}} {
		out, err := exec.Command("git", append([]string{"-C", project}, c...)...).Output()
		if err != nil {
			return fmt.Errorf("git %s: %w", c[0], err)
		}
		if got := strings.TrimSpace(string(out)); got != "" && got != "main" {
			return fmt.Errorf("git %s after a refused patch: %q", c[0], got)
		}
	}
	return nil
}
