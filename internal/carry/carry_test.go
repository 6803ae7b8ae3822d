package carry

import (
	"strings"
	"testing"
	"time"
)

func TestDashPath(t *testing.T) {
	if got := DashPath("/home/ana/my proj.v2/é"); got != "-home-ana-my-proj-v2--" {
		t.Errorf("got %q", got)
	}
}

// TestDraftChainsItsLines: each line's parent is the line before, the
// first has none, and each record's time is a millisecond after the one
// before.
func TestDraftChainsItsLines(t *testing.T) {
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	d, err := Begin("t", &Conversation{}, Options{Home: "h", CWD: "c", Now: now, ID: "0192a1b2-c3d4-7e5f-8a9b-0123456789ab"}, NewID, FitText)
	if err != nil {
		t.Fatal(err)
	}
	u1, p1 := d.Link()
	u2, p2 := d.Link()
	if p1 != nil || p2 != u1 || u1 == u2 || !strings.HasPrefix(u1, "0192a1b2-c3d4-7e5f-8a9b") {
		t.Errorf("links %q %v %q %v", u1, p1, u2, p2)
	}
	if a, b := d.Stamp(), d.Stamp(); a != "2026-11-29T06:00:00.000Z" || b != "2026-11-29T06:00:00.001Z" {
		t.Errorf("stamps %s %s", a, b)
	}
	if len(d.Want.Turns) != 1 || !strings.HasPrefix(d.Want.Turns[0].Text, "[Imported by session-handoff]") {
		t.Errorf("the imported turn is not first: %+v", d.Want.Turns)
	}
	if _, err := Begin("t", &Conversation{}, Options{CWD: "c"}, NewID, FitText); err == nil {
		t.Error("no home, no error")
	}
}

// TestFitShellOnly: a call that ran no command is the assistant's words
// about it, with its tool, files, arguments and result; a command stays a
// call.
func TestFitShellOnly(t *testing.T) {
	got := FitShellOnly(Turn{Kind: Call, Tool: "Edit", Arguments: `{"path":"a.go"}`, Files: []string{"edit a.go"}, Output: "ok"})
	if got.Kind != Assistant || got.Text != "[tool call in the source session: Edit (edit a.go)]\narguments: {\"path\":\"a.go\"}\nresult:\nok" {
		t.Errorf("got %+v", got)
	}
	if got := FitShellOnly(Turn{Kind: Call, Text: " ls "}); got.Kind != Call || got.Text != "ls" {
		t.Errorf("got %+v", got)
	}
}

func TestIDs(t *testing.T) {
	now := time.Now()
	if id := NewID(now); len(id) != 36 || id[14] != '7' {
		t.Errorf("v7 %s", id)
	}
	if id := NewRandomID(now); len(id) != 36 || id[14] != '4' {
		t.Errorf("v4 %s", id)
	}
}
