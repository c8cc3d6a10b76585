package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"uper", "upper", 1}, {"instruction", "instructions", 1},
		{"kitten", "sitting", 3}, {"héllo", "hello", 1}, {"ab", "ba", 1}, {"nmae", "name", 1},
		{"ca", "abc", 3}, {"lenght", "length", 1}, {"abcd", "badc", 2},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	filters := []string{"json", "upper", "lower", "trim", "truncate"}
	for name, want := range map[string]string{"uper": "upper", "lowr": "lower", "jsn": "json", "xyzzy": "", "trm": "trim"} {
		if got := Closest(name, filters); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
	// A tie goes to the earlier candidate.
	if got := Closest("ab", []string{"ax", "xb"}); got != "ax" {
		t.Errorf("tie = %q", got)
	}
}

func TestNear(t *testing.T) {
	names := []string{"name", "names", "tone", "x", "focus"}
	for name, want := range map[string]string{
		"nme":   "name",  // three characters: one edit
		"nmae":  "name",  // four characters: one edit (a swap is one)
		"y":     "",      // one or two characters: never
		"xy":    "",      // …
		"nm":    "",      // …
		"focuz": "focus", // longer: two edits
		"fcs":   "",      // three characters, two edits away
		"name":  "names", // the name itself is never suggested
	} {
		if got := Near(name, names); got != want {
			t.Errorf("Near(%q) = %q, want %q", name, got, want)
		}
	}
}
