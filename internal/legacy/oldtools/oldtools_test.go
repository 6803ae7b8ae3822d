package oldtools

import "testing"

// The goldens are what Python 3's json.dump(data, ensure_ascii=False,
// indent=2) printed for the same checkpoints (agent-handover's
// Checkpoint._save), run once when this writer was made.
func TestCheckpointIsPythons(t *testing.T) {
	for _, tc := range []struct {
		got  []byte
		want string
	}{
		{Checkpoint("in_progress", []CheckpointStep{{"session_note", "done"}, {"current_state", "pending"}, {"publish", "pending"}}, "2026-03-05T09:00:00.123456+00:00", ""), "{\n  \"status\": \"in_progress\",\n  \"steps\": {\n    \"session_note\": \"done\",\n    \"current_state\": \"pending\",\n    \"publish\": \"pending\"\n  },\n  \"started_at\": \"2026-03-05T09:00:00.123456+00:00\",\n  \"finished_at\": null\n}"},
		{Checkpoint("none", nil, "", ""), "{\n  \"status\": \"none\",\n  \"steps\": {},\n  \"started_at\": null,\n  \"finished_at\": null\n}"},
		{Checkpoint("x", []CheckpointStep{{"a\"b\\c\n\x01é", "done"}}, "", ""), "{\n  \"status\": \"x\",\n  \"steps\": {\n    \"a\\\"b\\\\c\\n\\u0001\u00e9\": \"done\"\n  },\n  \"started_at\": null,\n  \"finished_at\": null\n}"},
	} {
		if string(tc.got) != tc.want {
			t.Errorf("got\n%s\nwant\n%s", tc.got, tc.want)
		}
	}
}

func TestMemoryFile(t *testing.T) {
	p, data := MemoryFile(1, "text\n", "api/my tag", "2026-03-04")
	if p != "layer1/2026-03/api-my_tag-2026-03-04.md" || string(data) != "<!-- agent-handover | layer1 | 2026-03-04 -->\ntext\n" {
		t.Errorf("%s %q", p, data)
	}
}
