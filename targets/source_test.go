package targets

import (
	"errors"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
)

func TestCheckInstructionSource(t *testing.T) {
	mk := func(path, verification string) *handoff.Record {
		r := &handoff.Record{ID: "01M85AK98ZYPV7VGD4TCY58BBE", Project: handoff.Project{Path: path}}
		if verification != "-" {
			r.Source.Import = &handoff.Provenance{Verification: verification}
		}
		return r
	}
	cases := []struct {
		rec  *handoff.Record
		ok   bool
		want string
	}{
		{mk("/p/app", "-"), true, ""},
		{mk("/p/app/", "-"), true, ""},
		{mk("/p/app", "verified"), true, ""},
		{mk("/p/app", "pinned"), true, ""},
		{mk("/p/other", "-"), false, "is of project /p/other, not /p/app"},
		{mk("", "-"), false, "is of project"},
		{mk("/p/app", "untrusted"), false, "signed by a key that is not trusted"},
		{mk("/p/app", "unsigned"), false, "imported unsigned"},
		{mk("/p/app", ""), false, "no verification recorded"},
		{&handoff.Record{ID: "01M85AK98ZYPV7VGD4TCY58BBE", Project: handoff.Project{Path: "/p/app"}, Source: handoff.Source{Kind: handoff.SourceLegacy}}, false, "older format, unsigned"},
	}
	for _, c := range cases {
		err := CheckInstructionSource(c.rec, "/p/app")
		if c.ok != (err == nil) {
			t.Errorf("%+v: err = %v, want ok %v", c.rec.Project, err, c.ok)
			continue
		}
		if err != nil && (!errors.Is(err, ErrNeedsForce) || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("err = %v, want %q and ErrNeedsForce", err, c.want)
		}
	}
}
