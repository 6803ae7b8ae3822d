package cline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/internal/transcript"
)

// readBoth reads b as a messages file both ways: whole (readWhole) and
// as a stream (readStream); whole is nil when b is not read whole.
func readBoth(b []byte, lim transcript.Limits) (whole, stream *transcript.Digest, wholeErr, streamErr error, valid bool) {
	s := newSession()
	valid, wholeErr = s.readWhole(b, lim)
	if valid && wholeErr == nil {
		whole, wholeErr = s.finish()
	}
	s = newSession()
	if streamErr = s.readStream(bytes.NewReader(b), lim); streamErr == nil {
		stream, streamErr = s.finish()
	}
	return whole, stream, wholeErr, streamErr, valid
}

// A messages file read whole gives what reading it as a stream gives,
// digest and error, at every bound on a message's size (counted as the
// stream counts it: from the comma before it), for the real sessions of
// testdata and for files of every shape: whitespace around the commas,
// messages null or no array, keys escaped or given twice, no messages.
// A file that is not one JSON object is left to the stream, whose error
// says what is wrong.
func TestReadWholeAsStream(t *testing.T) {
	var files [][]byte
	_ = filepath.Walk("testdata", func(path string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, messagesSuffix) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, b)
		}
		return nil
	})
	if len(files) < 5 {
		t.Fatalf("%d messages files in testdata", len(files))
	}
	msg := func(i int, pad string) string {
		return fmt.Sprintf(`{"id":"m%d","role":"user","content":"ask %d%s","ts":17957900%05d}`, i, i, pad, i)
	}
	shapes := []string{
		oneRequest,
		`{"sessionId":"s","messages":[` + msg(1, "") + `,` + msg(2, "xx") + ` ,  ` + msg(3, "") + "\n,\n\t" + msg(4, "yyyy") + `]}`,
		`{"messages":[ ` + msg(1, "") + ` , ` + msg(2, "") + ` ]} `,
		`{"messages":null}`, `{"messages":{}}`, `{"messages":"x"}`, `{"messages":1}`, `{"sessionId":1}`,
		`{"origin":{"mode":"subagent","parentThreadId":"p","version":3},"messages":[]}`,
		`{"origin":{"mode":"subagent","parentThreadId":"p"},"messages":[]}`,
		`{"\u006dessages":[` + msg(1, "") + `],"messages":[` + msg(2, "") + `],"sessionId":"a","sessionId":"b"}`,
		`{"messages":[1,"x",null,{},{"role":"assistant","content":[{"type":"text","text":"hi"}]}]}`,
		`{}`, `[]`, `{"messages":[]} x`, `{"messages":[`, "\xef\xbb\xbf{\"messages\":[]}", ``, `{"messages":[1,]}`,
	}
	real := len(files)
	for _, sh := range shapes {
		files = append(files, []byte(sh))
	}
	for i, b := range files {
		for _, max := range []int{1, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 75, 80, 200, 1000, 4000, 0} {
			lim := transcript.Limits{MaxLine: max}.WithDefaults()
			whole, stream, wholeErr, streamErr, valid := readBoth(b, lim)
			if !valid {
				if i < real || streamErr == nil {
					t.Errorf("%.60q: not read whole (the stream: %v)", b, streamErr)
				}
				continue
			}
			if fmt.Sprint(wholeErr) != fmt.Sprint(streamErr) || !reflect.DeepEqual(whole, stream) {
				t.Errorf("%.60q, MaxLine %d: whole %+v (%v), stream %+v (%v)", b, max, digestStats(whole), wholeErr, digestStats(stream), streamErr)
			}
		}
	}
}

func digestStats(d *transcript.Digest) any {
	if d == nil {
		return nil
	}
	return d.Stats
}
