package main

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The campaign's kinds for what apply meets on the recipient's side: a
// merge driver the repository names (apply must merge with git's own),
// symbolic links where the patch writes (refused, nothing written
// through them), and the journal of an apply killed before (undone with
// the journal alone: no file of the user's removed).
const (
	kindMergeDrivers   = "merge-driver"
	kindRecipientLinks = "local-links"
	kindJournalReplay  = "journal"
)

// applyInput is a handoff whose patch edit makes of the project's
// app.txt (its other files as they are), for one campaign input: place
// commits app.txt, calls edit on the worktree to make the patch, puts
// the worktree back, then calls prepare to lay out the recipient's side.
type applyInput struct {
	name    string
	edit    func(e *hostileEnv) error
	prepare func(e *hostileEnv) error
	runs    []hostileRun
	after   func(e *hostileEnv) error
}

// applyInputs are the inputs of the three kinds.
func applyInputs() ([]hostileInput, error) {
	base := "one\ntwo\nthree\n"
	setApp := func(text string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			return os.WriteFile(filepath.Join(e.project, "app.txt"), []byte(text), 0o644)
		}
	}
	create := func(name, text string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			p := filepath.Join(e.project, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				return err
			}
			return gitRun(e.project, "add", "-f", "--", name)
		}
	}
	// The marker a program of the repository's would leave.
	noMarker := func(e *hostileEnv) error {
		if _, err := os.Lstat(filepath.Join(e.root, "ran")); err == nil {
			b, _ := os.ReadFile(filepath.Join(e.root, "ran"))
			return fmt.Errorf("a program the repository names ran: %q", b)
		}
		return nil
	}
	armMerge := func(attrs string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			marker := filepath.Join(e.root, "ran")
			if err := gitRun(e.project, "config", "merge.arm.driver", "echo merge >> '"+marker+"'; false"); err != nil {
				return err
			}
			if err := gitRun(e.project, "config", "merge.default", "arm"); err != nil {
				return err
			}
			if attrs != "" {
				if err := os.WriteFile(filepath.Join(e.project, ".git", "info", "attributes"), []byte(attrs), 0o644); err != nil {
					return err
				}
			}
			// A local change to the line the patch changes: a merge.
			return setApp("one\nTWO here\nthree\n")(e)
		}
	}
	// outsideDir is a directory beside the project, outside every
	// worktree, which must stay empty.
	outsideDir := func(e *hostileEnv) string { return filepath.Join(e.root, "outside") }
	linkDir := func(ignored bool) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			if err := os.Mkdir(outsideDir(e), 0o700); err != nil {
				return err
			}
			if ignored {
				if err := os.WriteFile(filepath.Join(e.project, ".git", "info", "exclude"), []byte("dir\n"), 0o644); err != nil {
					return err
				}
			}
			return os.Symlink(outsideDir(e), filepath.Join(e.project, "dir"))
		}
	}
	outsideEmpty := func(e *hostileEnv) error {
		entries, err := os.ReadDir(outsideDir(e))
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return fmt.Errorf("apply wrote outside the worktree: %s", entries[0].Name())
		}
		return nil
	}
	refused := func(why string) []hostileRun {
		return []hostileRun{
			{args: []string{"apply", "{id}", "--project", "{project}", "--dry-run"}, code: exitFailure, errHas: []string{why}},
			{args: []string{"apply", "{id}", "--project", "{project}", "--force"}, code: exitFailure, errHas: []string{why}},
		}
	}
	journal := func(creates string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			head, err := exec.Command("git", "-C", e.project, "rev-parse", "HEAD").Output()
			if err != nil {
				return err
			}
			text := "head " + strings.TrimSpace(string(head)) + "\nbranch refs/heads/main\nnew-branch \nstash \n" + creates
			return os.WriteFile(filepath.Join(e.project, ".git", "session-handoff-apply"), []byte(text), 0o600)
		}
	}
	userFile := func(name, text string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			return os.WriteFile(filepath.Join(e.project, name), []byte(text), 0o644)
		}
	}
	still := func(name, text string) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			b, err := os.ReadFile(filepath.Join(e.project, name))
			if err != nil || string(b) != text {
				return fmt.Errorf("the user's %s is %q (%v), want %q", name, b, err, text)
			}
			return nil
		}
	}
	both := func(fs ...func(e *hostileEnv) error) func(e *hostileEnv) error {
		return func(e *hostileEnv) error {
			for _, f := range fs {
				if err := f(e); err != nil {
					return err
				}
			}
			return nil
		}
	}
	conflict := []hostileRun{{args: []string{"apply", "{id}", "--project", "{project}", "--force"}, code: exitFailure,
		errHas: []string{"conflicts"}, mayChange: []string{"project:app.txt"}}}

	groups := map[string][]applyInput{
		kindMergeDrivers: {
			{name: "info-attributes", edit: setApp("one\nTWO there\nthree\n"), prepare: armMerge("* merge=arm\n"), runs: conflict, after: noMarker},
			{name: "merge-default", edit: setApp("one\nTWO there\nthree\n"), prepare: armMerge(""), runs: conflict, after: noMarker},
			{name: "gitattributes-in-tree", edit: setApp("one\nTWO there\nthree\n"),
				prepare: both(func(e *hostileEnv) error {
					return os.WriteFile(filepath.Join(e.project, ".gitattributes"), []byte("app.txt merge=arm\n"), 0o644)
				}, func(e *hostileEnv) error { return gitRun(e.project, "add", ".gitattributes") },
					func(e *hostileEnv) error {
						return gitRun(e.project, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "attributes")
					}, armMerge("")),
				runs: conflict, after: noMarker},
		},
		kindRecipientLinks: {
			{name: "untracked-link-on-the-way", edit: create("dir/file", "pwned\n"), prepare: linkDir(false),
				runs: refused("symbolic link"), after: both(outsideEmpty, untouchedGitProject)},
			{name: "ignored-link-on-the-way", edit: create("dir/file", "pwned\n"), prepare: linkDir(true),
				runs: refused("symbolic link"), after: both(outsideEmpty, untouchedGitProject)},
			{name: "ignored-link-at-the-path", edit: create("dir", "a file\n"), prepare: linkDir(true),
				runs: refused("symbolic link"), after: both(outsideEmpty, untouchedGitProject)},
			{name: "ignored-file-at-the-path", edit: create("trace.log", "the sender's\n"),
				prepare: both(userFile("trace.log", "mine\n"), func(e *hostileEnv) error {
					return os.WriteFile(filepath.Join(e.project, ".git", "info", "exclude"), []byte("*.log\n"), 0o644)
				}),
				runs: refused("exists here"), after: both(still("trace.log", "mine\n"), untouchedGitProject)},
		},
		kindJournalReplay: {
			{name: "next-handoff-creates-a-user-file", edit: create("notes.txt", "the handoff's\n"),
				prepare: both(journal(""), userFile("notes.txt", "mine\n")),
				runs:    []hostileRun{{args: []string{"apply", "{id}", "--project", "{project}", "--force"}, code: exitFailure, errHas: []string{"exists here"}}},
				after:   still("notes.txt", "mine\n")},
			{name: "journaled-file-edited-since", edit: setApp("one\ntwo\nthree\nfour\n"),
				// The killed apply created made.txt with "made\n"; the
				// user has edited it since.
				prepare: both(journal("create "+blobHex("made\n")+" made.txt\n"), userFile("made.txt", "made, then edited\n")),
				runs: []hostileRun{{args: []string{"apply", "{id}", "--project", "{project}", "--force"}, code: exitOK,
					mayChange: []string{"project:app.txt"}, outHas: []string{"interrupted"}}},
				after: still("made.txt", "made, then edited\n")},
		},
	}
	var out []hostileInput
	for _, kind := range []string{kindMergeDrivers, kindRecipientLinks, kindJournalReplay} {
		for _, ai := range groups[kind] {
			rec, err := campaignRecord(time.Now().Add(-time.Hour), "apply "+kind+" "+ai.name)
			if err != nil {
				return nil, err
			}
			id := string(rec.ID)
			runs := make([]hostileRun, len(ai.runs))
			for i, r := range ai.runs {
				r.args = append([]string(nil), r.args...)
				for k, a := range r.args {
					r.args[k] = strings.ReplaceAll(a, "{id}", id)
				}
				runs[i] = r
			}
			runs = append([]hostileRun{{args: []string{"import", "{input}"}, mayChange: []string{"home:data/"}, outHas: []string{"imported"}}}, runs...)
			out = append(out, hostileInput{kind: kind, name: ai.name,
				place: func(e *hostileEnv) error {
					if err := setApp(base)(e); err != nil {
						return err
					}
					if err := gitRun(e.project, "add", "app.txt"); err != nil {
						return err
					}
					if err := gitRun(e.project, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "app"); err != nil {
						return err
					}
					if err := ai.edit(e); err != nil {
						return err
					}
					diff, err := exec.Command("git", "-C", e.project, "diff", "--cached", "--full-index", "--binary", "HEAD").Output()
					if err != nil {
						return err
					}
					if len(diff) == 0 {
						diff, err = exec.Command("git", "-C", e.project, "diff", "--full-index", "--binary", "HEAD").Output()
						if err != nil {
							return err
						}
					}
					if err := gitRun(e.project, "reset", "-q", "--hard"); err != nil {
						return err
					}
					if err := gitRun(e.project, "clean", "-q", "-fdx", "--", "dir", "notes.txt", "trace.log"); err != nil {
						return err
					}
					e.input = filepath.Join(e.root, "changes.handoff")
					if err := changesBundle(e, rec, diff); err != nil {
						return err
					}
					return ai.prepare(e)
				},
				runs: runs,
				after: func(e *hostileEnv, _ map[string]treeState) error {
					return ai.after(e)
				},
			})
		}
	}
	return out, nil
}

// untouchedGitProject is untouchedGit of the input's project.
func untouchedGitProject(e *hostileEnv) error { return untouchedGit(e.project) }

// blobHex is git's SHA-1 blob id of text.
func blobHex(text string) string {
	sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(text), text)))
	return hex.EncodeToString(sum[:])
}
