package value

import (
	"strings"
	"testing"
)

func TestJSONSize(t *testing.T) {
	big := String(strings.Repeat("x", 1000))
	vals := []Value{
		Int(-42), Float(1e21), Float(0.5), Bool(true), Null{}, String("a\"b\\c\n\x01é\u2028"), Symbol("s"),
		List(nil), List{Int(1), List{String("x")}, NewDict(0)},
		DictOf("a", Int(1), "b\n", List{Null{}, Bool(false)}),
		&TaskResult{Status: StatusComplete, Content: "hi", Notes: DictOf("k", Int(1))},
		String(string([]byte{0xff, 'a'})),
	}
	for _, v := range vals {
		if got, want := JSONSize(v, 1<<30), len(JSON(v)); got != want {
			t.Errorf("JSONSize(%s) = %d, want %d", v, got, want)
		}
		if got, want := TextSize(v, 1<<30), len(Text(v)); got != want {
			t.Errorf("TextSize(%s) = %d, want %d", v, got, want)
		}
	}
	// A list that repeats one string many times is refused early.
	huge := make(List, 10_000_000)
	for i := range huge {
		huge[i] = big
	}
	if n := JSONSize(huge, 1<<20); n <= 1<<20 {
		t.Errorf("JSONSize(huge) = %d, want more than the limit", n)
	}
}
