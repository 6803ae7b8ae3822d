package render_test

import (
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/render"
)

// bigRecord is a handoff at the schema's list limits, every text field
// long: the worst a renderer meets.
func bigRecord() *handoff.Record {
	rec := fullRecord()
	rec.Summary = strings.Repeat("where things stand, in detail. ", 2000)
	for i := range handoff.MaxItems {
		rec.Files = append(rec.Files, handoff.FileTouched{Path: "pkg/sub/file" + strings.Repeat("x", i%40) + ".go", Action: "edited", Edits: i})
		rec.Session.Commands = append(rec.Session.Commands, handoff.Command{Command: "go test ./pkg/" + strings.Repeat("y", i%60), ExitCode: ptr(i % 2)})
		rec.Session.Requests = append(rec.Session.Requests, strings.Repeat("please do the next thing ", 20))
	}
	rec.Session.LastFailure.Output = strings.Repeat("FAIL: TestSomething\n", 2000)
	return rec
}

func BenchmarkRender(b *testing.B) {
	for _, bc := range []struct {
		name   string
		rec    *handoff.Record
		budget int
	}{{"typical", fullRecord(), 0}, {"large", bigRecord(), 0}, {"large-8k-tokens", bigRecord(), 32000}, {"large-tightest", bigRecord(), 2500}} {
		b.Run(bc.name, func(b *testing.B) {
			var n int
			for b.Loop() {
				res, err := render.Render(bc.rec, render.Options{Budget: render.Budget{Bytes: bc.budget}})
				if err != nil {
					b.Fatal(err)
				}
				n = len(res.Text)
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}
