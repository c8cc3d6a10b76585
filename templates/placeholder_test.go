package templates

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/value"
)

// vars is the lookup environment shared by the rendering tests.
func vars() *value.Dict {
	return value.DictOf(
		"name", value.String("Bob"),
		"sym", value.Symbol("Ann"),
		"n", value.Int(42),
		"f", value.Float(2.5),
		"yes", value.Bool(true),
		"nothing", value.Null{},
		"empty", value.String(""),
		"nilList", value.List(nil),
		"files", value.List{value.String("a.go"), value.String("b.go"), value.Int(3)},
		"nested", value.List{value.List{value.Int(1), value.Int(2)}, value.DictOf("k", value.String("v"))},
		"plan", value.DictOf(
			"steps", value.List{
				value.DictOf("title", value.String("first")),
				value.DictOf("title", value.String("second")),
			},
			"summary", value.String("do it"),
			"0", value.String("zero key"),
		),
		"alist", value.List{
			value.List{value.Symbol("mode"), value.String("fast")},
			value.List{value.String("level"), value.Int(3)},
			value.Int(7),
		},
		"tr", &value.TaskResult{Status: value.StatusComplete, Content: "answer",
			Notes: value.DictOf("model", value.String("m1"))},
		"multi", value.String("one\ntwo\nthree\n"),
		"padded", value.String("  hi  "),
		"unicode", value.String("héllo wörld"),
		"x-y", value.String("dash"),
		"_u", value.String("underscore"),
	)
}

func lookupIn(d *value.Dict) Lookup {
	return func(root string) (value.Value, bool) { return d.Get(root) }
}

func TestRender(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    string
		missing []string
	}{
		{"plain text", "no placeholders here", "no placeholders here", nil},
		{"empty", "", "", nil},
		{"simple", "Hello {{name}}!", "Hello Bob!", nil},
		{"white space", "Hello {{  name\t}}!", "Hello Bob!", nil},
		{"symbol", "{{sym}}", "Ann", nil},
		{"int and float", "{{n}} {{f}}", "42 2.5", nil},
		{"bool", "{{yes}}", "true", nil},
		{"null renders empty", "[{{nothing}}]", "[]", nil},
		{"list renders compact json", "{{files}}", `["a.go","b.go",3]`, nil},
		{"nil renders []", "{{nilList}}", "[]", nil},
		{"dict key", "{{plan.summary}}", "do it", nil},
		{"list index", "{{plan.steps.1.title}}", "second", nil},
		{"digit segment on dict is a key", "{{plan.0}}", "zero key", nil},
		{"nested list", "{{nested.0.1}} {{nested.1.k}}", "2 v", nil},
		{"alist symbol key", "{{alist.mode}}", "fast", nil},
		{"alist string key", "{{alist.level}}", "3", nil},
		{"task result renders content", "{{tr}}", "answer", nil},
		{"task result field", "{{tr.status}} {{tr.notes.model}} [{{tr.criteria}}]", "COMPLETE m1 []", nil},
		{"dash and underscore names", "{{x-y}} {{_u}}", "dash underscore", nil},
		{"adjacent", "{{name}}{{n}}", "Bob42", nil},
		{"unicode around", "¡{{name}}¿", "¡Bob¿", nil},
		{"single pass", "{{tmpl}}", "{{name}}", nil},

		{"unknown root", "Hi {{who}}.", "Hi .", []string{"who"}},
		{"missing key", "{{plan.files}}", "", []string{"plan.files"}},
		{"index out of range", "{{plan.steps.2}}", "", []string{"plan.steps.2"}},
		{"huge index", "{{files.99999999999999999999999}}", "", []string{"files.99999999999999999999999"}},
		{"segment into string", "{{name.x}}", "", []string{"name.x"}},
		{"segment into null", "{{nothing.x}}", "", []string{"nothing.x"}},
		{"name segment into plain list", "{{files.x}}", "", []string{"files.x"}},
		{"missing alist key", "{{alist.other}}", "", []string{"alist.other"}},
		{"unknown task result field", "{{tr.foo}}", "", []string{"tr.foo"}},
		{"missing listed once in order", "{{b}} {{a}} {{b}} {{a.x}}", "   ", []string{"b", "a", "a.x"}},
		{"wrong type for filter", "{{name | join(\",\")}}", "", []string{"name | join"}},
		{"second filter fails", "{{files | first | keys}}", "", []string{"files | keys"}},
		{"missing ref keeps its name through filters", "{{who | upper}}", "", []string{"who"}},

		{"escaped", `\{{name}} {{name}}`, "{{name}} Bob", nil},
		{"escaped twice", `\{{ \{{`, "{{ {{", nil},
		{"no closing on the line", "a {{ b\nc }} d", "a {{ b\nc }} d", nil},
		{"no closing at all", "{{name", "{{name", nil},
		{"literal then placeholder", "{{ and {{name}}", "", nil}, // replaced below
		{"closing braces alone", "}} {{name}} }}", "}} Bob }}", nil},
		{"braces in string argument", `{{who | default("}}")}}`, "}}", nil},
		{"triple closing", "{{name}}}", "Bob}", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "literal then placeholder" {
				// The first "{{" has a "}}" later on its line, so the whole
				// span is one (malformed) placeholder; see TestParseErrors.
				return
			}
			env := vars().With("tmpl", value.String("{{name}}"))
			txt, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.src, err)
			}
			got, missing := txt.Render(lookupIn(env))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render(%q) text (-want +got):\n%s", tt.src, diff)
			}
			if diff := cmp.Diff(tt.missing, missing); diff != "" {
				t.Errorf("Render(%q) missing (-want +got):\n%s", tt.src, diff)
			}
			if diff := cmp.Diff(tt.missing, txt.Missing(lookupIn(env))); diff != "" {
				t.Errorf("Missing(%q) (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	tests := []struct {
		src     string
		want    string
		missing []string
	}{
		// json
		{`{{name | json}}`, `"Bob"`, nil},
		{`{{n | json}}`, `42`, nil},
		{`{{plan.steps | json}}`, `[{"title":"first"},{"title":"second"}]`, nil},
		{`{{nothing | json}}`, `null`, nil},
		{`{{tr | json}}`, `{"status":"COMPLETE","content":"answer","parsedContent":null,"notes":{"model":"m1"}}`, nil},
		{`{{multi | json}}`, `"one\ntwo\nthree\n"`, nil},
		// upper, lower, trim
		{`{{name | upper}}`, `BOB`, nil},
		{`{{unicode | upper}}`, `HÉLLO WÖRLD`, nil},
		{`{{name | lower}}`, `bob`, nil},
		{`{{files | upper}}`, `["A.GO","B.GO",3]`, nil},
		{`[{{padded | trim}}]`, `[hi]`, nil},
		{`[{{nothing | trim}}]`, `[]`, nil},
		// truncate
		{`{{unicode | truncate(4)}}`, `héll…`, nil},
		{`{{unicode | truncate(11)}}`, `héllo wörld`, nil},
		{`{{unicode | truncate(0)}}`, `…`, nil},
		{`{{n | truncate(1)}}`, `4…`, nil},
		{`{{name | truncate(1_000)}}`, `Bob`, nil},
		// default
		{`{{who | default("none")}}`, `none`, nil},
		{`{{nothing | default("none")}}`, `none`, nil},
		{`{{empty | default("none")}}`, `none`, nil},
		{`{{nilList | default("none")}}`, `none`, nil},
		{`{{name | default("none")}}`, `Bob`, nil},
		{`{{n | default(0)}}`, `42`, nil},
		{`{{who | default(3)}}`, `3`, nil},
		{`{{who | default(2.50)}}`, `2.5`, nil},
		{`{{who | default(true)}}`, `true`, nil},
		{`[{{who | default(null)}}]`, `[]`, nil},
		{`{{plan.nope.deeper | default("d")}}`, `d`, nil},
		{`{{who | upper | default("x")}}`, `x`, nil},
		{`{{who | default("x") | upper}}`, `X`, nil},
		{`{{name | join(",") | default("not a list")}}`, `not a list`, nil},
		{`{{who | default("a\tb\q")}}`, "a\tb\\q", nil},
		// join
		{`{{files | join(", ")}}`, `a.go, b.go, 3`, nil},
		{`{{nested | join(" ; ")}}`, `[1,2] ; {"k":"v"}`, nil},
		{`[{{nilList | join(",")}}]`, `[]`, nil},
		{`{{name | join(",")}}`, ``, []string{"name | join"}},
		{`{{nothing | join(",")}}`, ``, []string{"nothing | join"}},
		// first, last
		{`{{files | first}}`, `a.go`, nil},
		{`{{files | last}}`, `3`, nil},
		{`[{{nilList | first}}]`, `[]`, nil},
		{`[{{nilList | last}}]`, `[]`, nil},
		{`{{plan.steps | last | json}}`, `{"title":"second"}`, nil},
		{`{{name | first}}`, ``, []string{"name | first"}},
		{`{{plan | last}}`, ``, []string{"plan | last"}},
		// length
		{`{{files | length}}`, `3`, nil},
		{`{{nilList | length}}`, `0`, nil},
		{`{{plan | length}}`, `3`, nil},
		{`{{unicode | length}}`, `11`, nil},
		{`{{sym | length}}`, `3`, nil},
		{`{{n | length}}`, ``, []string{"n | length"}},
		{`{{nothing | length}}`, ``, []string{"nothing | length"}},
		// indent
		{`{{multi | indent(2)}}`, "one\n  two\n  three\n", nil},
		{`{{name | indent(4)}}`, "Bob", nil},
		{`{{multi | indent(0)}}`, "one\ntwo\nthree\n", nil},
		{`{{blank | indent(1)}}`, "a\n \n b", nil},
		// lines
		{`{{multi | lines(2)}}`, "one\ntwo", nil},
		{`{{multi | lines(3)}}`, "one\ntwo\nthree", nil},
		{`{{multi | lines(9)}}`, "one\ntwo\nthree\n", nil},
		{`[{{multi | lines(0)}}]`, "[]", nil},
		{`{{name | lines(1)}}`, "Bob", nil},
		// keys
		{`{{plan | keys}}`, `["steps","summary","0"]`, nil},
		{`{{plan | keys | join("+")}}`, `steps+summary+0`, nil},
		{`{{emptyDict | keys}}`, `[]`, nil},
		{`{{files | keys}}`, ``, []string{"files | keys"}},
		// chains
		{`{{plan.steps | first | keys | first | upper}}`, `TITLE`, nil},
		{`{{files | length | json}}`, `3`, nil},
		{`{{ files|join(",")|upper }}`, `A.GO,B.GO,3`, nil},
		{`{{name | upper()}}`, `BOB`, nil},
	}
	env := vars().With("blank", value.String("a\n\nb")).With("emptyDict", value.NewDict(0))
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			txt, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got, missing := txt.Render(lookupIn(env))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.missing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEveryFilterIsTested(t *testing.T) {
	want := []string{"default", "first", "indent", "join", "json", "keys", "last", "length", "lines", "lower", "trim", "truncate", "upper"}
	if diff := cmp.Diff(want, FilterNames()); diff != "" {
		t.Errorf("FilterNames (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	type errPos struct {
		Line, Column, Offset int
		Placeholder, Msg     string
	}
	tests := []struct {
		src  string
		want []errPos
	}{
		{"{{ x | uper }}", []errPos{{1, 8, 7, "{{ x | uper }}", "invalid placeholder {{ x | uper }}: unknown filter 'uper' (did you mean 'upper'?)"}}},
		{"{{ x | frobnicate }}", []errPos{{1, 8, 7, "{{ x | frobnicate }}", "invalid placeholder {{ x | frobnicate }}: unknown filter 'frobnicate'"}}},
		{"{{ x | jion(\",\") }}", []errPos{{1, 8, 7, `{{ x | jion(",") }}`, `invalid placeholder {{ x | jion(",") }}: unknown filter 'jion' (did you mean 'join'?)`}}},
		{"line one\n  {{ x | truncate }}", []errPos{{2, 10, 18, "{{ x | truncate }}", "invalid placeholder {{ x | truncate }}: filter 'truncate' takes 1 argument, got 0"}}},
		{"{{ x | upper(1) }}", []errPos{{1, 8, 7, "{{ x | upper(1) }}", "invalid placeholder {{ x | upper(1) }}: filter 'upper' takes no arguments, got 1"}}},
		{"{{ x | join(\",\", \";\") }}", []errPos{{1, 8, 7, `{{ x | join(",", ";") }}`, `invalid placeholder {{ x | join(",", ";") }}: filter 'join' takes 1 argument, got 2`}}},
		{`{{ x | truncate("5") }}`, []errPos{{1, 17, 16, `{{ x | truncate("5") }}`, `invalid placeholder {{ x | truncate("5") }}: filter 'truncate' expects a non-negative int, got string`}}},
		{`{{ x | truncate(2.5) }}`, []errPos{{1, 17, 16, `{{ x | truncate(2.5) }}`, `invalid placeholder {{ x | truncate(2.5) }}: filter 'truncate' expects a non-negative int, got float`}}},
		{`{{ x | indent(-2) }}`, []errPos{{1, 15, 14, `{{ x | indent(-2) }}`, `invalid placeholder {{ x | indent(-2) }}: filter 'indent' expects a non-negative int, got -2`}}},
		{`{{ x | join(1) }}`, []errPos{{1, 13, 12, `{{ x | join(1) }}`, `invalid placeholder {{ x | join(1) }}: filter 'join' expects a string, got int`}}},
		{`{{ x | lines(99999999999999999999) }}`, []errPos{{1, 14, 13, `{{ x | lines(99999999999999999999) }}`, `invalid placeholder {{ x | lines(99999999999999999999) }}: integer literal out of range: 99999999999999999999`}}},
		{`{{ x | default(1e999) }}`, []errPos{{1, 16, 15, `{{ x | default(1e999) }}`, `invalid placeholder {{ x | default(1e999) }}: float literal out of range: 1e999`}}},
		{`{{ x | default(foo) }}`, []errPos{{1, 16, 15, `{{ x | default(foo) }}`, `invalid placeholder {{ x | default(foo) }}: unexpected 'foo'`}}},
		{`{{ x | default("a) }}`, []errPos{{1, 16, 15, `{{ x | default("a) }}`, `invalid placeholder {{ x | default("a) }}: unterminated string`}}},
		{"{{ }}", []errPos{{1, 1, 0, "{{ }}", "invalid placeholder {{ }}: expected a reference"}}},
		{"{{}}", []errPos{{1, 1, 0, "{{}}", "invalid placeholder {{}}: expected a reference"}}},
		{"{{ 3 }}", []errPos{{1, 4, 3, "{{ 3 }}", "invalid placeholder {{ 3 }}: expected a reference, got '3'"}}},
		{"{{ x. }}", []errPos{{1, 5, 4, "{{ x. }}", "invalid placeholder {{ x. }}: unexpected '.'"}}},
		{"{{ x y }}", []errPos{{1, 6, 5, "{{ x y }}", "invalid placeholder {{ x y }}: unexpected 'y'"}}},
		{"{{ x | }}", []errPos{{1, 8, 7, "{{ x | }}", "invalid placeholder {{ x | }}: unexpected end of placeholder"}}},
		{"{{ x || upper }}", []errPos{{1, 7, 6, "{{ x || upper }}", "invalid placeholder {{ x || upper }}: unexpected '|'"}}},
		{"{{ x | join(\",\" }}", []errPos{{1, 17, 16, `{{ x | join("," }}`, `invalid placeholder {{ x | join("," }}: unexpected end of placeholder`}}},
		{"é {{ ü }}", []errPos{{1, 6, 6, "{{ ü }}", "invalid placeholder {{ ü }}: expected a reference, got 'ü'"}}},
		{"{{ and {{name}}", []errPos{{1, 8, 7, "{{ and {{name}}", "invalid placeholder {{ and {{name}}: unexpected '{'"}}},
		{"{{ a b }} ok {{ name }}\n{{ c | nope }}", []errPos{
			{1, 6, 5, "{{ a b }}", "invalid placeholder {{ a b }}: unexpected 'b'"},
			{2, 8, 31, "{{ c | nope }}", "invalid placeholder {{ c | nope }}: unknown filter 'nope'"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			txt, err := Parse(tt.src)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.src, txt)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %T is not an ErrorList", err)
			}
			var got []errPos
			for _, e := range list {
				got = append(got, errPos{e.Line, e.Column, e.Offset, e.Placeholder, e.Msg})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var pe *PlaceholderError
			if !errors.As(err, &pe) || pe.Msg != tt.want[0].Msg {
				t.Errorf("errors.As(*PlaceholderError) = %v", pe)
			}
		})
	}
}

func TestRoots(t *testing.T) {
	txt, err := Parse(`{{b.x}} {{a | default("")}} {{b}} {{c | default(1)}} {{a}} {{d | upper | default("")}} {{c.y | default(2)}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Root{{"b", false}, {"a", false}, {"c", true}, {"d", true}}
	if diff := cmp.Diff(want, txt.Roots()); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
	if !txt.Uses("d") || txt.Uses("e") {
		t.Errorf("Uses: d=%v e=%v", txt.Uses("d"), txt.Uses("e"))
	}
	if !txt.HasPlaceholders() {
		t.Error("HasPlaceholders = false")
	}
	plain := MustParse(`\{{x}}`)
	if plain.HasPlaceholders() || plain.Roots() != nil {
		t.Errorf("escaped text: HasPlaceholders=%v Roots=%v", plain.HasPlaceholders(), plain.Roots())
	}
	if plain.Source() != `\{{x}}` {
		t.Errorf("Source = %q", plain.Source())
	}
}

func TestRenderConcurrent(t *testing.T) {
	txt := MustParse("{{name | upper}} has {{files | length}} files: {{files | join(\", \")}}")
	env := lookupIn(vars())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if got, _ := txt.Render(env); got != "BOB has 3 files: a.go, b.go, 3" {
					t.Errorf("Render = %q", got)
				}
			}
		})
	}
	wg.Wait()
	// Parsing concurrently shares the participle parser.
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if _, err := Parse("{{ x | truncate(3) | default(\"a\") }}"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "unknown filter") {
			t.Errorf("recover() = %v", r)
		}
	}()
	MustParse("{{ x | nope }}")
}

// FuzzPlaceholder checks that parsing and rendering never panic and that a
// text without "{{" renders as itself.
func FuzzPlaceholder(f *testing.F) {
	for _, s := range []string{
		"", "Hello {{name}}!", "{{ plan.steps.0.title | upper }}", `{{ x | default("}}") }}`,
		`\{{ x }}`, "{{ x", "{{ x\n}}", "{{ files | join(\", \") | truncate(3) }}", "{{ a | indent(2) | lines(1) }}",
		"{{ x | default(1.5e3) }}", "{{ x | default(-2) }}", "{{ x | default(\"a\\\"b\") }}", "{{}}", "{{ é }}",
		"{{ x | uper }}", "{{ alist.mode | json }}", "{{ tr.notes | keys | first }}", "{{{{}}}}", `\\{{x}}`,
		"{{ x | truncate(1_0) }}", "{{ .5 }}", "{{ x | default(.5) }}", "\xff{{ \xff }}",
	} {
		f.Add(s)
	}
	env := lookupIn(vars())
	f.Fuzz(func(t *testing.T, src string) {
		txt, err := Parse(src)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("Parse(%q) error %T %v", src, err, err)
			}
			for _, e := range list {
				if e.Offset < 0 || e.Offset > len(src) || e.Line < 1 || e.Column < 1 {
					t.Fatalf("Parse(%q): bad position %+v", src, e)
				}
			}
			return
		}
		got, _ := txt.Render(env)
		txt.Missing(env)
		txt.Roots()
		if !strings.Contains(src, "{{") && got != src {
			t.Fatalf("Render(%q) = %q, want the text itself", src, got)
		}
	})
}

func BenchmarkRender(b *testing.B) {
	var src strings.Builder
	src.WriteString("Review the following.\n")
	refs := []string{
		"name", "name | upper", "files | join(\", \")", "plan.steps.0.title", "plan.steps | length",
		"multi | indent(4)", "multi | lines(2)", "who | default(\"none\")", "plan | keys | join(\",\")", "unicode | truncate(5)",
		"n", "f | json", "tr.notes.model", "alist.mode", "files | first", "files | last | json",
		"padded | trim", "sym | lower", "plan.summary", "nested | json",
	}
	for i, r := range refs {
		src.WriteString("Item ")
		src.WriteString(strings.Repeat("x", i))
		src.WriteString(": {{ ")
		src.WriteString(r)
		src.WriteString(" }}\n")
	}
	txt := MustParse(src.String())
	env := lookupIn(vars())
	b.ReportAllocs()
	for b.Loop() {
		if _, missing := txt.Render(env); missing != nil {
			b.Fatal(missing)
		}
	}
}
