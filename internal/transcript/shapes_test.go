package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcriptgen"
)

// shapeCorpus returns transcripts of agent: the sample transcripts, the
// hostile corpus and a few generated ones.
func shapeCorpus(t *testing.T, agent Agent) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var files []string
	samples := filepath.Join(samplesDir, agentDir(agent), "*")
	for _, pat := range []string{samples, filepath.Join("testdata", "hostile", "*")} {
		fs, _ := filepath.Glob(pat)
		if len(fs) == 0 {
			t.Fatalf("no files match %s", pat)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = data
	}
	if !slices.Contains(transcriptgen.Agents, string(agent)) {
		return out
	}
	for seed := range 6 {
		var b bytes.Buffer
		g := transcriptgen.New(uint64(seed), "/src/app")
		g.Branchy = seed%2 == 1
		size := 300 << 10
		if g.Branchy {
			size = 3 << 20 // enough turns for rewinds and rollbacks
		}
		if err := g.Write(string(agent), &b, size); err != nil {
			t.Fatal(err)
		}
		out[fmt.Sprintf("generated-%d", seed)] = b.Bytes()
	}
	return out
}

// oncePass makes testReader hide that it can be read twice.
var oncePass bool

func testReader(b []byte) io.Reader {
	if oncePass {
		return struct{ io.Reader }{bytes.NewReader(b)}
	}
	return bytes.NewReader(b)
}

func readerShape(a Agent) *shape {
	switch a {
	case ClaudeCode:
		return lineShapes().claude
	case Codex:
		return lineShapes().codex
	}
	return lineShapes().gemini
}

func TestShapesChangeNothing(t *testing.T) {
	readers := map[Agent]func([]byte, *shape) (*Digest, error){
		ClaudeCode: func(b []byte, sh *shape) (*Digest, error) {
			return readClaudeCode(testReader(b), Limits{MaxLine: 256 << 10}, sh, false)
		},
		Codex: func(b []byte, sh *shape) (*Digest, error) {
			return readCodex(testReader(b), Limits{MaxLine: 256 << 10}, sh)
		},
		Gemini: func(b []byte, sh *shape) (*Digest, error) {
			return readGeminiShaped(testReader(b), Limits{MaxLine: 256 << 10}.withDefaults(), "", sh)
		},
	}
	for _, agent := range Agents {
		for name, data := range shapeCorpus(t, agent) {
			// The reference: every line decoded whole, in one pass.
			oncePass = true
			whole, err1 := readers[agent](data, nil)
			for _, once := range []bool{true, false} {
				oncePass = once
				for _, sh := range []*shape{nil, readerShape(agent)} {
					shaped, err2 := readers[agent](data, sh)
					if fmt.Sprint(err1) != fmt.Sprint(err2) || !reflect.DeepEqual(whole, shaped) {
						t.Errorf("%s %s (one pass %v, shaped %v): digest differs:\n whole %+v %v\nshaped %+v %v", agent, name, once, sh != nil, whole, err1, shaped, err2)
					}
				}
			}
			oncePass = false
			// Discovery's prober sees the same.
			p1, p2 := newProber(agent), newProber(agent)
			scan(bytes.NewReader(data), false, nil, p1.both)
			scan(bytes.NewReader(data), false, probeShape(agent), p2.both)
			if *p1 != *p2 {
				t.Errorf("%s %s: prober differs:\n whole %+v\nshaped %+v", agent, name, *p1, *p2)
			}
			// One pass that reads each line as head and tail sees what
			// a head pass and a tail pass over the same lines see.
			p3 := newProber(agent)
			scan(bytes.NewReader(data), false, probeShape(agent), p3.head)
			scan(bytes.NewReader(data), false, probeShape(agent), p3.tail)
			if *p3 != *p2 {
				t.Errorf("%s %s: one pass differs from two:\n  two %+v\n  one %+v", agent, name, *p3, *p2)
			}
		}
	}
}

func TestMalformedLines(t *testing.T) {
	var ls []string
	ls = append(ls, `{"type":"user","uuid":"u","message":{"content":"hi"}}`, "", "not json", `{"type":"user"`, "   ", "[1]")
	for range 150 {
		ls = append(ls, "garbage")
	}
	in := strings.Join(ls, "\n") + "\n"
	for _, agent := range Agents {
		var d *Digest
		var err error
		switch agent {
		case ClaudeCode:
			d, err = ReadClaudeCode(strings.NewReader(in), Limits{})
		case Codex:
			d, err = ReadCodex(strings.NewReader(in), Limits{})
		case Gemini:
			d, err = ReadGemini(strings.NewReader(in), Limits{})
		}
		if err != nil {
			t.Fatalf("%s: %v", agent, err)
		}
		st := d.Stats
		if st.Malformed != 153 || len(st.MalformedLines) != MaxMalformedLines {
			t.Fatalf("%s: %d malformed, %d listed", agent, st.Malformed, len(st.MalformedLines))
		}
		want := []int{3, 4, 6, 7, 8}
		if !slices.Equal(st.MalformedLines[:5], want) || st.MalformedLines[99] != 103 {
			t.Errorf("%s: malformed lines %v…%d, want %v…103", agent, st.MalformedLines[:5], st.MalformedLines[99], want)
		}
	}
}

// TestLineReaderAcrossBuffer reads lines around the line limit and the
// reader's buffer size, with and without carriage returns.
func TestLineReaderAcrossBuffer(t *testing.T) {
	for _, max := range []int{10, 64<<10 - 1, 64 << 10, 64<<10 + 1, 200 << 10} {
		var in bytes.Buffer
		var want []string
		var wantLong []bool
		for _, n := range []int{0, 1, max - 1, max, max + 1, max + 2, max + 3, 64<<10 - 2, 64<<10 - 1, 64 << 10, 64<<10 + 1, 130 << 10} {
			for _, end := range []string{"\n", "\r\n"} {
				line := strings.Repeat("x", n)
				in.WriteString(line + end)
				want = append(want, line)
				wantLong = append(wantLong, n > max)
			}
		}
		in.WriteString("last")
		want = append(want, "last")
		wantLong = append(wantLong, 4 > max)
		lr := newLineReader(&in, max)
		for i := range want {
			line, long, err := lr.next()
			if err != nil {
				t.Fatalf("max %d line %d: %v", max, i, err)
			}
			if long != wantLong[i] || !long && string(line) != want[i] || lr.n != i+1 {
				t.Fatalf("max %d line %d: %d bytes long=%v n=%d, want %d bytes long=%v", max, i, len(line), long, lr.n, len(want[i]), wantLong[i])
			}
		}
		if _, _, err := lr.next(); err == nil {
			t.Fatalf("max %d: no EOF", max)
		}
	}
}
