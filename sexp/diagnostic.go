package sexp

import "slices"

// The severities of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Diagnostic is one problem found in a source: a static-check finding of
// `evalrun check` (SPEC §17.4), a template validation error (§9.4) or a
// warning such as an unused <command> output or a shadowed template (§10.1).
type Diagnostic struct {
	// Pos is the position of the offending element, attribute or text; it is
	// not valid for diagnostics that belong to no place in a file, such as
	// the shadowing warnings.
	Pos Pos
	// Severity is SeverityError or SeverityWarning.
	Severity string
	// Msg is the message, without position or severity.
	Msg string
	// Hint, when not "", is a known name near an unknown one: Display and
	// DisplaySeverity end with the line "hint: did you mean 'NAME'?".
	Hint string
}

// hintLine returns the hint line of d, or "".
func (d Diagnostic) hintLine() string {
	if d.Hint == "" {
		return ""
	}
	return "hint: did you mean '" + d.Hint + "'?\n"
}

// IsError reports whether d is an error (and not a warning).
func (d Diagnostic) IsError() bool { return d.Severity != SeverityWarning }

// Error returns the one-line form "FILE:LINE:COL: MSG" (with "warning: "
// before the message of a warning), or just the message, prefixed by
// "warning: " for a warning, when there is no position.
func (d Diagnostic) Error() string {
	sev := ""
	if !d.IsError() {
		sev = "warning: "
	}
	if !d.Pos.IsValid() {
		return sev + d.Msg
	}
	return d.Pos.String() + ": " + sev + d.Msg
}

// Display returns the diagnostic as evalrun prints it on stderr, ending in a
// newline. An error with a position has the three lines of SPEC §4.7, exactly
// like a syntax error (FILE:LINE:COL: MSG, the source line, the caret line);
// a warning has "warning: " after the position. Without a position an error
// is "evalrun: MSG" and a warning "warning: MSG", the form of the shadowing
// warnings of SPEC §10.1.
func (d Diagnostic) Display() string {
	if d.IsError() {
		return FormatDiagnostic(d.Pos, "", d.Msg) + d.hintLine()
	}
	if !d.Pos.IsValid() {
		return "warning: " + d.Msg + "\n" + d.hintLine()
	}
	return FormatDiagnostic(d.Pos, SeverityWarning, d.Msg) + d.hintLine()
}

// DisplaySeverity is Display with the severity always written after the
// position ("FILE:LINE:COL: error: MSG"), as `evalrun check` prints problems
// (SPEC §17.4). Without a position it is "SEVERITY: MSG".
func (d Diagnostic) DisplaySeverity() string {
	sev := d.Severity
	if sev == "" {
		sev = SeverityError
	}
	if !d.Pos.IsValid() {
		return sev + ": " + d.Msg + "\n" + d.hintLine()
	}
	return FormatDiagnostic(d.Pos, sev, d.Msg) + d.hintLine()
}

// String returns the one-line form with the severity always written:
// "FILE:LINE:COL: SEVERITY: MSG".
func (d Diagnostic) String() string {
	sev := d.Severity
	if sev == "" {
		sev = SeverityError
	}
	return d.Pos.String() + ": " + sev + ": " + d.Msg
}

// HasErrors reports whether ds holds at least one error; a validation error
// makes run, eval, task, check and templates validate exit with code 3
// (SPEC §9.4).
func HasErrors(ds []Diagnostic) bool {
	return slices.ContainsFunc(ds, Diagnostic.IsError)
}
