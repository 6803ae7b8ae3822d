package handoff

import (
	"sort"
	"strings"
	"testing"
	"time"
)

func TestIDSortsByTimeAndIsStrictlyIncreasing(t *testing.T) {
	base := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 1000; i++ {
		// Many ids in the same millisecond, then a later one.
		id, err := NewID(base.Add(time.Duration(i/100) * time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, string(id))
	}
	if !sort.StringsAreSorted(ids) {
		t.Fatal("ids made in order do not sort in order")
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Fatalf("duplicate id %s", ids[i])
		}
	}
}

func TestIDTimeRoundTrip(t *testing.T) {
	for _, ts := range []time.Time{
		time.Date(2026, 11, 23, 9, 0, 0, 123e6, time.UTC),
		time.UnixMilli(0).UTC(),
		time.UnixMilli(1<<48 - 1).UTC(),
	} {
		id, err := NewID(ts)
		if err != nil {
			t.Fatal(err)
		}
		// NewID may bump the random part, never the time part.
		if got := id.Time(); !got.Equal(ts) && got.Sub(ts) > time.Millisecond {
			t.Errorf("NewID(%v).Time() = %v", ts, got)
		}
		if len(id) != IDLength {
			t.Errorf("len = %d", len(id))
		}
	}
	if _, err := NewID(time.UnixMilli(1 << 48)); err == nil {
		t.Error("time past 48 bits accepted")
	}
}

func TestKnownIDEncoding(t *testing.T) {
	// 2026-11-23T09:00:00Z = 1795424400000 ms. Its 48-bit big-endian time
	// in Crockford base32 is a fixed string every implementation must give
	// (computed independently: python, (ms<<80) in base32 over 26 digits).
	var b [16]byte
	ms := uint64(1795424400000)
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	got := encodeBase32(b)
	if got[:10] != "01M83T4CM0" {
		t.Fatalf("time prefix = %s", got[:10])
	}
	if got[10:] != "0000000000000000" {
		t.Fatalf("zero random part = %s", got[10:])
	}
	if tm := ID(got).Time(); tm.UnixMilli() != int64(ms) {
		t.Fatalf("Time() = %d, want %d", tm.UnixMilli(), ms)
	}
}

func TestParseID(t *testing.T) {
	good, _ := NewID(time.Now())
	if id, err := ParseID(strings.ToLower(string(good))); err != nil || id != good {
		t.Fatalf("lower-case id: %v %v", id, err)
	}
	for _, bad := range []string{"", "short", string(good) + "X", "8" + string(good[1:]), "0" + strings.Repeat("U", 25), "0" + strings.Repeat("!", 25)} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
	if ValidPrefix("") || ValidPrefix("01-") || !ValidPrefix("01kmb") || ValidPrefix(strings.Repeat("0", 27)) {
		t.Error("ValidPrefix wrong")
	}
}
