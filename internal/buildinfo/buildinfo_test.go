package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFillFrom(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-23T10:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	var info Info
	fillFrom(&info, bi)
	if info.Version != "v1.4.0" || info.Commit != "0123456789abcdef0123456789abcdef01234567" || info.Date != "2026-11-23T10:00:00Z" || !info.Modified || info.GoVersion != "go1.26.8" {
		t.Fatalf("%+v", info)
	}
	// The linker's values win over the module's.
	info = Info{Version: "v2.0.0", Commit: "feed"}
	fillFrom(&info, bi)
	if info.Version != "v2.0.0" || info.Commit != "feed" {
		t.Fatalf("linker values overridden: %+v", info)
	}
	// A build from a clone: (devel) is not a version.
	info = Info{}
	fillFrom(&info, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
	if info.Version != "" {
		t.Fatalf("(devel) taken as a version: %+v", info)
	}
}

func TestGet(t *testing.T) {
	info := Get()
	if info.GoVersion != runtime.Version() {
		t.Errorf("GoVersion %q, want %q", info.GoVersion, runtime.Version())
	}
	if want := runtime.GOOS + "/" + runtime.GOARCH; info.Platform != want {
		t.Errorf("Platform %q, want %q", info.Platform, want)
	}
	// A test binary has no linker values and no module version, so the
	// version is devel, with the commit when the build recorded one.
	want := "devel"
	if len(info.Commit) >= 12 {
		want += "+" + info.Commit[:12]
	}
	if info.Version != want {
		t.Errorf("Version %q, want %q (%+v)", info.Version, want, info)
	}
}

func TestInfoString(t *testing.T) {
	for _, c := range []struct {
		info Info
		want string
	}{
		{Info{Version: "v1.2.3", Commit: "0123456789abcdef0123", Date: "2026-11-24T01:02:03Z", GoVersion: "go1.26.8", Platform: "linux/amd64"},
			"session-handoff v1.2.3 (commit 0123456789ab, 2026-11-24T01:02:03Z, go1.26.8 linux/amd64)"},
		{Info{Version: "devel+0123456789ab", Commit: "0123456789abcdef", Modified: true, GoVersion: "go1.26.8", Platform: "windows/arm64"},
			"session-handoff devel+0123456789ab (commit 0123456789ab, modified, go1.26.8 windows/arm64)"},
		{Info{Version: "devel", GoVersion: "go1.26.8", Platform: "darwin/arm64"},
			"session-handoff devel (go1.26.8 darwin/arm64)"},
	} {
		if got := c.info.String(); got != c.want {
			t.Errorf("String() = %q, want %q", got, c.want)
		}
	}
}
