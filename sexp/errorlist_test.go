package sexp

import (
	"errors"
	"strings"
	"testing"
)

// TestParseAll: the reader keeps going after an error and reports every
// error of the text in the order met; ParseFile reports the first.
func TestParseAll(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"(a [b] 99999999999999999999 ') c)) (d 1e999",
			[]string{
				"t:1:4: square brackets are not supported; write lists with ( )",
				"t:1:6: square brackets are not supported; write lists with ( )",
				"t:1:8: integer literal out of range: 99999999999999999999",
				"t:1:29: quote (') must be followed by a datum",
				"t:1:33: unexpected ')'",
				"t:1:34: unexpected ')'",
				"t:1:39: float literal out of range: 1e999",
				"t:1:36: unclosed '(': missing ')'",
			}},
		{"(x \xff) ; \xfe\n(y \"open", []string{
			"t:1:4: invalid UTF-8 encoding",
			"t:1:9: invalid UTF-8 encoding",
			"t:2:4: unterminated string",
		}},
		{"(a '", []string{"t:1:4: quote (') must be followed by a datum"}},
		{"(ok 1)", nil},
	} {
		f, errs := ParseAll(NewSource("t", tc.text), 0)
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.text, got, tc.want)
		}
		if (f == nil) != (len(tc.want) > 0) {
			t.Errorf("%q: file %v with %d errors", tc.text, f, len(errs))
		}
		_, err := ParseFile(NewSource("t", tc.text), 0)
		if len(tc.want) > 0 && (err == nil || err.Error() != tc.want[0]) {
			t.Errorf("%q: ParseFile error %v, want %s", tc.text, err, tc.want[0])
		}
	}
}

// TestErrorList: the list prints its first error and the count of the
// others, and errors.As finds the first *Error in it.
func TestErrorList(t *testing.T) {
	_, errs := ParseAll(NewSource("t", "[ ]"), 0)
	if got := errs.Error(); got != "t:1:1: square brackets are not supported; write lists with ( ) (and 1 more errors)" {
		t.Errorf("Error() = %q", got)
	}
	var e *Error
	if !errors.As(errs.Err(), &e) || e.Pos.Off != 0 {
		t.Errorf("errors.As: %v", e)
	}
	if ErrorList(nil).Err() != nil {
		t.Error("an empty list is not an error")
	}
}
