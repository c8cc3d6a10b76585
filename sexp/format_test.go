package sexp

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFormatGolden formats each testdata/format/*.input and compares the
// result with the .golden file beside it (go test -update rewrites them).
func TestFormatGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "format", "*.input"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no formatter inputs: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			out := checkFormat(t, filepath.Base(file), string(data))
			checkGolden(t, strings.TrimSuffix(file, ".input")+".golden", out)
		})
	}
}

// TestFormatProperties checks that formatting is idempotent and keeps the
// forms, for every text in testdata and every benchmark workflow.
func TestFormatProperties(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		filepath.Join("testdata", "*", "*"),
		filepath.Join(benchDir, "*.sexp"),
		filepath.Join(benchDir, "..", "*.sexp"),
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, matches...)
	}
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue // a directory
		}
		text := string(data)
		if _, err := Parse(NewSource(file, text)); err != nil {
			continue // the error inputs and the fuzz corpus files
		}
		checked++
		t.Run(file, func(t *testing.T) { checkFormat(t, file, text) })
	}
	if checked < 20 {
		t.Errorf("only %d texts checked", checked)
	}
}

// checkFormat formats text, which must read without error, and checks the
// properties of SPEC §17.5 that hold for any input: the result reads to the
// same forms with the same atom texts, formatting it again changes nothing,
// it ends with exactly one line break and, where the text has no string or
// escape, no line has trailing white space. It returns the formatted text.
func checkFormat(t *testing.T, name, text string) []byte {
	t.Helper()
	src := NewSource(name, text)
	before, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	out, err := Format(src)
	if err != nil {
		t.Fatalf("Format: %v", err)
	}
	after, err := ParseString(name, string(out))
	if err != nil {
		t.Fatalf("the formatted text does not read: %v\n%s", err, out)
	}
	if !sameTree(before, after, false) {
		t.Fatalf("formatting changed the forms:\n%s", out)
	}
	again, err := Format(NewSource(name, string(out)))
	if err != nil {
		t.Fatalf("Format of formatted text: %v", err)
	}
	if diff := cmp.Diff(string(out), string(again)); diff != "" {
		t.Fatalf("Format is not idempotent (-once +twice):\n%s", diff)
	}
	eol := lineEnd(text, before)
	if !strings.HasSuffix(string(out), eol) || strings.HasSuffix(string(out), eol+eol) {
		t.Errorf("formatted text does not end with exactly one line break: %q", out)
	}
	if strings.HasPrefix(string(out), eol) {
		t.Errorf("formatted text starts with a blank line")
	}
	if !strings.ContainsAny(text, "\"\\") {
		for i, line := range strings.Split(string(out), eol) {
			if strings.TrimRight(line, " \t\r\v\f") != line {
				t.Errorf("line %d has trailing white space: %q", i+1, line)
			}
		}
	}
	return out
}

func TestFormatRules(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"one line", "(a\n b\n c)", "(a b c)\n"},
		{"top-level forms on their own lines", "(a) (b) c", "(a)\n(b)\nc\n"},
		{"trailing comment kept", "(a) ; x\n(b)", "(a) ; x\n(b)\n"},
		{"comment forces lines", "(a ; x\n b)", "(a ; x\n  b)\n"},
		{"paren after trailing comment", "(a b ; x\n)", "(a\n  b ; x\n)\n"},
		{"own-line comment indented", "(a\n; x\n b)", "(a\n  ; x\n  b)\n"},
		{"first argument stays", "(if c ; x\n t e)", "(if c ; x\n  t\n  e)\n"},
		{"non-symbol head aligned", "((f) ; x\n a b)", "((f) ; x\n a\n b)\n"},
		{"blank lines collapse", "(a)\n\n\n\n(b)", "(a)\n\n(b)\n"},
		{"blank line in a list kept", "(a\n b ; x\n\n\n c)", "(a\n  b ; x\n\n  c)\n"},
		{"quote kept", "' a", "'a\n"},
		{"atom text kept", "(list 1_000 +5 \"a\\qb\" a\\ b)", "(list 1_000 +5 \"a\\qb\" a\\ b)\n"},
		{"comment white space trimmed", "; x  \t\n(a)", "; x\n(a)\n"},
		{"CRLF kept", "(a)\r\n(b ; x\n c)\n", "(a)\r\n(b ; x\r\n  c)\r\n"},
		{"LF kept", "(a)\n(b ; x\r\n c)\r\n", "(a)\n(b ; x\n  c)\n"},
		{"line breaks in atoms do not count", "a\\\r\n(b ; x\n c)", "a\\\r\n(b ; x\n  c)\n"},
		{"line breaks in strings do not count", "\"a\r\nb\" (b ; x\n c)", "\"a\r\nb\"\n(b ; x\n  c)\n"},
		{"line breaks in strings kept", "(a\r\n\"x\r\r\ny\ny\")", "(a\r\n  \"x\r\r\ny\ny\")\r\n"},
		{"byte-order mark dropped", "\uFEFF(a)", "(a)\n"},
		{"multi-line string breaks the list", "(a \"x\ny\")", "(a\n  \"x\ny\")\n"},
		{"symbol starting with a byte-order mark", "\n\uFEFFx", "\\\uFEFFx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := checkFormat(t, "t", tt.in)
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("Format(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFormatErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"syntax error", "(a", "t:1:1: unclosed '(': missing ')'"},
		{"empty program", "; only a comment\n", "t:1:1: empty program"},
		{"too deep", "(a " + strings.Repeat("(", MaxFormatDepth) + strings.Repeat(")", MaxFormatDepth+1),
			"t:1:100003: nesting too deep (more than 100000 levels)"},
		{"too deep in quotes", strings.Repeat("'", MaxFormatDepth+1) + "a",
			"t:1:100001: nesting too deep (more than 100000 levels)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Format(NewSource("t", tt.in))
			var se *Error
			if !errors.As(err, &se) || out != nil {
				t.Fatalf("Format = %q, %v; want an *Error", out, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
	deepest := strings.Repeat("(", MaxFormatDepth) + strings.Repeat(")", MaxFormatDepth)
	if _, err := Format(NewSource("t", deepest)); err != nil {
		t.Errorf("Format of %d levels: %v", MaxFormatDepth, err)
	}
}

func TestFormatFileWithoutComments(t *testing.T) {
	f, err := ParseFile(NewSource("t", "(a ; x\n b)"), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := FormatFile(f)
	if err != nil || string(out) != "(a b)\n" {
		t.Errorf("FormatFile without comments = %q, %v", out, err)
	}
	empty, err := FormatFile(&File{})
	if err != nil || len(empty) != 0 {
		t.Errorf("FormatFile of an empty File = %q, %v", empty, err)
	}
}
