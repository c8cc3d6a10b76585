package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitWords(t *testing.T) {
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
		{"echo $(id)", nil, errSubstitution.Error()},
		{"echo `id`", nil, errSubstitution.Error()},
		{`echo "$HOME"`, nil, errSubstitution.Error()},
		{`echo "${x}"`, nil, errSubstitution.Error()},
	}
	for _, tt := range tests {
		got, err := SplitWords(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("SplitWords(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitWords(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitWords(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"git diff", `a 'b c' "d\"e"`, "x\\ y", "#c\nz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitWords(s)
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
			q += shellQuote(w)
		}
		again, err := SplitWords(q)
		if err != nil || !cmp.Equal(words, again, cmp.Comparer(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })) {
			t.Errorf("%q -> %q -> %q (%v)", s, words, again, err)
		}
	})
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
