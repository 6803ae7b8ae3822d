package handover

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/changes"
	"github.com/session-handoff/session-handoff/internal/exchange"
	"github.com/session-handoff/session-handoff/internal/git"
	"github.com/session-handoff/session-handoff/internal/memory"
	"github.com/session-handoff/session-handoff/internal/paths"
	"github.com/session-handoff/session-handoff/internal/people"
	"github.com/session-handoff/session-handoff/internal/proc"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/remote"
	"github.com/session-handoff/session-handoff/internal/safefile"
	"github.com/session-handoff/session-handoff/internal/untrusted"
	"github.com/session-handoff/session-handoff/render"
	"github.com/session-handoff/session-handoff/store"
	"github.com/session-handoff/session-handoff/targets"
)

// maxExecOutput bounds the output of an exec step kept for its error.
const maxExecOutput = 4 << 10

func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return safefile.Wrap("create", dir, err)
	}
	return nil
}

// runStep does one step's work and returns its outputs.
func (r *Runner) runStep(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	switch st.Kind {
	case KindCapture, KindSave:
		return r.stepRecord(ctx, cp, st)
	case KindMemory:
		return r.stepMemory(ctx, cp, st)
	case KindHandoffFile:
		return r.stepHandoffFile(cp, st)
	case KindExport:
		return r.stepExport(ctx, cp, st)
	case KindPublish:
		return r.stepPublish(ctx, cp, st)
	case KindSend:
		return r.stepSend(ctx, cp, st)
	case KindExec:
		return r.stepExec(ctx, cp, st)
	}
	return nil, fmt.Errorf("unknown kind %s", untrusted.Quote(st.Kind, 32))
}

// memoryDir is the run's memory directory.
func (r *Runner) memoryDir() memory.Dir {
	return memory.Dir{Root: filepath.Join(r.Project, filepath.FromSlash(r.Config.Memory))}
}

// stepRecord captures or saves the run's handoff under the id the run
// chose, so that a repeated attempt finds it stored instead of adding a
// second record.
func (r *Runner) stepRecord(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	id := handoff.ID(cp.HandoffID)
	out := map[string]string{"handoff_id": cp.HandoffID}
	if _, err := r.Store.Get(id); err == nil {
		return out, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	var rec *handoff.Record
	if st.Kind == KindCapture {
		opts := capture.Options{Project: r.Project, Session: "latest", Env: r.Env, Redactor: r.Redactor}
		if st.From != "auto" {
			agent, err := capture.ParseAgent(st.From)
			if err != nil {
				return nil, err
			}
			opts.Agent = agent
		}
		res, err := capture.Build(ctx, opts, r.now())
		switch {
		case err == nil:
			rec = res.Record
			if st.Title != "" {
				rec.Title = st.Title
			}
		case errors.Is(err, capture.ErrNoSession) && st.Fallback != "none":
			r.logf("step %s: no agent session found; saving from git instead", st.Name)
		case errors.Is(err, capture.ErrNothingToCapture) && st.Fallback != "none":
			r.logf("step %s: the agent session holds nothing yet; saving from git instead", st.Name)
		default:
			return nil, err
		}
	}
	if rec == nil {
		var err error
		if rec, err = r.savedRecord(ctx, st); err != nil {
			return nil, err
		}
	}
	rec.ID = id
	rec.CreatedAt = id.Time().UTC()
	if st.WithChanges {
		if err := r.attachChanges(ctx, rec); err != nil {
			return nil, err
		}
	}
	if err := rec.Normalize(); err != nil {
		return nil, err
	}
	if err := r.Store.Save(rec); err != nil {
		if errors.Is(err, store.ErrExists) {
			return out, nil
		}
		return nil, err
	}
	return out, nil
}

// attachChanges attaches the uncommitted changes of rec's worktree, if it
// has any: a secret in them fails the step (an unattended run has no one
// to ask, and code is never altered to hide one).
func (r *Runner) attachChanges(ctx context.Context, rec *handoff.Record) error {
	if rec.Git == nil {
		return nil
	}
	m, err := changes.Make(ctx, rec.Git.Root)
	if err != nil || m == nil {
		return err
	}
	defer m.Close()
	red := r.Redactor
	if red == nil {
		red = redact.Default()
	}
	if _, err := m.Secrets(red); err != nil {
		return err
	}
	for _, l := range m.LeftOut {
		r.logf("left out of the changes: %s", handoff.Shorten(l, 300))
	}
	patch, err := m.Open()
	if err != nil {
		return err
	}
	defer patch.Close()
	sum, size, err := r.Store.PutBlob(patch, changes.MaxPatch)
	if err != nil {
		return fmt.Errorf("store the changes: %w", err)
	}
	at := handoff.Attachment{Name: changes.Name, MediaType: changes.MediaType, Size: size, SHA256: sum}
	rec.Attachments = append(rec.Attachments, at)
	return changes.KeepHeaders(r.Store, at)
}

// savedRecord builds a handoff from the git worktree alone.
func (r *Runner) savedRecord(ctx context.Context, st Step) (*handoff.Record, error) {
	tool := st.Tool
	if tool == "" {
		tool = "generic"
	}
	title := st.Title
	if title == "" {
		title = "Handover of " + filepath.Base(r.Project) + " on " + r.now().Format("2006-01-02 15:04")
	}
	rec, err := handoff.New(r.now(), tool, title)
	if err != nil {
		return nil, err
	}
	rec.Source.Machine = paths.Hostname()
	// Outside a git worktree the handoff is saved without git state.
	if err := capture.FromWorktree(ctx, rec, r.Project, false); err != nil && !errors.Is(err, capture.ErrNotGitRepo) {
		return nil, err
	}
	if kind, checks, err := capture.DetectProject(rec.Project.Path); err == nil {
		rec.Project.Kind, rec.Project.Checks = kind, checks
	}
	return rec, nil
}

// handoff is the record the run's later steps work from: the one this run
// stored, or else the latest for the project.
func (r *Runner) handoff(cp *Checkpoint) (*handoff.Record, error) {
	rec, err := r.Store.Get(handoff.ID(cp.HandoffID))
	if err == nil {
		return rec, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	entries, err := r.Store.List(store.Filter{Project: r.Project, Latest: true})
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, errors.New("no handoff for this project: add a save or capture step before this one")
	}
	return r.Store.Get(entries[0].ID)
}

func (r *Runner) stepMemory(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	dir := r.memoryDir()
	if st.Action == "compact" {
		keep := st.KeepDays
		if keep == 0 {
			keep = 30
		}
		res, err := dir.Compact("", keep, r.now())
		if err != nil {
			return nil, err
		}
		return map[string]string{"archived": fmt.Sprint(len(res.Archived))}, nil
	}
	rec, err := r.handoff(cp)
	if err != nil {
		return nil, err
	}
	if st.Action == "state" {
		var b bytes.Buffer
		if err := render.Markdown(&b, rec); err != nil {
			return nil, err
		}
		path, err := dir.WriteState(string(rec.ID), b.String())
		if err != nil {
			return nil, err
		}
		return map[string]string{"path": path}, nil
	}
	tag := st.Tag
	if tag == "" {
		tag = "session"
	}
	path, _, err := dir.WriteNote(memory.Note{Layer: 1, Tag: tag, Date: r.now().Format("2006-01-02"),
		HandoffID: string(rec.ID), Key: cp.RunID + "/" + st.Name, Body: noteBody(rec)})
	if err != nil {
		return nil, err
	}
	return map[string]string{"path": path}, nil
}

// noteBody is a session note: what the handoff says, briefly.
func noteBody(rec *handoff.Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nhandoff %s, %s", handoff.CleanText(strings.ReplaceAll(rec.Title, "\n", " ")), rec.ID, rec.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	if rec.Git != nil && rec.Git.Branch != "" {
		fmt.Fprintf(&b, ", branch %s", handoff.CleanText(rec.Git.Branch))
	}
	b.WriteString("\n")
	if rec.Summary != "" {
		fmt.Fprintf(&b, "\n%s\n", handoff.CleanText(handoff.Shorten(rec.Summary, 2000)))
	}
	list := func(heading string, items []string, numbered bool) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", heading)
		for i, it := range items {
			it = handoff.CleanText(strings.ReplaceAll(handoff.Shorten(it, 500), "\n", " "))
			if numbered {
				fmt.Fprintf(&b, "%d. %s\n", i+1, it)
			} else {
				fmt.Fprintf(&b, "- %s\n", it)
			}
		}
	}
	list("Decisions", rec.Decisions, false)
	list("Next steps", rec.NextSteps, true)
	list("Open questions", rec.OpenQuestions, false)
	return b.String()
}

func (r *Runner) stepHandoffFile(cp *Checkpoint, st Step) (map[string]string, error) {
	rec, err := r.handoff(cp)
	if err != nil {
		return nil, err
	}
	p, err := targets.Lookup(st.Target)
	if err != nil {
		return nil, err
	}
	res, err := render.Render(rec, render.Options{Style: p.Style})
	if err != nil {
		return nil, err
	}
	path, err := r.memoryDir().WriteHandoff(string(rec.ID), res.Text)
	if err != nil {
		return nil, err
	}
	return map[string]string{"path": path}, nil
}

func (r *Runner) stepExport(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	if r.SigningKey == nil {
		return nil, errors.New("no signing key to sign the bundle (run 'session-handoff keygen'; a passphrase-protected key needs SESSION_HANDOFF_KEY_PASSPHRASE)")
	}
	rec, err := r.handoff(cp)
	if err != nil {
		return nil, err
	}
	to := make([]string, len(st.To))
	for i, t := range st.To {
		// A file of recipients is relative to the project, like output.
		if !strings.HasPrefix(t, "age1") && !strings.HasPrefix(t, "ssh-") && !filepath.IsAbs(t) {
			t = filepath.Join(r.Project, t)
		}
		to[i] = t
	}
	recips, err := exchange.ParseRecipients(to, nil)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(r.Project, filepath.FromSlash(st.Output))
	if err := ensureDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	var m string
	err = safefile.Write(path, 0o644, func(w io.Writer) error {
		man, err := exchange.Export(ctx, w, r.Store, rec, exchange.ExportOptions{SigningKey: r.SigningKey, Recipients: recips,
			Producer: r.Producer, Now: r.now()})
		if err == nil {
			m = man.BundleID
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return map[string]string{"path": path, "bundle": m}, nil
}

// stepPublish commits the memory directory (or the step's paths) in the
// project's repository and, unless push = false, pushes: to the step's
// remote and branch, else the branch's upstream, else origin and the
// current branch. "Nothing to commit" is a success.
func (r *Runner) stepPublish(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	dirs := []string{r.memoryDir().Root}
	if len(st.Paths) > 0 {
		dirs = dirs[:0]
		for _, p := range st.Paths {
			dirs = append(dirs, filepath.Join(r.Project, filepath.FromSlash(p)))
		}
	}
	root, err := capture.Root(ctx, r.Project)
	if err != nil {
		return nil, fmt.Errorf("publish %s: %w", r.Project, err)
	}
	rels := make([]string, 0, len(dirs))
	for _, d := range dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return nil, err
		}
		rels = append(rels, rel)
	}
	g := git.Runner{Dir: root}
	if _, err := g.Run(ctx, append([]string{"add", "--all", "--"}, rels...)...); err != nil {
		return nil, err
	}
	status, err := g.Run(ctx, append([]string{"status", "--porcelain", "--"}, rels...)...)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(status)) > 0 {
		msg := st.Message
		if msg == "" {
			msg = "session-handoff: handover " + cp.RunID
		}
		if _, err := g.Run(ctx, append([]string{"commit", "--quiet", "-m", msg, "--"}, rels...)...); err != nil {
			return nil, err
		}
	}
	head, err := g.Run(ctx, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	out := map[string]string{"commit": strings.TrimSpace(string(head))}
	if st.Push != nil && !*st.Push {
		return out, nil
	}
	args, err := pushArgs(ctx, g, st)
	if err != nil {
		return nil, err
	}
	g.Timeout = git.NetworkTimeout
	if _, err := g.Run(ctx, args...); err != nil {
		return nil, fmt.Errorf("push: %w", err)
	}
	return out, nil
}

// pushArgs is the push publish makes: to the step's remote (and branch,
// else the current one), else the upstream, else origin and the current
// branch. A repository with no remote at all is one clear error.
func pushArgs(ctx context.Context, g git.Runner, st Step) ([]string, error) {
	if st.Remote == "" {
		if _, err := g.Run(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err == nil {
			return []string{"push", "--quiet"}, nil
		}
		remotes, err := g.Run(ctx, "remote")
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(remotes)) == 0 {
			return nil, errors.New("push: the repository has no remote; add one ('git remote add origin URL') or set push = false")
		}
		if !slices.Contains(strings.Fields(string(remotes)), "origin") {
			return nil, errors.New("push: the branch has no upstream and there is no remote named origin; set remote = \"NAME\" or push = false")
		}
		st.Remote = "origin"
	}
	branch := st.Branch
	if branch == "" {
		cur, err := g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil {
			return nil, errors.New("push: HEAD is detached; set branch = \"NAME\"")
		}
		branch = strings.TrimSpace(string(cur))
	}
	return []string{"push", "--quiet", "--", st.Remote, "HEAD:refs/heads/" + branch}, nil
}

// stepSend sends the run's handoff through a remote inbox. A repeated
// attempt pushes the bundle the first one made (remote.Send keeps it until
// it is pushed) instead of making a second.
func (r *Runner) stepSend(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	if r.SigningKey == nil {
		return nil, errors.New("no signing key to sign the bundle (run 'session-handoff keygen'; a passphrase-protected key needs SESSION_HANDOFF_KEY_PASSPHRASE)")
	}
	rec, err := r.handoff(cp)
	if err != nil {
		return nil, err
	}
	conf, err := remote.LoadConfig(r.ConfigDir)
	if err != nil {
		return nil, err
	}
	var rem remote.Remote
	switch list := conf.List(); {
	case st.Remote != "":
		if rem, err = conf.Get(st.Remote); err != nil {
			return nil, err
		}
	case len(list) == 1:
		rem = list[0]
	default:
		return nil, fmt.Errorf("%d remotes configured: name one with remote = \"…\"", len(list))
	}
	book, err := people.Load(r.ConfigDir)
	if err != nil {
		return nil, err
	}
	var recips []crypto.RecipientInfo
	for _, t := range st.To {
		ri, _, err := book.Resolve(t)
		if err != nil {
			return nil, err
		}
		recips = append(recips, ri)
	}
	res, err := remote.Send(ctx, remote.SendOptions{Remote: rem, DataDir: r.Store.Dir(), Store: r.Store, Record: rec,
		Recipients: recips, SigningKey: r.SigningKey, Producer: r.Producer, Now: r.now()})
	if err != nil {
		return nil, err
	}
	out := map[string]string{"remote": rem.Name}
	for _, b := range res.Bundles {
		if b.HandoffID == rec.ID {
			out["bundle"] = b.BundleID
		}
	}
	return out, nil
}

// stepExec runs the user's command in the project directory, in its own
// process group so that a timeout stops everything it started
// (internal/proc); the command's own exit decides, not a child it left
// holding its output.
func (r *Runner) stepExec(ctx context.Context, cp *Checkpoint, st Step) (map[string]string, error) {
	cmd := proc.Command(ctx, "/bin/sh", "-c", st.Run)
	cmd.Dir = r.Project
	cmd.Env = append(os.Environ(), "SESSION_HANDOFF_RUN_ID="+cp.RunID, "SESSION_HANDOFF_HANDOFF_ID="+cp.HandoffID,
		"SESSION_HANDOFF_STEP="+st.Name)
	var tail tailBuffer
	var w io.Writer = &tail
	if r.Log != nil {
		w = io.MultiWriter(&tail, r.Log)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err := proc.Result(cmd.Run())
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		if t := strings.TrimSpace(tail.String()); t != "" {
			return nil, fmt.Errorf("%v: %s", err, lastLine(t))
		}
		return nil, err
	}
	return map[string]string{}, nil
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return handoff.Shorten(handoff.CleanText(s), 300)
}

// tailBuffer keeps the last maxExecOutput bytes written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > maxExecOutput {
		t.b = append(t.b[:0], t.b[len(t.b)-maxExecOutput:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }
