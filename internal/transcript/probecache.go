package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Probing a session file reads up to 384 KiB of it, and discovery probes
// the newest thousand files of each agent every time it lists them: a
// second or more of a search's catch-up on a large archive, when only
// one file changed. A ProbeCache remembers what probing found, by the
// file's agent, path, size and modification time and what its name and
// place said, so a file that did not change is not read again. Search
// keeps one on disk beside its index and installs it while it lists the
// sessions (SetProbeCache); nothing else does, and without one every file
// is probed as before.

// CachedProbe is what probing one file found, as a ProbeCache keeps it.
type CachedProbe struct {
	Key       string         `json:"k"`
	ID        string         `json:"id,omitempty"`
	CWD       string         `json:"cwd,omitempty"`
	Title     string         `json:"title,omitempty"`
	Version   string         `json:"v,omitempty"`
	Started   int64          `json:"s,omitempty"`
	Last      int64          `json:"l,omitempty"`
	Subagents []SubagentInfo `json:"sub,omitempty"`
	// Empty: the file holds no session to list.
	Empty bool `json:"e,omitempty"`
}

// ProbeCache is a set of CachedProbes, safe for concurrent use.
type ProbeCache struct {
	mu    sync.Mutex
	m     map[string]CachedProbe
	used  map[string]bool
	added bool // an entry was added since it was made
}

// NewProbeCache is a cache holding entries.
func NewProbeCache(entries []CachedProbe) *ProbeCache {
	c := &ProbeCache{m: make(map[string]CachedProbe, len(entries)), used: map[string]bool{}}
	for _, e := range entries {
		c.m[e.Key] = e
	}
	return c
}

// Changed says whether Used holds other entries than the cache was made
// with: one was added, or one of them was not used.
func (c *ProbeCache) Changed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.added || len(c.used) != len(c.m)
}

// Used lists the entries looked up or added since the cache was made:
// those of the files discovery probes now, what is worth keeping.
func (c *ProbeCache) Used() []CachedProbe {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]CachedProbe, 0, len(c.used))
	for k := range c.used {
		out = append(out, c.m[k])
	}
	return out
}

var probeCache atomic.Pointer[ProbeCache]

// SetProbeCache makes discovery use c (nil: none) until restore is
// called, which puts back the one before.
func SetProbeCache(c *ProbeCache) (restore func()) {
	old := probeCache.Swap(c)
	return func() { probeCache.Store(old) }
}

// probeKey names what a probe of s depends on: the file (its size and
// time), what its name and place said before it was read, and state
// (what else the probe reads), hashed: the cache's file, read and written
// by every full catch-up, holds 32 characters a file rather than its
// path and all.
func probeKey(s *SessionInfo, size int64, state string) string {
	k := string(s.Agent) + "\x00" + s.Path + "\x00" + strconv.FormatInt(size, 10) + "\x00" +
		strconv.FormatInt(s.LastActivity.UnixNano(), 10) + "\x00" + s.ID + "\x00" + s.CWD + "\x00" + state
	sum := sha256.Sum256([]byte(k))
	return hex.EncodeToString(sum[:16])
}

// cachedProbe fills s from the cache when it holds s's file as it is
// (size, from listing it); probe otherwise, and remembers what it found.
// A probe that sets FiledUnder (a func) keeps it only when not cached;
// the agents that set it give a default.
func cachedProbe(s *SessionInfo, size int64, probe func(*SessionInfo) bool) bool {
	c := probeCache.Load()
	if c == nil || size <= 0 {
		return probe(s)
	}
	return c.probe(probeKey(s, size, ""), s, probe)
}

// ProbeCached is cachedProbe for an agent that probes its sessions
// itself, not through ProbeSessions: state says what else the probe
// reads beyond s's file as listed (s.FileSize and FileTime), such as the
// size and time of a file beside it. Without a ProbeCache installed, or
// with s's file not listed, it is probe.
func ProbeCached(s *SessionInfo, state func() string, probe func(*SessionInfo) bool) bool {
	c := probeCache.Load()
	if c == nil || s.FileTime.IsZero() {
		return probe(s)
	}
	return c.probe(probeKey(s, s.FileSize, state()), s, probe)
}

// probe fills s from the entry at key, or probes it and keeps what it
// found there.
func (c *ProbeCache) probe(key string, s *SessionInfo, probe func(*SessionInfo) bool) bool {
	c.mu.Lock()
	e, ok := c.m[key]
	if ok {
		c.used[key] = true
	}
	c.mu.Unlock()
	if ok {
		s.ID, s.CWD, s.Title, s.AgentVersion = e.ID, e.CWD, e.Title, e.Version
		s.Started, s.LastActivity = unixTime(e.Started), unixTime(e.Last)
		s.Subagents = append([]SubagentInfo(nil), e.Subagents...)
		return !e.Empty
	}
	listed := probe(s)
	e = CachedProbe{Key: key, ID: s.ID, CWD: s.CWD, Title: s.Title, Version: s.AgentVersion,
		Started: unixNano(s.Started), Last: unixNano(s.LastActivity), Subagents: s.Subagents, Empty: !listed}
	c.mu.Lock()
	c.m[key] = e
	c.used[key] = true
	c.added = true
	c.mu.Unlock()
	return listed
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func unixTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}
