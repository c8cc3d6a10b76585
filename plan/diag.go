package plan

import (
	"fmt"
	"strings"

	"github.com/evalrun/evalrun/sexp"
)

// Severity says whether a diagnostic stops the plan.
type Severity string

// The severities of diagnostics.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
)

// Diagnostic is one problem found in a plan: PATH:LINE:COL inside a JSON
// file, or PATH alone (Line 0) when it has no position.
type Diagnostic struct {
	Path     string
	Line     int
	Col      int
	Severity Severity
	Msg      string
	// Source is the text of line Line of the file, without its line
	// terminator, for the caret display; "" when there is no position.
	Source string
}

// String formats the diagnostic as `PATH:LINE:COL: error: MESSAGE`.
func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s: %s", d.Path, d.Line, d.Col, d.Severity, d.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", d.Path, d.Severity, d.Msg)
}

// Display returns the diagnostic as evalrun prints it, ending in a
// newline: the String form, then, when it has a position, the source line
// and a caret under the column, as evalrun displays syntax errors.
func (d Diagnostic) Display() string {
	var b strings.Builder
	b.WriteString(d.String())
	b.WriteByte('\n')
	if d.Line > 0 {
		b.WriteString(sexp.SourceAndCaret(d.Source, d.Col))
	}
	return b.String()
}

// Diagnostics is the list of problems of a plan, in the order found.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}

// Errors returns the number of errors.
func (ds Diagnostics) Errors() int {
	n := 0
	for _, d := range ds {
		if d.Severity == SevError {
			n++
		}
	}
	return n
}

// Warnings returns the number of warnings.
func (ds Diagnostics) Warnings() int { return len(ds) - ds.Errors() }

// ErrorsOnly returns the errors, in order.
func (ds Diagnostics) ErrorsOnly() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Severity == SevError {
			out = append(out, d)
		}
	}
	return out
}

// String prints one diagnostic a line.
func (ds Diagnostics) String() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// Display prints every diagnostic with Diagnostic.Display.
func (ds Diagnostics) Display() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Display())
	}
	return b.String()
}

// CheckError is returned by operations that need a valid plan when the
// plan has errors; it holds them all.
type CheckError struct{ Diags Diagnostics }

// Error returns the message.
func (e *CheckError) Error() string {
	return fmt.Sprintf("the plan has %d errors:\n%s", e.Diags.Errors(), strings.TrimSuffix(e.Diags.String(), "\n"))
}

// reporter collects diagnostics.
type reporter struct{ diags Diagnostics }

func (r *reporter) at(f *File, off int, sev Severity, format string, args ...any) {
	line, col := f.pos(off)
	r.diags = append(r.diags, Diagnostic{Path: f.Path, Line: line, Col: col, Severity: sev, Msg: fmt.Sprintf(format, args...), Source: f.lineText(line)})
}

func (r *reporter) node(f *File, n *Node, sev Severity, format string, args ...any) {
	if n == nil {
		r.file(f.Path, sev, format, args...)
		return
	}
	r.at(f, n.Start, sev, format, args...)
}

func (r *reporter) file(path string, sev Severity, format string, args ...any) {
	r.diags = append(r.diags, Diagnostic{Path: path, Severity: sev, Msg: fmt.Sprintf(format, args...)})
}
