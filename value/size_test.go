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

// Values nested deeper than MaxPrintDepth print a marker instead of
// exhausting the stack; sizes agree with the printed JSON.
func TestDeeplyNested(t *testing.T) {
	var deep Value = List(nil)
	var deepDict Value = NewDict(0)
	for range 3 * MaxPrintDepth {
		deep = List{deep}
		deepDict = DictOf("k", deepDict)
	}
	for _, v := range []Value{deep, deepDict} {
		s := v.String()
		if !strings.Contains(s, TooDeep) {
			t.Errorf("%s: printed form has no %q", v.Type(), TooDeep)
		}
		j := JSON(v)
		if !strings.Contains(j, `"`+TooDeep+`"`) || JSONSize(v, 1<<30) != len(j) {
			t.Errorf("%s: JSON %d bytes, JSONSize %d", v.Type(), len(j), JSONSize(v, 1<<30))
		}
		if !Equal(v, v) {
			t.Errorf("%s: not equal to itself", v.Type())
		}
	}
	if Equal(deep, List{deep}) {
		t.Error("lists of different depth are equal")
	}
}

func TestTooDeepToPrint(t *testing.T) {
	var v Value = List(nil)
	for range MaxPrintDepth - 1 {
		v = List{v}
	}
	if TooDeepToPrint(v) || strings.Contains(JSON(v), TooDeep) {
		t.Fatal("a value MaxPrintDepth levels deep counts as too deep")
	}
	v = List{v}
	if !TooDeepToPrint(v) || !strings.Contains(JSON(v), TooDeep) {
		t.Fatal("one level more is not too deep")
	}
	if TooDeepToPrint(Int(1)) || TooDeepToPrint(DictOf("a", List{Int(1)})) {
		t.Fatal("shallow values are too deep")
	}
}

// Values that share their parts: 2^60 leaves in sixty lists.
func TestSharedStructure(t *testing.T) {
	build := func() Value {
		var l Value = List{Int(1)}
		for range 60 {
			l = List{l, l}
		}
		return l
	}
	a, b := build(), build()
	if !Equal(a, b) || Equal(a, List{b, Int(2)}) {
		t.Error("equality of shared structures")
	}
	if n := JSONSize(a, 1<<20); n <= 1<<20 {
		t.Errorf("JSONSize = %d, want more than the limit", n)
	}
	if s := Brief(a, 50); !strings.HasSuffix(s, "…") || len(s) > 60 {
		t.Errorf("Brief = %q", s)
	}
	if s := Brief(List{Int(1), String("é")}, 50); s != `(1 "é")` {
		t.Errorf("Brief of a short list = %q", s)
	}
}

func TestParseJSONDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxPrintDepth+1) + strings.Repeat("]", MaxPrintDepth+1)
	if _, err := ParseJSON(deep); err == nil || !strings.Contains(err.Error(), "exceeded max depth of 10000") {
		t.Errorf("err = %v", err)
	}
	ok := strings.Repeat("[", MaxPrintDepth) + strings.Repeat("]", MaxPrintDepth)
	if _, err := ParseJSON(ok); err != nil {
		t.Errorf("err = %v", err)
	}
}

// Rendering a value that shares its parts stops at MaxRenderBytes.
func TestRenderBounded(t *testing.T) {
	var l Value = List{Int(1)}
	for range 60 {
		l = List{l, l}
	}
	if got, want := JSON(l), `"`+TooLarge+`"`; got != want {
		t.Errorf("JSON = %.80q", got)
	} else if Text(l) != want || JSONIndent(l, "  ") != want {
		t.Error("Text and JSONIndent are not bounded")
	}
}

// JSONSize measures numbers without making their text: printValue and
// value.JSON measure every value before writing it, a 10 MB datum too.
func TestJSONSizeAllocatesNothing(t *testing.T) {
	var l Value = List{Int(1234567), Float(1.5e-7), Bool(false), Symbol("s"), String("t"), List{Int(-99999), Null{}}}
	if n := testing.AllocsPerRun(10, func() { JSONSize(l, 1<<20) }); n != 0 {
		t.Errorf("JSONSize made %v allocations", n)
	}
	if got, want := JSONSize(l, 1<<20), len(JSON(l)); got != want {
		t.Errorf("JSONSize %d, len(JSON) %d", got, want)
	}
}
