// Package editors_test checks the editor support files: the TextMate
// grammar of .sexp workflows (tokenized here with the subset of TextMate
// the grammar uses, and compared with the evalrun reader on every example
// workflow) and the JSON Schema of the configuration file (validated
// against every config.toml of the repository).
package editors_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
)

// rule is one pattern of the grammar: a match, or a begin/end region.
type rule struct {
	Name          string             `json:"name"`
	Match         string             `json:"match"`
	Begin         string             `json:"begin"`
	End           string             `json:"end"`
	Captures      map[string]capture `json:"captures"`
	BeginCaptures map[string]capture `json:"beginCaptures"`
	EndCaptures   map[string]capture `json:"endCaptures"`
	Patterns      []rule             `json:"patterns"`
	Include       string             `json:"include"`
}

type capture struct {
	Name string `json:"name"`
}

type grammar struct {
	ScopeName  string          `json:"scopeName"`
	FileTypes  []string        `json:"fileTypes"`
	Patterns   []rule          `json:"patterns"`
	Repository map[string]rule `json:"repository"`
}

// compiled is a rule ready to match: Go's RE2 has no lookahead, so a
// trailing (?=X) becomes a last group whose text is not consumed.
type compiled struct {
	rule
	re, end     *regexp.Regexp
	lookahead   bool // re ends with the group of a former trailing lookahead
	endLookhead bool
	children    []*compiled
}

var lookaheadRE = regexp.MustCompile(`\(\?=(.*)\)$`)

func compileRE(t *testing.T, pattern string) (*regexp.Regexp, bool) {
	t.Helper()
	look := false
	if m := lookaheadRE.FindStringSubmatchIndex(pattern); m != nil {
		pattern = pattern[:m[0]] + "(" + pattern[m[2]:m[3]] + ")"
		look = true
	}
	if strings.Contains(pattern, "(?=") || strings.Contains(pattern, "(?<") || strings.Contains(pattern, "(?!") {
		t.Fatalf("pattern %q uses lookaround other than a trailing lookahead", pattern)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("pattern %q: %v", pattern, err)
	}
	return re, look
}

// flatten resolves includes into a list of compiled rules.
func flatten(t *testing.T, g *grammar, rules []rule) []*compiled {
	t.Helper()
	var out []*compiled
	for _, r := range rules {
		if r.Include != "" {
			ref, ok := g.Repository[strings.TrimPrefix(r.Include, "#")]
			if !ok {
				t.Fatalf("include %s: no such repository entry", r.Include)
			}
			out = append(out, flatten(t, g, []rule{ref})...)
			continue
		}
		if r.Match == "" && r.Begin == "" {
			out = append(out, flatten(t, g, r.Patterns)...)
			continue
		}
		c := &compiled{rule: r}
		if r.Match != "" {
			c.re, c.lookahead = compileRE(t, r.Match)
		} else {
			c.re, c.lookahead = compileRE(t, r.Begin)
			c.end, c.endLookhead = compileRE(t, r.End)
			c.children = flatten(t, g, r.Patterns)
		}
		out = append(out, c)
	}
	return out
}

// token is a scoped range of bytes of the source.
type token struct {
	start, end int
	scope      string
}

// tokenize applies the grammar to text as a TextMate engine does for these
// rules: at each position the rule whose match starts earliest wins (the
// first listed on a tie); a begin rule opens a region that its end pattern
// closes, possibly lines later.
func tokenize(rules []*compiled, text string) (toks []token, openAtEOF bool) {
	var region *compiled // the open begin/end rule, if any
	off := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		pos := 0
		for pos <= len(body) {
			cands := rules
			if region != nil {
				cands = region.children
			}
			best, bestLoc := (*compiled)(nil), []int(nil)
			isEnd := false
			if region != nil {
				if loc := region.end.FindStringSubmatchIndex(body[pos:]); loc != nil {
					best, bestLoc, isEnd = region, loc, true
				}
			}
			for _, c := range cands {
				loc := c.re.FindStringSubmatchIndex(body[pos:])
				if loc != nil && (bestLoc == nil || loc[0] < bestLoc[0]) {
					best, bestLoc, isEnd = c, loc, false
				}
			}
			if best == nil {
				if region != nil {
					toks = append(toks, token{off + pos, off + len(body), region.Name})
				}
				break
			}
			look := best.lookahead
			if isEnd {
				look = best.endLookhead
			}
			end := bestLoc[1]
			if look {
				end = bestLoc[len(bestLoc)-2]
			}
			start, stop := pos+bestLoc[0], pos+end
			if region != nil && start > pos {
				toks = append(toks, token{off + pos, off + start, region.Name})
			}
			switch {
			case isEnd:
				toks = append(toks, token{off + start, off + stop, region.Name})
				region = nil
			case best.Begin != "":
				toks = append(toks, token{off + start, off + stop, best.Name})
				region = best
			default:
				if best.Name != "" {
					toks = append(toks, token{off + start, off + stop, best.Name})
				}
				caps := best.Captures
				for i := 1; 2*i+1 < len(bestLoc); i++ {
					if c, ok := caps[itoa(i)]; ok && bestLoc[2*i] >= 0 {
						toks = append(toks, token{off + pos + bestLoc[2*i], off + pos + bestLoc[2*i+1], c.Name})
					}
				}
			}
			if stop == pos { // an empty match: step on
				stop++
			}
			pos = stop
		}
		off += len(line)
	}
	return toks, region != nil
}

func itoa(i int) string { return string(rune('0' + i)) }

// scopeAt returns the scopes of the tokens that cover byte off.
func scopeAt(toks []token, off int) []string {
	var s []string
	for _, t := range toks {
		if t.start <= off && off < t.end {
			s = append(s, t.scope)
		}
	}
	return s
}

func loadGrammar(t *testing.T) (*grammar, []*compiled) {
	t.Helper()
	data, err := os.ReadFile(grammarFile)
	if err != nil {
		t.Fatal(err)
	}
	var g grammar
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("the grammar is not valid JSON: %v", err)
	}
	return &g, flatten(t, &g, g.Patterns)
}

// namesOf returns the alternatives of the keyword group of a repository
// rule's match.
func namesOf(t *testing.T, g *grammar, key string) []string {
	t.Helper()
	m := regexp.MustCompile(`^\(\\\(\)\\s\*\((.*)\)\(\?=`).FindStringSubmatch(g.Repository[key].Match)
	if m == nil {
		t.Fatalf("repository %s: unexpected match %q", key, g.Repository[key].Match)
	}
	var names []string
	for _, n := range strings.Split(m[1], "|") {
		names = append(names, regexp.MustCompile(`\\(.)`).ReplaceAllString(n, "$1"))
	}
	sort.Strings(names)
	return names
}

var updateGrammar = flag.Bool("update-grammar", false, "rewrite the special forms and primitives of the grammar from the evaluator")

const grammarFile = "vscode/syntaxes/evalrun.tmLanguage.json"

// alternation is the regexp alternative of names, longest first.
func alternation(names []string) string {
	sorted := slices.Clone(names)
	sort.Slice(sorted, func(i, j int) bool {
		if len(sorted[i]) != len(sorted[j]) {
			return len(sorted[i]) > len(sorted[j])
		}
		return sorted[i] < sorted[j]
	})
	for i, n := range sorted {
		sorted[i] = regexp.MustCompile(`[.*+?|(){}\[\]^$\\/]`).ReplaceAllString(n, `\$0`)
	}
	return strings.Join(sorted, "|")
}

// rewriteGrammar sets the keyword lists of the grammar file.
func rewriteGrammar(t *testing.T, forms, prims []string) {
	t.Helper()
	data, err := os.ReadFile(grammarFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	repo := doc["repository"].(map[string]any)
	const end = `(?=[\s()\[\]";]|$)`
	repo["special-form"].(map[string]any)["match"] = `(\()\s*(` + alternation(forms) + `)` + end
	repo["primitive"].(map[string]any)["match"] = `(\()\s*(` + alternation(prims) + `)` + end
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grammarFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGrammarNamesMatchTheLanguage: the grammar highlights exactly the
// special forms and the primitives of the evaluator, so a new form or
// primitive fails this test until the grammar knows it
// (go test ./editors -run TestGrammarNamesMatchTheLanguage -update-grammar).
func TestGrammarNamesMatchTheLanguage(t *testing.T) {
	forms := evaluator.SpecialFormNames()
	sort.Strings(forms)
	var prims []string
	for _, p := range evaluator.PrimitiveNames() {
		if !slices.Contains(forms, p) {
			prims = append(prims, p)
		}
	}
	sort.Strings(prims)
	if *updateGrammar {
		rewriteGrammar(t, forms, prims)
	}
	g, _ := loadGrammar(t)
	if got := namesOf(t, g, "special-form"); !slices.Equal(got, forms) {
		t.Errorf("special forms in the grammar:\n%v\nin the evaluator:\n%v\n(go test ./editors -run TestGrammarNamesMatchTheLanguage -update-grammar)", got, forms)
	}
	if got := namesOf(t, g, "primitive"); !slices.Equal(got, prims) {
		t.Errorf("primitives in the grammar:\n%v\nin the evaluator:\n%v\n(go test ./editors -run TestGrammarNamesMatchTheLanguage -update-grammar)", got, prims)
	}
}

// exampleWorkflows returns every .sexp file of examples/ and docs/.
func exampleWorkflows(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"../examples", "../docs"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sexp") {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 5 {
		t.Fatalf("only %d example workflows found", len(files))
	}
	return files
}

// TestGrammarOnExamples tokenizes every example workflow and compares the
// scopes with what evalrun's reader makes of the file: every string,
// number, special form and primitive in operator position, and every
// comment, is scoped as such.
func TestGrammarOnExamples(t *testing.T) {
	_, rules := loadGrammar(t)
	forms := evaluator.SpecialFormNames()
	prims := evaluator.PrimitiveNames()
	for _, file := range exampleWorkflows(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		toks, open := tokenize(rules, text)
		if open {
			t.Errorf("%s: a string region is still open at the end of the file", file)
		}
		nodes, err := sexp.Parse(sexp.NewSource(file, text))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		checked := 0
		want := func(n *sexp.Node, scope string) {
			checked++
			if !slices.Contains(scopeAt(toks, n.Pos.Off), scope) {
				p := n.Pos.Position()
				t.Errorf("%s:%d:%d: %q has scopes %v, want %s", file, p.Line, p.Column, n.Raw(), scopeAt(toks, n.Pos.Off), scope)
			}
		}
		var walk func(n *sexp.Node, quoted bool)
		walk = func(n *sexp.Node, quoted bool) {
			switch n.Kind {
			case sexp.String:
				want(n, "string.quoted.double.evalrun")
			case sexp.Int, sexp.Float:
				want(n, "constant.numeric.evalrun")
			case sexp.List:
				if len(n.Items) > 0 && n.Items[0].Kind == sexp.Symbol && !n.Quoted && !quoted {
					switch head := n.Items[0].Str; {
					case slices.Contains(forms, head):
						want(n.Items[0], "keyword.control.evalrun")
					case slices.Contains(prims, head):
						want(n.Items[0], "support.function.evalrun")
					}
				}
				for _, it := range n.Items {
					walk(it, quoted || n.Quoted)
				}
			}
		}
		for _, n := range nodes {
			walk(n, false)
		}
		// Comments: every ';' outside a string starts a comment token.
		inString := false
		for i := 0; i < len(text); i++ {
			switch c := text[i]; {
			case inString && c == '\\':
				i++
			case c == '"':
				inString = !inString
			case !inString && c == ';':
				checked++
				if !slices.Contains(scopeAt(toks, i), "comment.line.semicolon.evalrun") {
					t.Errorf("%s: byte %d: a comment is not scoped as one", file, i)
				}
				for i < len(text) && text[i] != '\n' {
					i++
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: nothing was checked", file)
		}
	}
}

// TestGrammarTokens pins the scopes of a few constructs.
func TestGrammarTokens(t *testing.T) {
	_, rules := loadGrammar(t)
	src := `(let* ((x 'nil-ish) (n -1_000.5e3)) ; note` + "\n" + `(string-append "a\"b {{x | upper}}" :key true nilx))`
	toks, open := tokenize(rules, src)
	if open {
		t.Fatal("string left open")
	}
	for _, tc := range []struct{ text, scope string }{
		{"let*", "keyword.control.evalrun"},
		{"nil-ish", "variable.other.symbol.evalrun"},
		{"-1_000.5e3", "constant.numeric.evalrun"},
		{"; note", "comment.line.semicolon.evalrun"},
		{"string-append", "support.function.evalrun"},
		{`\"`, "constant.character.escape.evalrun"},
		{"{{x | upper}}", "variable.other.placeholder.evalrun"},
		{":key", "constant.other.symbol.keyword.evalrun"},
		{"true", "constant.language.evalrun"},
		{"nilx", "variable.other.symbol.evalrun"},
	} {
		off := strings.Index(src, tc.text)
		found := false
		for _, tk := range toks {
			if tk.start == off && tk.end == off+len(tc.text) && tk.scope == tc.scope {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: want one token %s, scopes there: %v", tc.text, tc.scope, scopeAt(toks, off))
		}
	}
}
