package devsync

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/remote"
	"github.com/session-handoff/session-handoff/internal/tsvconf"
	"github.com/session-handoff/session-handoff/internal/untrusted"
)

// StateFile is sync's state in the data directory: the sends asked for
// and not yet delivered, the time of the last bundle sent of each record,
// and the last failure of a send, for each remote.
const StateFile = "sync-state"

const (
	stateHeader  = "session-handoff-sync-state 1"
	maxStateSize = 4 << 20
	// maxSent bounds the records whose last bundle's time is kept.
	maxSent = 2000
	// maxWanted bounds the sends asked for and not delivered: past it,
	// the oldest requests go (a machine that could not send for so long
	// is told so by sync status and doctor well before).
	maxWanted = 1000
	// maxReason bounds a failure's reason and fix, in bytes.
	maxReason = 600
)

// Request is a send asked for and not yet delivered: written before the
// send starts, removed once the remote has the bundle, so a send that is
// killed, or fails, is made by the next push.
type Request struct {
	Remote  string     `json:"remote"`
	ID      handoff.ID `json:"id"`
	Project string     `json:"project,omitempty"`
	// Time is when it was asked for: a request asked for again while
	// it was being sent stays.
	Time time.Time `json:"time"`
}

// Failure is why the last push to a remote failed, and what to do.
type Failure struct {
	Remote string    `json:"remote"`
	Time   time.Time `json:"time"`
	Reason string    `json:"reason"`
	Fix    string    `json:"fix,omitempty"`
}

// State is the sync state file as read.
type State struct {
	Wanted []Request
	// sent is the time of the last bundle sent of each record, by
	// remote and id.
	sent     map[[2]string]time.Time
	failures map[string]Failure
}

// For returns the requests of remote, oldest first, and its last
// failure (nil when its last push went through).
func (s *State) For(remote string) ([]Request, *Failure) {
	var out []Request
	for _, r := range s.Wanted {
		if r.Remote == remote {
			out = append(out, r)
		}
	}
	var f *Failure
	if x, ok := s.failures[remote]; ok {
		f = &x
	}
	return out, f
}

func stateFile(dataDir string) tsvconf.File {
	return tsvconf.File{Path: filepath.Join(dataDir, StateFile), What: "sync state", Kind: "sync state", Header: stateHeader,
		Comment: "want REMOTE ID PROJECT TIME | sent REMOTE ID TIME | failed REMOTE TIME REASON FIX; managed by 'session-handoff sync'",
		MaxSize: maxStateSize, Perm: 0o600}
}

// LoadState reads the sync state of the data directory dataDir; a missing
// file is no state.
func LoadState(dataDir string) (*State, error) {
	s := &State{sent: map[[2]string]time.Time{}, failures: map[string]Failure{}}
	err := stateFile(dataDir).Read(func(f []string) error {
		bad := errors.New("damaged line")
		switch {
		case f[0] == "want" && len(f) == 5:
			id, err := handoff.ParseID(f[2])
			t, terr := time.Parse(time.RFC3339Nano, f[4])
			if err != nil || terr != nil {
				return bad
			}
			s.Wanted = append(s.Wanted, Request{Remote: f[1], ID: id, Project: f[3], Time: t})
		case f[0] == "sent" && len(f) == 4:
			t, err := time.Parse(time.RFC3339Nano, f[3])
			if err != nil {
				return bad
			}
			s.sent[[2]string{f[1], f[2]}] = t
		case f[0] == "failed" && len(f) == 5:
			t, err := time.Parse(time.RFC3339Nano, f[2])
			if err != nil {
				return bad
			}
			s.failures[f[1]] = Failure{Remote: f[1], Time: t, Reason: f[3], Fix: f[4]}
		default:
			return bad
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// update rewrites the state of dataDir under its lock with what change
// makes of it.
func update(dataDir string, change func(*State)) error {
	return stateFile(dataDir).Update(func() ([][]string, error) {
		s, err := LoadState(dataDir)
		if err != nil {
			return nil, err
		}
		change(s)
		return s.records(), nil
	})
}

func (s *State) records() [][]string {
	var out [][]string
	for _, r := range s.Wanted {
		out = append(out, []string{"want", r.Remote, string(r.ID), r.Project, r.Time.UTC().Format(time.RFC3339Nano)})
	}
	type sent struct {
		key [2]string
		t   time.Time
	}
	var all []sent
	for k, t := range s.sent {
		all = append(all, sent{k, t})
	}
	// The newest are kept: an older record's next version is minutes
	// or days later than its last, whatever the bound drops.
	sort.Slice(all, func(i, j int) bool {
		if !all[i].t.Equal(all[j].t) {
			return all[i].t.After(all[j].t)
		}
		return all[i].key[1] < all[j].key[1]
	})
	for i, e := range all {
		if i == maxSent {
			break
		}
		out = append(out, []string{"sent", e.key[0], e.key[1], e.t.UTC().Format(time.RFC3339Nano)})
	}
	remotes := make([]string, 0, len(s.failures))
	for r := range s.failures {
		remotes = append(remotes, r)
	}
	sort.Strings(remotes)
	for _, r := range remotes {
		f := s.failures[r]
		out = append(out, []string{"failed", r, f.Time.UTC().Format(time.RFC3339Nano), f.Reason, f.Fix})
	}
	return out
}

// Want records that the record id of project is to be sent through
// remote, in place of an earlier request for it.
func Want(dataDir, remote string, id handoff.ID, project string, now time.Time) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	return update(dataDir, func(s *State) {
		s.Wanted = deleteRequest(s.Wanted, remote, id, time.Time{})
		s.Wanted = append(s.Wanted, Request{Remote: remote, ID: id, Project: project, Time: now})
		if n := len(s.Wanted); n > maxWanted {
			s.Wanted = s.Wanted[n-maxWanted:]
		}
	})
}

// deleteRequest removes the request for remote and id; with t not zero,
// only one asked for at t.
func deleteRequest(rs []Request, remote string, id handoff.ID, t time.Time) []Request {
	out := rs[:0]
	for _, r := range rs {
		if r.Remote == remote && r.ID == id && (t.IsZero() || r.Time.Equal(t)) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// delivered records that req went out in a bundle made at made: the
// request is removed unless it was asked for again since, and the
// remote's failure is cleared.
func delivered(dataDir string, req Request, made time.Time) error {
	return update(dataDir, func(s *State) {
		s.Wanted = deleteRequest(s.Wanted, req.Remote, req.ID, req.Time)
		s.sent[[2]string{req.Remote, string(req.ID)}] = made
		delete(s.failures, req.Remote)
	})
}

// dropRequest removes req (its record is no longer stored: there is
// nothing to send).
func dropRequest(dataDir string, req Request) error {
	return update(dataDir, func(s *State) { s.Wanted = deleteRequest(s.Wanted, req.Remote, req.ID, req.Time) })
}

// succeeded clears remote's failure.
func succeeded(dataDir, remote string) error {
	s, err := LoadState(dataDir)
	if err != nil {
		return err
	}
	if _, ok := s.failures[remote]; !ok {
		return nil
	}
	return update(dataDir, func(s *State) { delete(s.failures, remote) })
}

// failed records f as remote's last failure, its text made one bounded
// line.
func failed(dataDir string, f Failure) error {
	f.Reason, f.Fix = untrusted.OneLine(f.Reason, maxReason), untrusted.OneLine(f.Fix, maxReason)
	return update(dataDir, func(s *State) { s.failures[f.Remote] = f })
}

// bundleTime is the time to give the next bundle of id through remote:
// now, to the second, or a second after the last one sent, so that the
// receiver orders two versions made in one second (exchange.ConflictNewer
// skips a version made at the same time as its copy).
func (s *State) bundleTime(remote string, id handoff.ID, now time.Time) time.Time {
	now = now.UTC().Truncate(time.Second)
	if last, ok := s.sent[[2]string{remote, string(id)}]; ok && !now.After(last) {
		return last.Add(time.Second)
	}
	return now
}

// Pending is what has not gone out through the remote that the setting
// of the project at root names: the sends asked for and not made, or made
// and not pushed (each handoff once), and the last push's failure (nil
// when it went through). Sync off for root, or no remote to name, is
// nothing pending.
func Pending(configDir, dataDir, root string) (int, *Failure, error) {
	set, on, err := Enabled(configDir, root)
	if err != nil || !on {
		return 0, nil, err
	}
	rc, err := remote.LoadConfig(configDir)
	if err != nil {
		return 0, nil, err
	}
	r, err := rc.Pick(set.Remote)
	if err != nil {
		return 0, nil, nil
	}
	return PendingThrough(dataDir, r.Name)
}

// PendingThrough is Pending for the remote name.
func PendingThrough(dataDir, name string) (int, *Failure, error) {
	st, err := LoadState(dataDir)
	if err != nil {
		return 0, nil, err
	}
	wanted, fail := st.For(name)
	ids := map[handoff.ID]bool{}
	for _, r := range wanted {
		ids[r.ID] = true
	}
	ls, err := remote.State(dataDir, name)
	if err != nil {
		return len(ids), fail, err
	}
	for _, u := range ls.Unsent {
		ids[u.HandoffID] = true
	}
	return len(ids), fail, nil
}
