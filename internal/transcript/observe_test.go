package transcript

import (
	"encoding/json"
	"testing"
)

// feed gives b one session's events, as a reader would.
func feed(b *Builder) {
	b.SetCWD("/w")
	b.Digest().Stats.Records, b.Digest().Stats.Lines = 1, 1
	b.Request("fix it")
	b.AgentMessage("m1", "looking")
	b.AgentMessage("m1", "still looking")
	b.Command("c1", "go test ./...")
	b.Outcome("c1", new(int), false, "ok all passed")
	b.File("c2", "/w/a.go", Edit, 1)
	exit := 2
	b.Outcome("c2", &exit, true, "boom")
	b.Compaction("the summary")
	b.Request("and then")
}

// TestObserveSeesEveryEventInOrder: an observer sees each event as the
// reader gave it, the output of a call that succeeded too, and the digest
// is the same with an observer or without.
func TestObserveSeesEveryEventInOrder(t *testing.T) {
	var got []Event
	b := NewBuilder()
	b.Observe(func(e Event) { got = append(got, e) })
	if !b.Observing() {
		t.Fatal("not observing")
	}
	feed(b)
	d, err := b.Finish("test")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind EventKind
		text string
	}{
		{EventRequest, "fix it"}, {EventAgentText, "looking"}, {EventAgentText, "still looking"},
		{EventCall, "go test ./..."}, {EventResult, "ok all passed"}, {EventCall, ""}, {EventResult, "boom"},
		{EventCompaction, "the summary"}, {EventRequest, "and then"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Kind != w.kind || got[i].Text != w.text {
			t.Errorf("event %d: %d %q, want %d %q", i, got[i].Kind, got[i].Text, w.kind, w.text)
		}
	}
	if f := got[5].Files; len(f) != 1 || f[0].Path != "a.go" || f[0].Op != Edit {
		t.Errorf("file ops %+v", f)
	}
	plain := NewBuilder()
	feed(plain)
	d2, err := plain.Finish("test")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(d)
	b2, _ := json.Marshal(d2)
	if string(a) != string(b2) {
		t.Fatalf("the digest differs with an observer:\n%s\n%s", a, b2)
	}
}
