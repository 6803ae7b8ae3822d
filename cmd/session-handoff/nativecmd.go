package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/native"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/internal/transcript"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// nativeOptions are launch's flags for --native.
type nativeOptions struct {
	native  bool
	from    string // the source agent, "" for any but the target
	noStart bool
	json    bool
	handoff string // a handoff whose transcript to carry over
	force   bool   // convert a handoff not vouched for
}

// nativeSource reads the conversation to carry over: the transcript a
// handoff carries (--handoff), else a session of this machine.
func nativeSource(a *app, opts *launchOptions, target, cwd string, r *redact.Redactor) (capture.SessionInfo, *native.Conversation, error) {
	n := &opts.native
	if n.handoff != "" {
		s, rec, err := a.openRecord(n.handoff, opts.allProjects)
		if err != nil {
			return capture.SessionInfo{}, nil, err
		}
		att, _ := native.Transcript(rec)
		conv, err := native.ReadHandoff(rec, func(w io.Writer) error { return s.CopyAttachment(w, att) }, r, n.force)
		if err != nil {
			return capture.SessionInfo{}, nil, err
		}
		return capture.SessionInfo{Agent: capture.Agent(conv.Source.Agent), ID: conv.Source.Session, Path: "handoff " + string(rec.ID)}, conv, nil
	}
	src, err := native.FindSource(n.from, target, opts.ref, cwd, a.getenv)
	if err != nil {
		return src, nil, err
	}
	conv, err := native.Read(src, transcript.Limits{}, r)
	if err != nil {
		return src, nil, fmt.Errorf("read %s session %s: %w", src.Agent, src.Path, err)
	}
	return src, conv, nil
}

// runLaunchNative writes the conversation of a session of another agent
// on this machine as a session of the target's own, then starts the
// target's resume command on it (unless --no-start or --dry-run).
func runLaunchNative(a *app, opts *launchOptions) error {
	n := &opts.native
	w, err := native.Lookup(opts.target)
	if err != nil {
		return usageError{err}
	}
	if n.from != "" {
		ag, err := capture.ParseAgent(n.from)
		if err != nil {
			return usageError{err}
		}
		n.from = string(ag)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	r, err := a.redactor()
	if err != nil {
		return err
	}
	src, conv, err := nativeSource(a, opts, w.Name(), cwd, r)
	if err != nil {
		return err
	}
	home, err := native.Home(w.Name(), a.getenv)
	if err != nil {
		return err
	}
	p, err := w.Plan(conv, native.Options{Home: home, CWD: cwd, Now: time.Now(), Getenv: a.getenv})
	if err != nil {
		return err
	}
	newer := newerAgent(a, w)
	if !opts.dryRun {
		if err := writeNative(w, p, newer); err != nil {
			return err
		}
	}
	if newer != "" {
		outcome := "the session read back as written"
		if opts.dryRun {
			outcome = "a session it writes is read back before it is kept"
		}
		fmt.Fprintf(a.stderr, "session-handoff: note: %s %s is newer than the versions this writer was checked against (%s); %s\n",
			w.Name(), newer, strings.Join(w.Checked(), ", "), outcome)
	}
	srcID := untrusted.OneLine(conv.Source.Session, 64)
	if n.json {
		return a.writeJSON(map[string]any{"written": !opts.dryRun, "target": w.Name(), "id": p.ID, "path": p.Path,
			"resume": p.Resume, "source": map[string]any{"agent": src.Agent, "id": conv.Source.Session, "path": src.Path},
			"turns": len(conv.Turns), "checked": w.Checked()})
	}
	if opts.dryRun {
		fmt.Fprintf(a.stdout, "would write %s session %s\n  %s (%d bytes, %d turns from %s session %s)\n",
			w.Name(), p.ID, p.Path, len(p.Data), len(conv.Turns), src.Agent, srcID)
		fmt.Fprintf(a.stdout, "resume: %s\n", strings.Join(p.Resume, " "))
		if p.Marker != nil {
			fmt.Fprintf(a.stdout, "and the project's marker %s\n", p.Marker.Path)
		}
		fmt.Fprintf(a.stdout, "--- %s\n", p.Path)
		_, err := a.stdout.Write(escapeInvisible(p.Data))
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s session %s (%d turns from %s session %s)\n  %s\nresume: %s\n",
		w.Name(), p.ID, len(conv.Turns), src.Agent, srcID, p.Path, strings.Join(p.Resume, " "))
	if n.noStart {
		return nil
	}
	argv := append(append([]string{p.Resume[0]}, opts.extra...), p.Resume[1:]...)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return withHint(fmt.Errorf("%s is not on PATH", argv[0]), "install it, then run: "+strings.Join(p.Resume, " "))
	}
	if err := execAgent(path, argv); err != nil {
		return withHint(fmt.Errorf("start %s: %w", path, err), "run it yourself: "+strings.Join(p.Resume, " "))
	}
	return nil
}

// newerAgent is the version of the installed target when it is newer
// than every version its writer was checked against: the version its
// program prints for --version, or, when it is not on PATH, the version
// that wrote its newest session here; "" when it is not newer, or not
// known.
func newerAgent(a *app, w native.Writer) string {
	v := native.Installed(a.ctx, w.Name())
	if v == "" {
		return native.Newer(w, a.getenv)
	}
	if native.NewerThan(v, w.Checked()) {
		return v
	}
	return ""
}

// writeNative writes p. A session that does not read back is refused in
// one line that names the fallback, and when the installed agent is
// newer than the writer was checked against (newer), says so: its format
// has likely changed.
func writeNative(w native.Writer, p *native.Planned, newer string) error {
	err := native.Write(p)
	if err == nil || !errors.Is(err, native.ErrReadBack) {
		return err
	}
	checked := strings.Join(w.Checked(), ", ")
	fallback := "session-handoff launch --target " + w.Name() + " starts it with a briefing instead"
	if newer != "" {
		return fmt.Errorf("%w; %s %s is newer than this writer was checked against (%s), so its format has likely changed: nothing was left behind; %s",
			err, w.Name(), newer, checked, fallback)
	}
	return withHint(err, "nothing was left behind (this writer was checked against "+w.Name()+" "+checked+"); "+fallback)
}
