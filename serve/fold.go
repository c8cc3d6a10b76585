package serve

import (
	"database/sql/driver"
	"strings"
	"unicode"
	"unicode/utf8"

	"modernc.org/sqlite"
)

// containsFoldSQL is the SQL function the runs filter matches text with:
// evalrun_contains_fold(TEXT, NEEDLE) is 1 when TEXT contains NEEDLE,
// which the caller has folded (foldCase), ignoring case in all of Unicode.
// SQLite's LIKE ignores the case of ASCII letters only.
const containsFoldSQL = "evalrun_contains_fold"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(containsFoldSQL, 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		needle, _ := args[1].(string)
		switch s := args[0].(type) {
		case string:
			return containsFolded(s, needle), nil
		case []byte:
			return containsFolded(string(s), needle), nil
		}
		return needle == "", nil
	})
}

// foldCase maps every letter of s to one representative of its case
// orbit (Unicode simple case folding: Ü, ü; K, k and the Kelvin sign),
// so that two strings that differ only in case fold to the same text.
func foldCase(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || ('A' <= s[i] && s[i] <= 'Z') {
			return strings.Map(foldRune, s)
		}
	}
	return s
}

// foldRune is the lower case of the smallest rune of r's case orbit (so
// that an ASCII letter, the smallest of its orbit, folds as itself in
// lower case, as the fast path of foldCase has it).
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return unicode.ToLower(least)
}

// containsFolded reports whether s contains needle, given folded, in any
// case.
func containsFolded(s, needle string) bool {
	return strings.Contains(foldCase(s), needle)
}
