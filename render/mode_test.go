package render

import "testing"

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"prompt": Prompt, "instructions": Instructions} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Prompt", "instruction", "poem"} {
		if _, err := ParseMode(in); err == nil {
			t.Errorf("ParseMode(%q) accepted", in)
		}
	}
}

func TestCheckSections(t *testing.T) {
	if err := CheckSections(SectionIDs); err != nil {
		t.Errorf("every section id: %v", err)
	}
	if err := CheckSections(nil); err != nil {
		t.Errorf("none: %v", err)
	}
	if err := CheckSections([]string{SecTask, "Task"}); err == nil {
		t.Error("a section id in the wrong case was accepted")
	}
}
