package value_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/value"
)

// hostValue stands for a value the evaluator adds (closures): it prints as
// itself and equals only itself.
type hostValue struct{ name string }

func (*hostValue) Type() string     { return "closure" }
func (h *hostValue) String() string { return "#<closure (" + h.name + ")>" }

type (
	I = value.Int
	F = value.Float
	B = value.Bool
	S = value.String
	Y = value.Symbol
	L = value.List
)

var null = value.Null{}

func dict(pairs ...any) *value.Dict { return value.DictOf(pairs...) }

func tr(status, content string) *value.TaskResult {
	return &value.TaskResult{Status: status, Content: content}
}

// TestPrint covers the canonical printer of SPEC §5.5.
func TestPrint(t *testing.T) {
	long := strings.Repeat("é", 60)
	for _, c := range []struct {
		v    value.Value
		want string
	}{
		{I(42), "42"},
		{I(-7), "-7"},
		{I(-9223372036854775808), "-9223372036854775808"},
		{F(3.5), "3.5"},
		{F(1000), "1000.0"},
		{F(pointOne() + 0.2), "0.30000000000000004"},
		{F(negZero()), "-0.0"},
		{F(0), "0.0"},
		{F(1e21), "1e+21"},
		{F(1.5e-7), "1.5e-7"},
		{F(1e-6), "0.000001"},
		{F(9.99e-7), "9.99e-7"},
		{F(1e20), "100000000000000000000.0"},
		{F(-2.5e-300), "-2.5e-300"},
		{F(123456789.125), "123456789.125"},
		{B(true), "true"},
		{B(false), "false"},
		{null, "null"},
		{S(""), `""`},
		{S("a\nb"), `"a\nb"`},
		{S("q\"b\\s\tt\rr\bb\ff"), `"q\"b\\s\tt\rr\bb\ff"`},
		{S("é☃\x01\u2028<&>"), "\"é☃\x01\u2028<&>\""},
		{Y("sym"), "sym"},
		{Y(":key"), ":key"},
		{Y("a b"), `a\ b`},
		{Y("a(b)c"), `a\(b\)c`},
		{Y("[x]"), `\[x\]`},
		{Y(`a"b;c`), `a\"b\;c`},
		{Y("'a"), `\'a`},
		{Y("a'b"), `a'b`},
		{Y("1"), `\1`},
		{Y("-1.5e3"), `\-1.5e3`},
		{Y("1e999"), `\1e999`},
		{Y("nil"), `\nil`},
		{Y("true"), `\true`},
		{Y("false"), `\false`},
		{Y("nil?"), `nil?`},
		{Y("1/2"), `1/2`},
		{Y("-"), `-`},
		{Y("inf"), `inf`},
		{L(nil), "nil"},
		{L{}, "nil"},
		{L{I(1), F(2.5), S("a\nb"), Y("sym"), B(true), L(nil), dict("k", null)}, `(1 2.5 "a\nb" sym true nil (dict "k" null))`},
		{L{Y("quote"), Y("a")}, "(quote a)"},
		{L{L{L{}}}, "((nil))"},
		{dict(), "(dict)"},
		{(*value.Dict)(nil), "(dict)"},
		{dict("a", I(1), "b", L(nil)), `(dict "a" 1 "b" nil)`},
		{dict("a\"b", dict()), `(dict "a\"b" (dict))`},
		{tr("COMPLETE", "Hello Bob!"), `#<TaskResult COMPLETE "Hello Bob!">`},
		{tr("FAILED", "a\n\"b\""), `#<TaskResult FAILED "a\n\"b\"">`},
		{tr("COMPLETE", long), `#<TaskResult COMPLETE "` + long + `">`},
		{tr("COMPLETE", long+"x"), `#<TaskResult COMPLETE "` + long + `…">`},
		{tr("COMPLETE", strings.Repeat("\n", 61)), `#<TaskResult COMPLETE "` + strings.Repeat(`\n`, 60) + `…">`},
		{tr("COMPLETE", ""), `#<TaskResult COMPLETE "">`},
		{&hostValue{"a b"}, "#<closure (a b)>"},
		{L{&hostValue{""}}, "(#<closure ()>)"},
	} {
		if got := c.v.String(); got != c.want {
			t.Errorf("String() of %#v = %s, want %s", c.v, got, c.want)
		}
		var b strings.Builder
		value.Print(&b, c.v)
		if got := b.String(); got != c.want {
			t.Errorf("Print of %#v = %s, want %s", c.v, got, c.want)
		}
	}
}

func pointOne() float64 { return 0.1 }

func negZero() float64 {
	z := 0.0
	return -z
}

func TestTypes(t *testing.T) {
	for _, c := range []struct {
		v    value.Value
		want string
	}{
		{I(1), "int"}, {F(1), "float"}, {B(true), "bool"}, {S(""), "string"}, {Y("a"), "symbol"},
		{null, "null"}, {L(nil), "list"}, {dict(), "dict"}, {tr("COMPLETE", ""), "task-result"},
	} {
		if got := c.v.Type(); got != c.want {
			t.Errorf("Type() of %s = %s, want %s", c.v, got, c.want)
		}
	}
	if !Y(":k").IsKeyword() || Y("k").IsKeyword() || Y("").IsKeyword() {
		t.Error("IsKeyword")
	}
	if value.RuneLen("héllo") != 5 {
		t.Error("RuneLen")
	}
}

// TestText covers §5.7.
func TestText(t *testing.T) {
	for _, c := range []struct {
		v    value.Value
		want string
	}{
		{S("a\"b"), `a"b`},
		{Y(":k"), ":k"},
		{I(-3), "-3"},
		{F(1000), "1000.0"},
		{F(1e21), "1e+21"},
		{B(false), "false"},
		{null, ""},
		{nil, ""},
		{L(nil), "[]"},
		{L{I(1), S("a"), null, L{}}, `[1,"a",null,[]]`},
		{dict("a", dict(), "b", S("<&>")), `{"a":{},"b":"<&>"}`},
		{tr("COMPLETE", "the content"), "the content"},
		{&hostValue{"x"}, "#<closure (x)>"},
	} {
		if got := value.Text(c.v); got != c.want {
			t.Errorf("Text(%v) = %q, want %q", c.v, got, c.want)
		}
		var b strings.Builder
		b.WriteString(">")
		value.WriteText(&b, c.v)
		if got := b.String(); got != ">"+c.want {
			t.Errorf("WriteText(%v) = %q, want %q", c.v, got, ">"+c.want)
		}
	}
}

// TestJSON covers value → JSON of §5.6.
func TestJSON(t *testing.T) {
	notes := dict("template_used", S("greet"), "usage", dict("turns", I(1)))
	for _, c := range []struct {
		v    value.Value
		want string
	}{
		{I(1), "1"},
		{I(-9223372036854775808), "-9223372036854775808"},
		{F(1000), "1000.0"},
		{F(1e21), "1e+21"},
		{F(1.5e-7), "1.5e-7"},
		{F(negZero()), "-0.0"},
		{S("a\"b\\c\n\t\r\b\f\x00\x1f\x7f"), `"a\"b\\c\n\t\r\b\f\u0000\u001f` + "\x7f\""},
		{S("<script>&</script>"), `"<script>&</script>"`},
		{S("line\u2028para\u2029end"), `"line\u2028para\u2029end"`},
		{S("bad\xffutf8"), `"bad\ufffdutf8"`},
		{S("é☃𝄞"), `"é☃𝄞"`},
		{Y("sym"), `"sym"`},
		{Y(":k"), `":k"`},
		{B(true), "true"},
		{null, "null"},
		{nil, "null"},
		{L(nil), "[]"},
		{L{L(nil), dict()}, "[[],{}]"},
		{dict(), "{}"},
		{dict("b", I(1), "a", I(2)), `{"b":1,"a":2}`},
		{dict("k\"<", L{null}), `{"k\"<":[null]}`},
		{tr("COMPLETE", "hi"), `{"status":"COMPLETE","content":"hi","parsedContent":null,"notes":{}}`},
		{&value.TaskResult{Status: "FAILED", Content: "x", Parsed: L{I(1)}, Notes: notes},
			`{"status":"FAILED","content":"x","parsedContent":[1],"notes":{"template_used":"greet","usage":{"turns":1}}}`},
		{&hostValue{"a"}, `"#<closure (a)>"`},
	} {
		got := value.JSON(c.v)
		if got != c.want {
			t.Errorf("JSON(%v) = %s, want %s", c.v, got, c.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("JSON(%v) = %s is not valid JSON", c.v, got)
		}
	}
}

// jsonString is how encoding/json writes s without HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Strings are escaped exactly as encoding/json escapes them with HTML
// escaping off.
func TestJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "\x00\x01\x1f \x7f", "\"\\/", "<>&", "\u2028\u2029", "\xff\xfe", "a\xc3", "é\U0001F600", "\ufffd"} {
		if got, want := value.JSON(S(s)), jsonString(s); got != want {
			t.Errorf("JSON(%q) = %s, encoding/json gives %s", s, got, want)
		}
	}
}

func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "<&>", "\u2028", "\xff", "\x00\x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := value.JSON(S(s)), jsonString(s); got != want {
			t.Errorf("JSON(%q) = %s, encoding/json gives %s", s, got, want)
		}
	})
}

// JSONIndent indents like json.MarshalIndent(v, "", indent).
func TestJSONIndent(t *testing.T) {
	v := dict("name", S("<x>"), "list", L{I(1), L(nil), dict(), dict("k", F(2.5))}, "empty", L(nil), "n", null)
	want := `{
  "name": "<x>",
  "list": [
    1,
    [],
    {},
    {
      "k": 2.5
    }
  ],
  "empty": [],
  "n": null
}`
	if got := value.JSONIndent(v, "  "); got != want {
		t.Errorf("JSONIndent =\n%s\nwant\n%s", got, want)
	}
	for _, v := range []value.Value{
		I(1), S("s"), L(nil), dict(), L{L{L{I(1)}}}, tr("COMPLETE", "c"),
		&value.TaskResult{Status: "FAILED", Parsed: dict("a", L{I(1), I(2)}), Notes: dict("x", dict())}, v,
	} {
		var b bytes.Buffer
		if err := json.Indent(&b, []byte(value.JSON(v)), "", "\t"); err != nil {
			t.Fatal(err)
		}
		if got := value.JSONIndent(v, "\t"); got != b.String() {
			t.Errorf("JSONIndent(%v) =\n%s\njson.Indent gives\n%s", v, got, b.String())
		}
	}
}

// TestParseJSON covers JSON → value of §5.6.
func TestParseJSON(t *testing.T) {
	for _, c := range []struct {
		in, want string // want is the printed value
	}{
		{`{"a": [1, 2.5]}`, `(dict "a" (1 2.5))`},
		{`{"b": 1, "a": 2}`, `(dict "b" 1 "a" 2)`},
		{`{"b": 1, "a": 2, "b": 3}`, `(dict "b" 3 "a" 2)`},
		{`{"a": {"x": 1}, "a": {"y": 2}}`, `(dict "a" (dict "y" 2))`},
		{`[]`, `nil`},
		{` [ ] `, `nil`},
		{`[[]]`, `(nil)`},
		{`{}`, `(dict)`},
		{`null`, `null`},
		{`true`, `true`},
		{`"a\nb\u00e9\ud83d\ude00"`, "\"a\\nbé😀\""},
		{`1`, `1`},
		{`-0`, `0`},
		{`1.0`, `1.0`},
		{`1e2`, `100.0`},
		{`1E+2`, `100.0`},
		{`-1.5e-7`, `-1.5e-7`},
		{`9223372036854775807`, `9223372036854775807`},
		{`-9223372036854775808`, `-9223372036854775808`},
		{`9223372036854775808`, `9223372036854776000.0`},
		{`-9223372036854775809`, `-9223372036854776000.0`},
		{`123456789012345678901234567890`, `1.2345678901234568e+29`},
		{`1e-400`, `0.0`},
		{"\t\n\r {\"k\" : [true , false , null]} \n", `(dict "k" (true false null))`},
	} {
		v, err := value.ParseJSON(c.in)
		if err != nil {
			t.Errorf("ParseJSON(%q): %v", c.in, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("ParseJSON(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	// Types: integral numbers that fit are ints, everything else floats.
	for in, typ := range map[string]string{"1": "int", "1.0": "float", "1e0": "float", "-0": "int", "-0.0": "float", "1e19": "float", "10000000000000000000": "float"} {
		v, err := value.ParseJSON(in)
		if err != nil || v.Type() != typ {
			t.Errorf("ParseJSON(%s) = %v (%v), want a %s", in, v, err, typ)
		}
	}
	if v, _ := value.ParseJSON(`[]`); v.(value.List) != nil {
		t.Errorf("[] must be the nil list")
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, "unexpected end of JSON input"},
		{`   `, "unexpected end of JSON input"},
		{`{`, "unexpected end of JSON input"},
		{`[1,`, "unexpected end of JSON input"},
		{`{"a":`, "unexpected end of JSON input"},
		{`"abc`, "unexpected end of JSON input"},
		{`1 2`, "invalid character '2' after top-level value"},
		{`{} x`, "invalid character 'x' after top-level value"},
		{`[1]]`, "invalid character ']' after top-level value"},
		{`[1,]`, "invalid character ']' looking for beginning of value"},
		{`[1 2]`, "invalid character '2' after array element"},
		{`{"a" 1}`, "invalid character '1' after object key"},
		{`nul`, "unexpected end of JSON input"},
		{`nulx`, "invalid character 'x' in literal null (expecting 'l')"},
		{`'a'`, "invalid character '\\'' looking for beginning of value"},
		{`1e400`, "number out of range: 1e400"},
		{`-1e400`, "number out of range: -1e400"},
		{`NaN`, "invalid character 'N' looking for beginning of value"},
	} {
		v, err := value.ParseJSON(c.in)
		if err == nil {
			t.Errorf("ParseJSON(%q) = %v, want error %q", c.in, v, c.want)
			continue
		}
		if err.Error() != c.want {
			t.Errorf("ParseJSON(%q) error %q, want %q", c.in, err, c.want)
		}
	}
}

// ParseJSON accepts exactly the valid JSON texts (apart from numbers too
// large for a float), and JSON gives back an equal value.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5]}`, `[]`, `{"b":1,"b":2}`, `"\u2028"`, `1 2`, `[1,]`, `{"a" 1}`, `-0`, `1e400`, `"\xff"`, `[[[[]]]]`, `{"":{}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := value.ParseJSON(s)
		valid := json.Valid([]byte(s))
		if err != nil {
			if valid && !strings.HasPrefix(err.Error(), "number out of range") {
				t.Fatalf("ParseJSON(%q) rejects valid JSON: %v", s, err)
			}
			return
		}
		if !valid {
			t.Fatalf("ParseJSON(%q) accepts invalid JSON: %v", s, v)
		}
		text := value.JSON(v)
		back, err := value.ParseJSON(text)
		if err != nil {
			t.Fatalf("ParseJSON(JSON(v)) for %q: %v", text, err)
		}
		if !value.Equal(v, back) {
			t.Fatalf("round trip of %q: %v != %v", s, v, back)
		}
	})
}

// TestEqual covers §5.3.
func TestEqual(t *testing.T) {
	h := &hostValue{"x"}
	r := tr("COMPLETE", "c")
	for _, c := range []struct {
		a, b value.Value
		want bool
	}{
		{I(1), F(1), true},
		{F(1), I(1), true},
		{I(1), I(2), false},
		{F(0), F(negZero()), true},
		{I(9007199254740993), F(9007199254740992), false},
		{F(9007199254740992), I(9007199254740993), false},
		{I(9007199254740992), F(9007199254740992), true},
		{I(9223372036854775807), F(9223372036854775808), false},
		{I(-9223372036854775808), F(-9223372036854775808), true},
		{I(1), F(1.5), false},
		{B(true), I(1), false},
		{I(0), B(false), false},
		{B(true), B(true), true},
		{B(true), B(false), false},
		{S("a"), S("a"), true},
		{S("a"), S("b"), false},
		{Y("a"), S("a"), true},
		{S("a"), Y("a"), true},
		{Y("a"), Y("a"), true},
		{Y("a"), Y("b"), false},
		{L{Y("a")}, L{S("a")}, false},
		{L{Y("a")}, L{Y("a")}, true},
		{dict("k", Y("a")), dict("k", S("a")), false},
		{L{I(1), I(2)}, L{I(1), F(2)}, true},
		{L{I(1)}, L{I(1), I(2)}, false},
		{L(nil), L{}, true},
		{L(nil), null, false},
		{null, L(nil), false},
		{null, null, true},
		{null, nil, false},
		{L(nil), dict(), false},
		{S(""), L(nil), false},
		{dict("a", I(1), "b", I(2)), dict("b", I(2), "a", I(1)), true},
		{dict("a", I(1)), dict("a", I(1), "b", I(2)), false},
		{dict("a", I(1), "b", I(2)), dict("a", I(1)), false},
		{dict("a", null), dict("b", null), false},
		{dict(), dict(), true},
		{dict(), (*value.Dict)(nil), true},
		{r, r, true},
		{tr("COMPLETE", "c"), tr("COMPLETE", "c"), true},
		{tr("COMPLETE", "c"), tr("FAILED", "c"), false},
		{tr("COMPLETE", "c"), tr("COMPLETE", "d"), false},
		{tr("COMPLETE", "c"), &value.TaskResult{Status: "COMPLETE", Content: "c", Notes: dict()}, true},
		{tr("COMPLETE", "c"), &value.TaskResult{Status: "COMPLETE", Content: "c", Parsed: null}, true},
		{tr("COMPLETE", "c"), &value.TaskResult{Status: "COMPLETE", Content: "c", Parsed: I(1)}, false},
		{&value.TaskResult{Status: "COMPLETE", Notes: dict("a", I(1))}, &value.TaskResult{Status: "COMPLETE", Notes: dict("a", F(1))}, true},
		{tr("COMPLETE", "c"), S("c"), false},
		{h, h, true},
		{h, &hostValue{"x"}, false},
		{L{h}, L{h}, true},
	} {
		if got := value.Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := value.Equal(c.b, c.a); got != c.want {
			t.Errorf("Equal(%v, %v) = %v, want %v (symmetry)", c.b, c.a, got, c.want)
		}
	}
}

// TestTruthy covers §5.2.
func TestTruthy(t *testing.T) {
	for _, v := range []value.Value{B(false), null, nil, I(0), F(0), F(negZero()), S(""), L(nil), L{}, dict(), (*value.Dict)(nil)} {
		if value.Truthy(v) {
			t.Errorf("Truthy(%v) = true", v)
		}
	}
	for _, v := range []value.Value{B(true), I(1), I(-1), F(0.5), S(" "), S("false"), S("0"), Y("a"), Y(""), Y("false"),
		L{null}, L{I(0)}, dict("a", I(0)), tr("FAILED", ""), tr("COMPLETE", ""), &hostValue{}} {
		if !value.Truthy(v) {
			t.Errorf("Truthy(%v) = false", v)
		}
	}
}

// Dicts keep insertion order, and With and Clone never change the original.
func TestDict(t *testing.T) {
	d := value.NewDict(0)
	d.Set("b", I(1))
	d.Set("a", I(2))
	d.Set("b", I(3)) // keeps its position
	if got := d.String(); got != `(dict "b" 3 "a" 2)` {
		t.Errorf("got %s", got)
	}
	if diff := cmp.Diff([]string{"b", "a"}, d.Keys()); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	keys := d.Keys()
	keys[0] = "zzz"
	if d.Keys()[0] != "b" {
		t.Error("changing the Keys result changed the dict")
	}
	e := d.With("c", I(4))
	f := d.With("a", I(5))
	if d.String() != `(dict "b" 3 "a" 2)` || e.String() != `(dict "b" 3 "a" 2 "c" 4)` || f.String() != `(dict "b" 3 "a" 5)` {
		t.Errorf("With: d=%s e=%s f=%s", d, e, f)
	}
	c := d.Clone()
	c.Set("a", I(9))
	c.Set("z", I(0))
	if d.String() != `(dict "b" 3 "a" 2)` || c.String() != `(dict "b" 3 "a" 9 "z" 0)` {
		t.Errorf("Clone: d=%s c=%s", d, c)
	}
	if v, ok := d.Get("a"); !ok || v != I(2) {
		t.Errorf("Get(a) = %v, %v", v, ok)
	}
	if _, ok := d.Get("zz"); ok || d.Has("zz") || !d.Has("b") {
		t.Error("Get/Has of a missing key")
	}

	// Large dicts (hash-indexed) behave the same.
	big := value.NewDict(0)
	var want []string
	for i := 0; i < 40; i++ {
		k := string(rune('A' + i))
		big.Set(k, I(i))
		want = append(want, k)
	}
	big.Set("A", I(100))
	if diff := cmp.Diff(want, big.Keys()); diff != "" {
		t.Errorf("big Keys (-want +got):\n%s", diff)
	}
	before := big.String()
	big2 := big.With("new", I(1)).With("B", I(-1))
	if big.String() != before {
		t.Error("With changed a large dict")
	}
	if v, _ := big2.Get("B"); v != I(-1) {
		t.Errorf("big2[B] = %v", v)
	}
	if v, _ := big2.Get("new"); v != I(1) || big2.Len() != 41 || big.Len() != 40 {
		t.Errorf("big2[new] = %v, lens %d %d", v, big2.Len(), big.Len())
	}
	if v, _ := big.Get("A"); v != I(100) {
		t.Errorf("big[A] = %v", v)
	}
	for i, k := range big2.Keys() {
		if v, ok := big2.Get(k); !ok || (i < 40 && k != "A" && k != "B" && v != I(i)) {
			t.Errorf("big2[%s] = %v, %v", k, v, ok)
		}
	}
	bc := big.Clone()
	bc.Set("A", I(0))
	if v, _ := big.Get("A"); v != I(100) {
		t.Error("Clone of a large dict shares its values")
	}

	// The nil dict is empty.
	var nd *value.Dict
	if nd.Len() != 0 || nd.Has("a") || nd.Keys() != nil {
		t.Error("nil dict")
	}
	if _, ok := nd.Get("a"); ok {
		t.Error("nil dict Get")
	}
	if got := nd.With("a", I(1)).String(); got != `(dict "a" 1)` {
		t.Errorf("nil dict With = %s", got)
	}
	for range nd.All() {
		t.Error("nil dict has entries")
	}

	// All stops when asked to.
	n := 0
	for k, v := range e.All() {
		n++
		if k != "b" || v != I(3) {
			t.Errorf("first entry %s=%v", k, v)
		}
		break
	}
	if n != 1 {
		t.Error("All did not stop")
	}
}

func TestTaskResult(t *testing.T) {
	r := &value.TaskResult{Status: value.StatusComplete, Content: "c"}
	if !r.OK() || tr(value.StatusFailed, "").OK() || tr(value.StatusContinuation, "").OK() {
		t.Error("OK")
	}
	for name, want := range map[string]string{
		"content": `"c"`, "status": `"COMPLETE"`, "parsedContent": "null", "parsed_content": "null", "notes": "(dict)", "criteria": "null",
	} {
		v, ok := r.Field(name)
		if !ok || v.String() != want {
			t.Errorf("Field(%s) = %v, %v, want %s", name, v, ok, want)
		}
	}
	if _, ok := r.Field("other"); ok {
		t.Error("Field(other)")
	}
	notes := dict("template_used", S("t"))
	f := value.Failed("template_not_found", "Template not found: x", notes)
	if f.Status != "FAILED" || f.Content != "Template not found: x" {
		t.Errorf("Failed = %v", f)
	}
	want := `(dict "template_used" "t" "error" (dict "type" "TASK_FAILURE" "reason" "template_not_found" "message" "Template not found: x"))`
	if got := f.Notes.String(); got != want {
		t.Errorf("notes = %s, want %s", got, want)
	}
	if notes.Len() != 1 {
		t.Errorf("Failed changed the notes it was given: %s", notes)
	}
	if got := value.Failed("r", "m", nil).Notes.String(); got != `(dict "error" (dict "type" "TASK_FAILURE" "reason" "r" "message" "m"))` {
		t.Errorf("Failed with nil notes: %s", got)
	}
}

// Fprint writes what String returns, through a buffer, for values of every
// kind, one larger than its buffer and one nested too deeply.
func TestFprint(t *testing.T) {
	d := value.NewDict(2)
	d.Set("k", value.List{value.Int(1), value.String("two\n")})
	d.Set("e", value.List(nil))
	big := make(value.List, 50_000)
	for i := range big {
		big[i] = value.List{value.Symbol("item"), value.Int(int64(i)), value.Float(1.5), value.Bool(true), value.Null{}}
	}
	deep := value.Value(value.Int(0))
	for range value.MaxPrintDepth + 5 {
		deep = value.List{deep}
	}
	for i, v := range []value.Value{value.Int(-3), value.String(`a"b`), value.Symbol(":k"), value.List(nil), d, big, deep,
		&value.TaskResult{Status: value.StatusComplete, Content: "c", Notes: value.NewDict(0)}} {
		var b bytes.Buffer
		if err := value.Fprint(&b, v); err != nil {
			t.Fatal(err)
		}
		if want := v.String(); b.String() != want {
			t.Errorf("value %d: Fprint wrote %d bytes %.60q…, String %d bytes %.60q…", i, b.Len(), b.String(), len(want), want)
		}
	}
}
