package main

import "testing"

// On every transcript of the repository that holds a compaction, the
// summary and the recap together name every file, request and open
// failure from before the compaction, within the agent's limit (issue
// 45's goal; go run ./bench/recap prints the table).
func TestRecapHoldsWhatTheSummaryDrops(t *testing.T) {
	results, err := measureAll("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 8 {
		t.Fatalf("%d transcripts with a compaction, want the 8 the repository holds", len(results))
	}
	for _, r := range results {
		if r.files.b != r.files.n || r.requests.b != r.requests.n || r.failure.b != r.failure.n {
			t.Errorf("%s: files %s, requests %s, failure %s; missed %q", r.file, r.files, r.requests, r.failure, r.missed)
		}
		if r.recapBytes > r.limit {
			t.Errorf("%s: recap of %d bytes, over the limit %d", r.file, r.recapBytes, r.limit)
		}
	}
}
