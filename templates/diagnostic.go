package templates

import (
	"cmp"
	"slices"

	"github.com/evalrun/evalrun/sexp"
)

// Diagnostic is one problem found while loading templates: a validation
// error (SPEC §9.4), a warning such as an unused <command> output or a
// shadowed template (§10.1), or a file that cannot be read.
type Diagnostic = sexp.Diagnostic

// The severities of a Diagnostic.
const (
	SeverityError   = sexp.SeverityError
	SeverityWarning = sexp.SeverityWarning
)

// HasErrors reports whether ds holds at least one error.
func HasErrors(ds []Diagnostic) bool { return sexp.HasErrors(ds) }

// sortDiagnostics orders the diagnostics of one file by position; diagnostics
// at the same place keep their order.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int { return cmp.Compare(a.Pos.Off, b.Pos.Off) })
}
