// Package buildinfo says which build of session-handoff is running: the
// version, the commit it was built from, when, and with which Go. Records
// and bundles carry the same version string as `session-handoff version`.
//
// A release build sets the values with the linker:
//
//	go build -ldflags "-X github.com/session-handoff/session-handoff/internal/buildinfo.version=v1.2.3
//	  -X github.com/session-handoff/session-handoff/internal/buildinfo.commit=<hash>
//	  -X github.com/session-handoff/session-handoff/internal/buildinfo.date=<RFC 3339>"
//
// Without them the module's build information answers: `go install
// …@v1.2.3` reports v1.2.3, and a build from a clone reports "devel" with
// the commit git stamped into the binary.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by -ldflags -X in release builds; empty otherwise.
var (
	version string
	commit  string
	date    string
)

// Info describes the running build.
type Info struct {
	// Version is the release tag (v1.2.3), the module version of a
	// `go install …@version`, or "devel" (with "+" and the short commit
	// when known) for a build from a clone.
	Version string `json:"version"`
	// Commit is the full commit hash the binary was built from, when known.
	Commit string `json:"commit,omitempty"`
	// Date is when that commit was made (or the release built), RFC 3339.
	Date string `json:"date,omitempty"`
	// Modified is set when the work tree had uncommitted changes.
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
	Platform  string `json:"platform"`
}

// Get reads the build's information: the linker's values first, then the
// module's build information.
func Get() Info {
	info := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		fillFrom(&info, bi)
	}
	if info.Version == "" {
		info.Version = "devel"
		if len(info.Commit) >= 12 {
			info.Version += "+" + info.Commit[:12]
		}
	}
	return info
}

// fillFrom completes info from the module's build information where the
// linker set nothing.
func fillFrom(info *Info, bi *debug.BuildInfo) {
	if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		info.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if info.Commit == "" {
				info.Commit = s.Value
			}
		case "vcs.time":
			if info.Date == "" {
				info.Date = s.Value
			}
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
}

// Version is Get().Version: the string records, bundles and --version
// carry.
func Version() string { return Get().Version }

// String is the one-line form `session-handoff version` and `doctor`
// print: "session-handoff VERSION (commit C, DATE, GO PLATFORM)".
func (i Info) String() string {
	var about []string
	if i.Commit != "" {
		c := i.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if i.Modified {
			c += ", modified"
		}
		about = append(about, "commit "+c)
	}
	if i.Date != "" {
		about = append(about, i.Date)
	}
	about = append(about, i.GoVersion+" "+i.Platform)
	return "session-handoff " + i.Version + " (" + strings.Join(about, ", ") + ")"
}
