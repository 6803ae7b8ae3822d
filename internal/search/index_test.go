package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/session-handoff/session-handoff/internal/capture"
	"github.com/session-handoff/session-handoff/internal/safefile"
)

func doc(id string, t int, units ...Unit) *Doc {
	return &Doc{Type: "session", Agent: "codex", ID: id, Title: "title " + id, Machine: "box", Time: time.Unix(int64(t), 0)}
}

func src(id string, stamp int, d *Doc) Source {
	return Source{Key: "session:" + id, Stamp: Stamp{Size: int64(stamp)}, Load: func() (*Doc, error) {
		if d == nil {
			return nil, errors.New("unreadable")
		}
		c := *d
		return &c, nil
	}}
}

func withUnits(d *Doc, units ...Unit) *Doc { d.Units = units; return d }

// ids lists the ids of what q finds under f.
func ids(t *testing.T, ix *Index, q string, f Filter) []string {
	t.Helper()
	pq, err := ParseQuery(q)
	if err != nil {
		t.Fatalf("ParseQuery(%q): %v", q, err)
	}
	res, err := ix.Search(pq, f, 100)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Doc.ID)
	}
	return out
}

func corpus() []Source {
	return []Source{
		src("a", 1, withUnits(doc("a", 100), Unit{KindRequest, "Refactor the payment module"}, Unit{KindCommand, "go test ./payment/..."})),
		src("b", 1, withUnits(doc("b", 200), Unit{KindMessage, "I refactored the login flow and fixed the flaky test"}, Unit{KindFile, "internal/login/flow.go"})),
		src("c", 1, withUnits(doc("c", 300), Unit{KindRequest, "why does the payment test fail"}, Unit{KindDecision, "Use Postgres? → yes"})),
	}
}

func TestSearchQueries(t *testing.T) {
	ix := Open(t.TempDir())
	if _, err := ix.Search(Query{Groups: [][]Atom{{{Terms: []string{"x"}}}}}, Filter{}, 5); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("search before any index: %v, want ErrNoIndex", err)
	}
	st, err := ix.Update(corpus(), false, nil)
	if err != nil || st.Added != 3 {
		t.Fatalf("Update: %+v %v", st, err)
	}
	for _, c := range []struct {
		q    string
		f    Filter
		want []string
	}{
		{"payment", Filter{}, []string{"c", "a"}},
		{"PAYMENT test", Filter{}, []string{"c", "a"}},
		{"payment -fail", Filter{}, []string{"a"}},
		{`"payment test"`, Filter{}, []string{"c"}},
		{`"test payment"`, Filter{}, []string{"a"}},
		{`"fail payment"`, Filter{}, nil},
		{"refactor*", Filter{}, []string{"b", "a"}},
		{"login OR postgres", Filter{}, []string{"c", "b"}},
		{"payment", Filter{Kinds: []Kind{KindCommand}}, []string{"a"}},
		{"payment", Filter{Since: time.Unix(250, 0)}, []string{"c"}},
		{"payment", Filter{Until: time.Unix(250, 0)}, []string{"a"}},
		{"flow.go", Filter{Kinds: []Kind{KindFile}}, []string{"b"}},
		{"payment", Filter{Machine: "other"}, nil},
		{"nothing", Filter{}, nil},
	} {
		if got := ids(t, ix, c.q, c.f); !slices.Equal(got, c.want) {
			t.Errorf("%q %+v = %v, want %v", c.q, c.f, got, c.want)
		}
	}
	pq, _ := ParseQuery(`"payment test"`)
	res, _ := ix.Search(pq, Filter{}, 5)
	if want := "why does the «payment test» fail"; res.Hits[0].Snippet != want {
		t.Errorf("snippet %q, want %q", res.Hits[0].Snippet, want)
	}
}

func TestUpdateIsIncremental(t *testing.T) {
	ix := Open(t.TempDir())
	if _, err := ix.Update(corpus(), false, nil); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Update(corpus(), false, nil)
	if err != nil || st.Added != 0 || st.Unchanged != 3 {
		t.Fatalf("second Update: %+v %v", st, err)
	}
	// a changes (new stamp), c goes, d comes.
	cs := corpus()
	cs[0] = src("a", 2, withUnits(doc("a", 400), Unit{KindRequest, "rewrite billing"}))
	cs = append(cs[:2], src("d", 1, withUnits(doc("d", 50), Unit{KindRequest, "payment again"})))
	st, err = ix.Update(cs, false, nil)
	if err != nil || st.Added != 2 || st.Removed != 1 {
		t.Fatalf("third Update: %+v %v", st, err)
	}
	if got := ids(t, ix, "payment", Filter{}); !slices.Equal(got, []string{"d"}) {
		t.Errorf("payment after the update = %v, want [d]", got)
	}
	if got := ids(t, ix, "billing", Filter{}); !slices.Equal(got, []string{"a"}) {
		t.Errorf("billing = %v, want [a]", got)
	}
	// An unreadable source is left out, and not read again until it
	// changes.
	reads := 0
	bad := Source{Key: "session:e", Stamp: Stamp{Size: 9}, Load: func() (*Doc, error) { reads++; return nil, errors.New("bad") }}
	for range 2 {
		if _, err := ix.Update(append(cs, bad), false, nil); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 1 {
		t.Errorf("an unreadable source was read %d times, want 1", reads)
	}
}

func TestMergeKeepsAnswers(t *testing.T) {
	ix := Open(t.TempDir())
	var srcs []Source
	for i := range maxSegments + 3 {
		id := fmt.Sprint("s", i)
		srcs = append(srcs, src(id, 1, withUnits(doc(id, i), Unit{KindRequest, "common word" + fmt.Sprint(" w", i)})))
		if _, err := ix.Update(srcs, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ix.readManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) > maxSegments {
		t.Errorf("%d segments kept, want at most %d", len(m.Segments), maxSegments)
	}
	if got := ids(t, ix, "common", Filter{}); len(got) != len(srcs) {
		t.Errorf("common found %d, want %d", len(got), len(srcs))
	}
	if got := ids(t, ix, "w3", Filter{}); !slices.Equal(got, []string{"s3"}) {
		t.Errorf("w3 = %v", got)
	}
	des, _ := os.ReadDir(ix.Dir())
	segs := 0
	for _, de := range des {
		if strings.HasPrefix(de.Name(), segPrefix) {
			segs++
		}
	}
	if segs != len(m.Segments) {
		t.Errorf("%d segment files for %d listed: strays left", segs, len(m.Segments))
	}
}

// Full segments (a large index's, full batches) are not rewritten for a
// small change: past maxSegments of them, an update adds its own and
// leaves them, and one that changes nothing writes nothing (at 5 GiB
// every update rewrote the whole 445 MiB index). Small ones still merge
// (TestMergeKeepsAnswers), and a segment most of whose documents were
// replaced is rewritten with them.
func TestFullSegmentsAreNotMerged(t *testing.T) {
	defer func(old int64) { fullSegment = old }(fullSegment)
	fullSegment = 1 // every segment counts as full
	ix := Open(t.TempDir())
	var srcs []Source
	for i := range maxSegments + 3 {
		id := fmt.Sprint("s", i)
		srcs = append(srcs, src(id, 1, withUnits(doc(id, i), Unit{KindRequest, "common word" + fmt.Sprint(" w", i)})))
		if st, err := ix.Update(srcs, false, nil); err != nil || st.Merged {
			t.Fatalf("update %d: %+v %v", i, st, err)
		}
	}
	before, err := ix.readManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Segments) != maxSegments+3 {
		t.Fatalf("%d segments, want one an update", len(before.Segments))
	}
	if st, err := ix.Update(srcs, false, nil); err != nil || st.Merged || st.Added != 0 {
		t.Fatalf("an update with nothing changed: %+v %v", st, err)
	}
	after, _ := ix.readManifest()
	if !slices.Equal(after.Segments, before.Segments) {
		t.Errorf("segments rewritten with nothing changed: %v, were %v", after.Segments, before.Segments)
	}
	// Small ones again: the small segments merge, into one.
	fullSegment = 1 << 40
	srcs = append(srcs, src("new", 1, withUnits(doc("new", 99), Unit{KindRequest, "common word"})))
	if st, err := ix.Update(srcs, false, nil); err != nil || !st.Merged {
		t.Fatalf("an update past %d small segments: %+v %v", maxSegments, st, err)
	}
	if got := ids(t, ix, "common", Filter{}); len(got) != len(srcs) {
		t.Errorf("common found %d after the merge, want %d", len(got), len(srcs))
	}
}

// A writer killed after writing a segment but before the manifest leaves
// a stray segment: the index answers as before, and the next update
// removes it.
func TestStraySegmentIgnoredAndRemoved(t *testing.T) {
	dir := t.TempDir()
	ix := Open(dir)
	if _, err := ix.Update(corpus(), false, nil); err != nil {
		t.Fatal(err)
	}
	b := newBuilder()
	ghost := withUnits(doc("ghost", 999), Unit{KindRequest, "payment ghost"})
	b.add(ghost, encodeDoc(ghost))
	stray := filepath.Join(dir, segPrefix+"999999"+segSuffix)
	if err := b.write(stray); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, ix, "ghost", Filter{}); got != nil {
		t.Errorf("a stray segment answered: %v", got)
	}
	if _, err := ix.Update(corpus(), false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stray segment is still there: %v", err)
	}
}

// Stamps survive the manifest exactly: a modification time in
// nanoseconds is past what a float64 holds.
func TestStampsRoundTrip(t *testing.T) {
	ix := Open(t.TempDir())
	s := src("a", 1, withUnits(doc("a", 1), Unit{KindRequest, "x"}))
	s.Stamp = Stamp{Size: 1<<40 + 3, MTime: 1795934389971487848, Tail: "9d01555fa50e110695eca1da"}
	for i, want := range []int{1, 0} {
		st, err := ix.Update([]Source{s}, false, nil)
		if err != nil || st.Added != want {
			t.Fatalf("update %d: %+v %v, want %d added", i, st, err, want)
		}
	}
}

// A snapshot sees a file added, removed or grown (one written lately),
// a directory added deep down, and a file in the store's directory, and
// nothing else; one taken right after a change is not kept.
func TestSnapshot(t *testing.T) {
	root, flat := t.TempDir(), t.TempDir()
	ix := Open(t.TempDir())
	old := filepath.Join(root, "a", "old.jsonl")
	hot := filepath.Join(root, "a", "hot.jsonl")
	// A root that is a file: a database named by itself.
	file := filepath.Join(t.TempDir(), "crush.db")
	os.WriteFile(file, []byte("x"), 0o600)
	os.MkdirAll(filepath.Dir(old), 0o700)
	os.WriteFile(old, []byte("x"), 0o600)
	os.WriteFile(hot, []byte("x"), 0o600)
	// Everything as if written long ago, but hot an hour ago.
	age := func() {
		filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error {
			return os.Chtimes(p, time.Now(), time.Now().Add(-30*24*time.Hour))
		})
		filepath.WalkDir(flat, func(p string, _ fs.DirEntry, _ error) error {
			return os.Chtimes(p, time.Now(), time.Now().Add(-30*24*time.Hour))
		})
		os.Chtimes(hot, time.Now(), time.Now().Add(-time.Hour))
		os.Chtimes(file, time.Now(), time.Now().Add(-30*24*time.Hour))
	}
	roots, flats := []string{root, filepath.Join(root, "absent"), file}, []string{flat}
	fresh := func() {
		t.Helper()
		age()
		if err := ix.SetFresh(takeSnapshot(roots, flats, time.Now(), nil)); err != nil {
			t.Fatal(err)
		}
		if !ix.Unchanged(roots, flats) {
			t.Fatal("nothing changed, yet not unchanged")
		}
	}
	fresh()
	if ix.Unchanged(roots[:1], flats) {
		t.Error("other roots, yet unchanged")
	}
	for i, change := range []func(){
		func() { os.WriteFile(hot, []byte("xy"), 0o600) },
		func() { os.WriteFile(filepath.Join(root, "a", "t.jsonl"), nil, 0o600) },
		func() { os.MkdirAll(filepath.Join(root, "a", "b", "c"), 0o700) },
		func() { os.WriteFile(filepath.Join(root, "a", "b", "c", "d.jsonl"), nil, 0o600) },
		func() { os.WriteFile(filepath.Join(flat, "index"), nil, 0o600) },
		func() { os.MkdirAll(roots[1], 0o700) },
		func() { os.Remove(old) },
		func() { os.WriteFile(file, []byte("xy"), 0o600) },
	} {
		change()
		if ix.Unchanged(roots, flats) {
			t.Fatalf("change %d left the index unchanged", i)
		}
		fresh()
	}
	// Taken right after a change, a snapshot is not kept.
	os.WriteFile(hot, []byte("xyz"), 0o600)
	if err := ix.SetFresh(takeSnapshot(roots, flats, time.Now(), nil)); err != nil {
		t.Fatal(err)
	}
	if ix.Unchanged(roots, flats) {
		t.Error("a racy snapshot was kept")
	}
}

// A catch-up while another process updates the index does not wait for
// it: the index answers as it is.
func TestCatchUpDoesNotWaitForAWriter(t *testing.T) {
	dir := t.TempDir()
	ix := Open(dir)
	if _, err := ix.Update(corpus(), false, nil); err != nil {
		t.Fatal(err)
	}
	lk, err := safefile.LockFile(filepath.Join(dir, lockName))
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	if _, err := ix.update(corpus()[:1], false, nil, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("update while locked: %v, want ErrBusy", err)
	}
	if got := ids(t, ix, "payment", Filter{}); !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("payment while locked = %v", got)
	}
}

// A session sharing its file with others (a database) is stamped by its
// own last activity: another session's work, which changes the file,
// leaves its stamp as it was (each was read again before, every time one
// session of the database moved).
func TestSharedFileSessionStamp(t *testing.T) {
	db := filepath.Join(t.TempDir(), "opencode.db")
	os.WriteFile(db, []byte("one"), 0o600)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	a := capture.SessionInfo{Agent: "opencode", Path: db, ID: "a", LastActivity: at}
	b := capture.SessionInfo{Agent: "opencode", Path: db, ID: "b", LastActivity: at.Add(time.Minute)}
	stamp := func(s capture.SessionInfo) Stamp {
		t.Helper()
		st, ok := newStamper(time.Now()).session(s, Stamp{}, true)
		if !ok {
			t.Fatalf("%s: no stamp", s.ID)
		}
		return st
	}
	sa, sb := stamp(a), stamp(b)
	os.WriteFile(db, []byte("one, and b's new message"), 0o600)
	b.LastActivity = b.LastActivity.Add(time.Minute)
	if stamp(a) != sa {
		t.Error("b's work changed a's stamp")
	}
	if stamp(b) == sb {
		t.Error("b's work left b's stamp as it was")
	}
	os.Remove(db)
	if _, ok := newStamper(time.Now()).session(a, Stamp{}, true); ok {
		t.Error("a session whose database is gone has a stamp")
	}
}

// parseRow reads the manifest's source lines as encoding/json does, or
// leaves them to it: keys with escapes and odd characters round-trip
// through the manifest, and a line of another shape is refused.
func TestParseRowAgreesWithJSON(t *testing.T) {
	for _, line := range []string{
		`["session:codex:/h/r.jsonl#id",12,1795934389971487848,"9d01555fa50e110695eca1da","seg-000001.six",3]`,
		`["handoff:01J",0,1,"","",0]`,
		`["session:x:/h/\"quoted\"\\back.jsonl#1",1,2,"t","seg-000002.six",0]`,
		`["session:x:/h/ünïcode 日本.jsonl#1",1,-2,"t","",0]`,
	} {
		var row []any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var wantKey string
		var want entry
		if dec.Decode(&row) != nil || !decodeRow(row, &wantKey, &want) {
			t.Fatalf("encoding/json refuses %s", line)
		}
		if key, e, ok := parseRow([]byte(line)); ok && (key != wantKey || e != want) {
			t.Errorf("%s: parseRow %q %+v, encoding/json %q %+v", line, key, e, wantKey, want)
		}
	}
	for _, bad := range []string{`["k",1,2,"t","seg-a/b.six",0]`, `["k",1,2,"t","",0`, `["k",1,2,"t","",-1]`, `["k",1,"2","t","",0]`, `["k",1,2,"t","",0]x`} {
		if _, _, ok := parseRow([]byte(bad)); ok {
			t.Errorf("parseRow took %s", bad)
		}
	}
	// Through the manifest: the keys come back as they went.
	ix := Open(t.TempDir())
	m := newManifest()
	for _, k := range []string{"session:x:/h/\"q\"\\b.jsonl#1", "session:x:/h/ü 日本.jsonl#2", "handoff:01J"} {
		m.Live[k] = entry{Stamp: Stamp{Size: 1, MTime: 1795934389971487848, Tail: "t"}}
	}
	if err := ix.writeManifest(m); err != nil {
		t.Fatal(err)
	}
	got, err := ix.readManifest()
	if err != nil || len(got.Live) != len(m.Live) {
		t.Fatalf("read back %d sources, %v", len(got.Live), err)
	}
	for k, e := range m.Live {
		if got.Live[k] != e {
			t.Errorf("%q: %+v, wrote %+v", k, got.Live[k], e)
		}
	}
}

// manifestHeader is the first line of ix's manifest.
func manifestHeader(t testing.TB, ix *Index) *header {
	t.Helper()
	h, _, f, err := ix.readHeader()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	return h
}

// TestSearchReadsTheNewestSegmentsFirst: a word in every document is
// answered from the newest segments, newest first, and the search stops
// at the limit without opening the segments that can only hold older
// documents: with the oldest segment's file gone, the newest hits still
// show (a search that read every segment failed on the missing file).
func TestSearchReadsTheNewestSegmentsFirst(t *testing.T) {
	ix := Open(t.TempDir())
	var sources []Source
	// Three updates, three segments: days 1, 2 and 3.
	for day := 1; day <= 3; day++ {
		for i := range 4 {
			id := fmt.Sprintf("d%d-%d", day, i)
			sources = append(sources, src(id, 1, withUnits(doc(id, day*86400+i), Unit{KindMessage, "common word " + id})))
		}
		if _, err := ix.Update(sources, false, nil); err != nil {
			t.Fatal(err)
		}
	}
	h := manifestHeader(t, ix)
	if len(h.Segments) != 3 {
		t.Fatalf("%d segments, want 3", len(h.Segments))
	}
	oldest := h.Segments[0]
	if oldest.Newest != 86400+3 || oldest.Oldest != 86400 {
		t.Fatalf("the oldest segment's span is %+v, want 86400..86403", oldest.span)
	}
	if err := os.Remove(filepath.Join(ix.dir, oldest.Name)); err != nil {
		t.Fatal(err)
	}
	q, _ := ParseQuery("common")
	res, err := ix.Search(q, Filter{}, 5)
	if err != nil {
		t.Fatalf("a search the two newest segments answer read the oldest: %v", err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.Doc.ID)
	}
	if want := []string{"d3-3", "d3-2", "d3-1", "d3-0", "d2-3"}; !slices.Equal(got, want) || !res.More {
		t.Fatalf("hits %v (more %v), want %v and more", got, res.More, want)
	}
	// A word only the oldest segment holds needs it: the missing file is
	// an error, not a silent miss.
	q, _ = ParseQuery("d1")
	if _, err := ix.Search(q, Filter{}, 5); err == nil {
		t.Fatal("a search that needs the missing segment answered")
	}
}

// TestTermsDocsAgreesWithMatchAtom: the path words and phrases take,
// their posting lists walked side by side, finds the same documents with
// the same best hit as the general path through maps of the units'
// positions, with and without a kind filter.
func TestTermsDocsAgreesWithMatchAtom(t *testing.T) {
	ix := Open(t.TempDir())
	words := strings.Fields("alpha beta gamma delta alpha alpha beta")
	rng := rand.New(rand.NewPCG(7, 11))
	var sources []Source
	for i := range 300 {
		var units []Unit
		for u := range 1 + i%7 {
			var sb strings.Builder
			for range 3 + rng.IntN(12) {
				sb.WriteString(words[rng.IntN(len(words))] + " ")
			}
			units = append(units, Unit{Kind: Kind((i + u) % int(numKinds)), Text: sb.String()})
		}
		id := fmt.Sprint(i)
		sources = append(sources, src(id, 1, withUnits(doc(id, i), units...)))
	}
	if _, err := ix.Update(sources, false, nil); err != nil {
		t.Fatal(err)
	}
	h := manifestHeader(t, ix)
	seg, err := openSegment(filepath.Join(ix.dir, h.Segments[0].Name), h.Segments[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.close()
	collect := func(word func(fn func(int, docHit)) error) map[int]docHit {
		got := map[int]docHit{}
		if err := word(func(d int, h docHit) {
			if _, ok := got[d]; ok {
				t.Fatalf("document %d given twice", d)
			}
			got[d] = h
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, w := range []string{"alpha", "beta", "gamma", "delta", "absent", "alpha beta", "beta alpha", "alpha alpha", "gamma delta alpha", "delta absent", "alpha beta gamma delta"} {
		ts := strings.Fields(w)
		for _, kinds := range []uint8{0, 1 << KindRequest, 1<<KindTitle | 1<<KindMessage} {
			fast := collect(func(fn func(int, docHit)) error { return termsDocs(seg, ts, kinds, fn) })
			slow := collect(func(fn func(int, docHit)) error {
				hits, err := matchAtom(seg, Atom{Terms: ts}, kinds)
				for d, h := range hits.best(len(ts)) {
					fn(d, h)
				}
				return err
			})
			if fmt.Sprint(fast) != fmt.Sprint(slow) {
				t.Errorf("%q kinds %b: the posting lists' path found %v, the units' path %v", w, kinds, fast, slow)
			}
			if len(slow) == 0 && w != "absent" && w != "delta absent" {
				t.Errorf("%q kinds %b: nothing found, the test proves nothing", w, kinds)
			}
		}
	}
}

// TestAllHoldFindsOneChange: the snapshot's items, stated on every CPU,
// hold while nothing changed, and one changed file among thousands, at
// either end or in the middle, is seen.
func TestAllHoldFindsOneChange(t *testing.T) {
	dir := t.TempDir()
	var items []item
	for i := range 1500 {
		p := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, item{Kind: itemFile, Path: p, Size: fi.Size(), MTime: fi.ModTime().UnixNano()})
	}
	items = append(items, item{Kind: itemAbsent, Path: filepath.Join(dir, "none")})
	if !allHold(items) {
		t.Fatal("nothing changed, yet the snapshot does not hold")
	}
	for _, i := range []int{0, 749, 1499} {
		p := items[i].Path
		if err := os.WriteFile(p, []byte("xy"), 0o600); err != nil {
			t.Fatal(err)
		}
		if allHold(items) {
			t.Fatalf("file %d grew, yet the snapshot holds", i)
		}
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, time.Unix(0, items[i].MTime), time.Unix(0, items[i].MTime))
	}
	if err := os.WriteFile(filepath.Join(dir, "none"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if allHold(items) {
		t.Fatal("an absent path appeared, yet the snapshot holds")
	}
}
