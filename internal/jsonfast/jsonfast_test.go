package jsonfast

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stdDecodeObject is what decodeObject must agree with: encoding/json's
// Decoder with UseNumber, one object and nothing after it.
func stdDecodeObject(b []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

var tricky = []string{
	`{}`, ` {} `, "\t{}\r\n", `{"a":1}`, `{"a":-0.5e+10,"b":0,"c":-0,"d":1E5,"e":12.25}`,
	`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":+1}`, `{"a":1e+}`,
	`{"a":true,"b":false,"c":null}`, `{"a":tru}`, `{"a":nul}`, `{"a":truex}`, `{"a":True}`,
	`{"a":"x\"y\\z\/w\b\f\n\r\t"}`, `{"a":"\u00e9\u65e5"}`, `{"a":"\ud83d\ude00"}`,
	`{"a":"\ud83d"}`, `{"a":"\ude00"}`, `{"a":"\ud83dx"}`, `{"a":"\ud83d\u0041"}`, `{"a":"\ud83d\ud83d\ude00"}`,
	`{"a":"\u00"}`, `{"a":"\uzzzz"}`, `{"a":"\x"}`, `{"a":"\'"}`, "{\"a\":\"tab\there\"}",
	"{\"a\":\"nul\x00\"}", "{\"a\":\"del\x7f\"}", "{\"a\":\"bad\xff\xfeutf8\"}", "{\"a\":\"\xed\xa0\x80\"}",
	"{\"a\":\"ok\xef\xbf\xbd\"}", "{\"k\xff\":1}", `{"k\u0041":1,"kA":2}`, `{"a":1,"a":2}`,
	`{"a":[1,[2,[3]],{"b":[]}],"c":{}}`, `{"a":[1,]}`, `{"a":[,1]}`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`,
	`{"a" : 1 , "b" : [ 1 , 2 ] }`, `{"a":1}x`, `{"a":1} {}`, `{"a":1}}`, `[]`, `[{}]`, `"x"`, `1`, `null`,
	`{"a":1`, `{"a":"x`, `{"a":"x\`, `{"a":[`, ``, ` `, "\ufeff{}", `{"a":"` + strings.Repeat("y", 100) + `\n` + strings.Repeat("z", 9) + `"}`,
	`{"a":1}` + "\x00", `{"a":"\u0000"}`, `{"a":"\uD83D\uDE00"}`, `{"🙂":"🙂"}`, `{"a":-01}`, `{"a":-1.5E-7}`,
	`{"a":1e400}`, `{"a":123456789012345678901234567890}`,
}

func deepNest(n int, open, close string) string {
	return `{"a":` + strings.Repeat(open, n) + strings.Repeat(close, n) + `}`
}

func checkSame(t *testing.T, in []byte) {
	t.Helper()
	want, wantOK := stdDecodeObject(in)
	got, gotOK := DecodeObject(in)
	if gotOK != wantOK || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v %v\nwant %#v %v", in, got, gotOK, want, wantOK)
	}
}

func TestParseObjectMatchesStd(t *testing.T) {
	for _, s := range tricky {
		checkSame(t, []byte(s))
	}
	for _, n := range []int{maxNesting - 2, maxNesting - 1, maxNesting, maxNesting + 1} {
		checkSame(t, []byte(deepNest(n, "[", "]")))
		checkSame(t, []byte(deepNest(n, `{"b":`, "}")))
	}
	// Every line of the sample transcripts and the hostile corpus, whole and
	// cut short, and with bytes flipped at random.
	var corpus [][]byte
	for _, pat := range []string{filepath.Join(samplesDir, "*", "*"), filepath.Join("..", "transcript", "testdata", "hostile", "*"), "../agents/*/testdata/real-e2e/*/*.jsonl"} {
		files, _ := filepath.Glob(pat)
		if len(files) == 0 {
			t.Fatalf("no files match %s", pat)
		}
		for _, f := range files {
			if fi, err := os.Stat(f); err != nil {
				t.Fatal(err)
			} else if fi.IsDir() {
				continue // real/<agent>
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			corpus = append(corpus, bytes.Split(data, []byte("\n"))...)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("{}[]\",:\\u0123456789abcdefEe+-.tnrl \t\r\n\x00\x1f\x7f\xc3\xa9\xff")
	for _, line := range corpus {
		if len(line) > 1<<20 {
			continue
		}
		checkSame(t, line)
		if len(line) > 0 {
			checkSame(t, line[:r.IntN(len(line))])
		}
		for range 20 {
			mut := bytes.Clone(line)
			for range 1 + r.IntN(3) {
				if len(mut) == 0 {
					break
				}
				mut[r.IntN(len(mut))] = alphabet[r.IntN(len(alphabet))]
			}
			checkSame(t, mut)
		}
	}
}

func FuzzParseObject(f *testing.F) {
	for _, s := range tricky {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}],"input":{"edits":[1,2]}}]},"toolUseResult":{"stdout":"x","exitCode":1}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"reasoning","encrypted_content":"x","content":[{"text":"a"}],"info":{"total_token_usage":{}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkSame(t, data) })
}

// samplesDir holds the sample transcripts (testdata/transcripts at the
// repository's root).
const samplesDir = "../../testdata/transcripts"
