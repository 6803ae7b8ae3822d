package qwen

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/transcript"
)

// rec writes one record of session s as Qwen Code does, with extra
// fields (JSON object members, without braces).
func rec(uuid, parent, typ, extra string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"uuid":"` + uuid + `","parentUuid":` + p + `,"sessionId":"s","timestamp":"2026-11-27T10:00:00Z","type":"` + typ +
		`","cwd":"/w","version":"0.24.4","gitBranch":"main"` + extra + "}\n"
}

func userRec(uuid, parent, text string) string {
	return rec(uuid, parent, "user", `,"message":{"role":"user","parts":[{"text":"`+text+`"}]}`)
}

func textRec(uuid, parent, text string) string {
	return rec(uuid, parent, "assistant", `,"message":{"role":"model","parts":[{"text":"`+text+`"}]}`)
}

func callRec(uuid, parent, id, name, args string) string {
	return rec(uuid, parent, "assistant", `,"message":{"role":"model","parts":[{"functionCall":{"id":"`+id+`","name":"`+name+`","args":`+args+`}}]}`)
}

func resultRec(uuid, parent, id, status, display string) string {
	return rec(uuid, parent, "tool_result", `,"message":{"role":"user","parts":[{"functionResponse":{"id":"`+id+`","name":"x","response":{"output":"out"}}}]},"toolCallResult":{"callId":"`+id+`","status":"`+status+`","resultDisplay":`+display+`}`)
}

func readText(t *testing.T, text string, lim transcript.Limits) (*transcript.Digest, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return Transcripts{}.Read(p, "", lim)
}

func mustRead(t *testing.T, text string) *transcript.Digest {
	t.Helper()
	d, err := readText(t, text, transcript.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReadRewind: the records a rewind left on a dead branch (a request
// and the command it ran) are not the session's; the request after the
// rewind is.
func TestReadRewind(t *testing.T) {
	d := mustRead(t, userRec("u1", "", "first")+textRec("a1", "u1", "one")+
		userRec("u2", "a1", "second")+callRec("a2", "u2", "c1", "run_shell_command", `{"command":"rm -rf build"}`)+
		resultRec("t1", "a2", "c1", "success", `{"type":"shell_result","exitCode":0,"outcome":"completed","output":""}`)+
		rec("r1", "a1", "system", `,"subtype":"rewind","systemPayload":{}`)+
		userRec("u3", "r1", "third")+textRec("a3", "u3", "done"))
	if want := []string{"first", "third"}; !reflect.DeepEqual(d.Session.Requests, want) || len(d.Session.Commands) != 0 || d.Session.LastAgentMessage != "done" {
		t.Errorf("requests %q, commands %+v, last %q; want %q, none, done", d.Session.Requests, d.Session.Commands, d.Session.LastAgentMessage, want)
	}
}

// TestReadRequestsWithoutHookContext: a UserPromptSubmit hook's context
// is no part of the request, whether the record keeps the typed text
// apart (displayText) or not.
func TestReadRequestsWithoutHookContext(t *testing.T) {
	hook := `{"text":"<qwen:user-prompt-submit-context>\nBRIEFING\n</qwen:user-prompt-submit-context>"}`
	d := mustRead(t, rec("u1", "", "user", `,"message":{"role":"user","parts":[{"text":"what next?"},`+hook+`]},"systemPayload":{"displayText":"what next?","hookContext":"BRIEFING"}`)+
		rec("u2", "u1", "user", `,"message":{"role":"user","parts":[{"text":"and then?"},`+hook+`]}`)+
		rec("u3", "u2", "user", `,"subtype":"notification","provenance":"system","message":{"role":"user","parts":[{"text":"task done"}]}`))
	if want := []string{"what next?", "and then?"}; !reflect.DeepEqual(d.Session.Requests, want) || d.Title != "what next?" {
		t.Errorf("requests %q title %q, want %q", d.Session.Requests, d.Title, want)
	}
}

// TestReadToolsAndStates: a deferred tool called through tool_call is
// read as the tool it names; a cancelled call was interrupted; a turn
// the user cancelled is noted; a title the user gave, written after the
// chain's end, is the title; unknown types are counted.
func TestReadToolsAndStates(t *testing.T) {
	d := mustRead(t, userRec("u1", "", "build it")+
		callRec("a1", "u1", "c1", "tool_call", `{"name":"run_shell_command","arguments":{"command":"make"}}`)+
		resultRec("t1", "a1", "c1", "success", `{"type":"shell_result","exitCode":0,"outcome":"completed","output":""}`)+
		callRec("a2", "t1", "c2", "run_shell_command", `{"command":"make test"}`)+
		resultRec("t2", "a2", "c2", "cancelled", `"cancelled"`)+
		rec("x1", "t2", "system", `,"subtype":"turn_result","systemPayload":{"promptId":"p","state":"cancelled","endedAt":1}`)+
		rec("x2", "x1", "weird", "")+
		rec("x3", "x2", "system", `,"subtype":"new_thing","systemPayload":{}`)+
		rec("x4", "x3", "system", `,"subtype":"custom_title","systemPayload":{"customTitle":"Build the thing"}`))
	want := []handoff.Command{{Command: "make", ExitCode: exit(0), Count: 1, Status: handoff.StatusOK},
		{Command: "make test", Count: 1, Status: handoff.StatusInterrupted}}
	if !reflect.DeepEqual(d.Session.Commands, want) {
		t.Errorf("commands %+v, want %+v", d.Session.Commands, want)
	}
	if !d.Cancelled || d.Title != "Build the thing" {
		t.Errorf("cancelled %v, title %q", d.Cancelled, d.Title)
	}
	if d.Stats.UnknownTypes["weird"] != 1 || d.Stats.UnknownTypes["system/new_thing"] != 1 {
		t.Errorf("unknown types %v", d.Stats.UnknownTypes)
	}
}

// TestReadHostile: bad lines are counted, never fatal; a field of the
// wrong type is read as absent (transcript.Decode), its line kept; a cycle
// in the records' links ends; a line over the limit is skipped.
func TestReadHostile(t *testing.T) {
	text := userRec("u1", "u2", "asked") + textRec("u2", "u1", "answered") +
		`{"uuid":5,"type":"user"}` + "\n" +
		`{"uuid":"u3","parentUuid":"u2","sessionId":"s","type":"user","message":{"parts":"x"}}` + "\n" +
		"not json\n" + `["an","array"]` + "\n" +
		userRec("u4", "u2", strings.Repeat("a", 4096))
	d, err := readText(t, text, transcript.Limits{MaxLine: 2048})
	if err != nil {
		t.Fatal(err)
	}
	if d.Stats.Malformed != 2 || d.Stats.Records != 4 || d.Stats.TooLong != 1 || !reflect.DeepEqual(d.Session.Requests, []string{"asked"}) {
		t.Errorf("stats %+v, requests %q", d.Stats, d.Session.Requests)
	}
}

// TestReadRefusesOthers: another agent's transcript, of JSON objects
// linked by uuid as Qwen Code's are, is no Qwen Code session.
func TestReadRefusesOthers(t *testing.T) {
	claude := `{"parentUuid":null,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s","timestamp":"2026-11-27T10:00:00Z","cwd":"/w","version":"2.1.332"}` + "\n"
	if d, err := readText(t, claude, transcript.Limits{}); !errors.Is(err, transcript.ErrNoRecords) {
		t.Errorf("read a Claude Code transcript: %+v, %v", d, err)
	}
}
