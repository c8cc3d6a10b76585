package shellwords

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitStrict(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"git diff --staged", []string{"git", "diff", "--staged"}, ""},
		{"  go\ttest   ./...  ", []string{"go", "test", "./..."}, ""},
		{`echo 'a b' "c d" e\ f`, []string{"echo", "a b", "c d", "e f"}, ""},
		{`echo '' ""`, []string{"echo", "", ""}, ""},
		{`echo a'b'"c"d`, []string{"echo", "abcd"}, ""},
		{`echo "a\"b\\c\$d\e"`, []string{"echo", `a"b\c$d\e`}, ""},
		{`echo 'it''s' \'`, []string{"echo", "its", "'"}, ""},
		{"echo a\\\nb", []string{"echo", "ab"}, ""},
		{"echo \"a\\\nb\"", []string{"echo", "ab"}, ""},
		{"echo a # comment\nls", []string{"echo", "a", "ls"}, ""},
		{"echo a#b", []string{"echo", "a#b"}, ""},
		{"echo *.go ~ $ a=b", []string{"echo", "*.go", "~", "$", "a=b"}, ""},
		{"echo '$HOME' \\$HOME", []string{"echo", "$HOME", "$HOME"}, ""},
		{"", nil, ""},
		{"echo 'open", nil, "unterminated single quote"},
		{`echo "open`, nil, "unterminated double quote"},
		{`echo \`, nil, "unterminated escape at the end of the command"},
		{"ls | wc", nil, "shell operator '|' is not supported (the command runs without a shell)"},
		{"ls > out", nil, "shell operator '>' is not supported (the command runs without a shell)"},
		{"a && b", nil, "shell operator '&' is not supported (the command runs without a shell)"},
		{"a; b", nil, "shell operator ';' is not supported (the command runs without a shell)"},
		{"echo $(id)", nil, ErrSubstitution.Error()},
		{"echo `id`", nil, ErrSubstitution.Error()},
		{`echo "$HOME"`, nil, ErrSubstitution.Error()},
		{`echo "${x}"`, nil, ErrSubstitution.Error()},
	}
	for _, tt := range tests {
		got, err := Split(tt.in, Strict)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Split(%q, Strict) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Split(%q, Strict): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Split(%q, Strict) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"git diff", `a 'b c' "d\"e"`, "x\\ y", "#c\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, mode := range []Mode{Strict, Literal} {
			roundTrip(t, s, mode)
		}
	})
}

// roundTrip checks that quoting each word of s with Quote and splitting
// again gives the same words.
func roundTrip(t *testing.T, s string, mode Mode) {
	t.Helper()
	words, err := Split(s, mode)
	if err != nil {
		return
	}
	// Quoting each word with single quotes and splitting again gives
	// the same words.
	q := ""
	for i, w := range words {
		if i > 0 {
			q += " "
		}
		q += Quote(w)
	}
	again, err := Split(q, mode)
	if err != nil || !cmp.Equal(words, again, cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })) {
		t.Errorf("%q -> %q -> %q (%v)", s, words, again, err)
	}
}

// TestSplitLiteral: in Literal mode the shell syntax a program never sees
// stays in the words as written; quoting works as in Strict.
func TestSplitLiteral(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"claude -p --model {model} {prompt}", []string{"claude", "-p", "--model", "{model}", "{prompt}"}},
		{"a | b; c && $(d) `e` $HOME #f", []string{"a", "|", "b;", "c", "&&", "$(d)", "`e`", "$HOME", "#f"}},
		{`GEMINI_SYSTEM_MD={{.role_file}} gemini -p "a b" 'c d'`, []string{"GEMINI_SYSTEM_MD={{.role_file}}", "gemini", "-p", "a b", "c d"}},
		{`echo "$HOME"`, []string{"echo", "$HOME"}},
	}
	for _, tt := range tests {
		got, err := Split(tt.in, Literal)
		if err != nil {
			t.Errorf("Split(%q, Literal): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Split(%q, Literal) (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := Split(`a "b`, Literal); err == nil || err.Error() != "unterminated double quote" {
		t.Errorf("unterminated quote in Literal mode: %v", err)
	}
	if q := Quote("it's"); q != `'it'\''s'` {
		t.Errorf("Quote = %s", q)
	}
}

// TestQuoteAtShell runs sh on values substituted into every quoting
// context a command can leave open and checks that the shell reads each
// value back exactly, running nothing it holds.
func TestQuoteAtShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	values := []string{
		"plain", "it's", `say "hi"`, "$(touch PWNED)", "`touch PWNED`", "$HOME", "${HOME}",
		`back\slash`, "new\nline", "-rf", `\`, `'`, `"`, "a'b\"c$d`e\\f", "",
	}
	// Each context is a printf command around the value; want is what the
	// shell prints for value v.
	contexts := []struct{ before, after string }{
		{"printf '%s' ", ""},
		{`printf '%s' "`, `"`},
		{`printf '%s' "x`, `y"`},
		{`printf '%s' '`, `'`},
		{`printf '%s' 'x`, `y'`},
		{`printf '%s' "$(printf '%s' `, `)"`},
		{`printf '%s' "$(printf '%s' "`, `")"`},
		{"printf '%s' \"`printf '%s' ", "`\""},
		{`printf '%s' "$( (printf '%s' "`, `") )"`},
		{`printf '%s' "a\"`, `"`},
		{"echo $((1<<2)) >/dev/null\nprintf '%s' ", ""},
		{"# don't quote \"this\"\nprintf '%s' ", ""},
		{"echo a#'b'\nprintf '%s' '", "'"},
	}
	dir := t.TempDir()
	for _, c := range contexts {
		for _, v := range values {
			q, err := QuoteAt(c.before, v)
			if err != nil {
				t.Fatalf("QuoteAt(%q, %q): %v", c.before, v, err)
			}
			text := c.before + q + c.after
			cmd := exec.Command(sh, "-c", text)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("%s: %v: %s", text, err, out)
				continue
			}
			want := v
			if strings.HasPrefix(c.before, `printf '%s' "x`) || strings.HasPrefix(c.before, `printf '%s' 'x`) {
				want = "x" + v + "y"
			}
			if strings.HasPrefix(c.before, "echo a#") {
				want = "a#b\n" + v
			}
			if strings.HasPrefix(c.before, `printf '%s' "a\"`) {
				want = `a"` + v
			}
			if strings.Contains(c.before, "$(") || strings.Contains(c.before, "`") {
				// A command substitution drops trailing newlines.
				want = strings.TrimRight(want, "\n")
			}
			if string(out) != want {
				t.Errorf("%s\nprinted %q, want %q", text, out, want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("a substituted value ran a command")
	}
}

// TestQuoteAtHeredoc: in the body of a here-document a value is escaped
// when the delimiter is unquoted and kept as it is when it is quoted; a
// value holding the delimiter line, which would end the body and run what
// follows, is refused. (cat reads the last of two here-documents.)
func TestQuoteAtHeredoc(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	values := []string{"plain", "$(touch PWNED)", "`touch PWNED`", "$HOME", `back\slash`, "a\\\nb", "it's \"q\"", "EOFX", " EOF"}
	for _, before := range []string{"cat <<EOF\n", "cat <<'EOF'\n", "cat <<\"EOF\"\n", "cat <<-EOF\n\t", "cat <<A <<EOF\nx\nA\n", "cat <<EOF\nline $x ", "x=$(cat <<EOF\n"} {
		after := "\nEOF\n"
		if strings.HasPrefix(before, "x=") {
			after = "\nEOF\n)\nprintf '%s\\n' \"$x\""
		}
		for _, v := range values {
			q, err := QuoteAt(before, v)
			if err != nil {
				t.Errorf("QuoteAt(%q, %q): %v", before, v, err)
				continue
			}
			cmd := exec.Command(sh, "-c", before+q+after)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "x=X")
			out, err := cmd.CombinedOutput()
			want := v + "\n"
			if strings.HasSuffix(before, "line $x ") {
				want = "line X " + want
			}
			if err != nil || string(out) != want {
				t.Errorf("%q: printed %q (%v), want %q", before+q+after, out, err, want)
			}
		}
	}
	for _, c := range []struct{ before, v string }{
		{"cat <<EOF\n", "x\nEOF\ntouch PWNED"},
		{"cat <<'EOF'\n", "EOF"},
		{"cat <<-EOF\n", "x\n\t\tEOF\n"},
		{"cat <<EOF\nE", "OF"},
	} {
		if q, err := QuoteAt(c.before, c.v); !errors.Is(err, ErrHeredocDelimiter) {
			t.Errorf("QuoteAt(%q, %q) = %q, %v", c.before, c.v, q, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Error("a substituted value ran a command")
	}
}

// TestQuoteAtComment: a value in a comment may not hold a line break,
// after which the shell would run the rest of it.
func TestQuoteAtComment(t *testing.T) {
	if q, err := QuoteAt("echo x # note: ", "a\ntouch PWNED"); !errors.Is(err, ErrCommentNewline) {
		t.Errorf("QuoteAt in a comment = %q, %v", q, err)
	}
	if q, err := QuoteAt("echo x # note: ", "it's $(x)"); err != nil || q != "it's $(x)" {
		t.Errorf("QuoteAt in a comment = %q, %v", q, err)
	}
}
