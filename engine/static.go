package engine

import (
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
)

// MaxCheckErrors is how many errors Check reports for one file before it
// stops with "too many errors", as the Go compiler does.
const MaxCheckErrors = 10

// CheckOptions configure Check.
type CheckOptions struct {
	// Globals are names bound before the program runs, such as those of
	// --set options; their values do not matter.
	Globals []string
}

// CheckResult is what Check found.
type CheckResult struct {
	// Diagnostics are the problems in the order to print them: the syntax
	// errors of each file, then the problems of the program in source
	// order. When a file has more than MaxCheckErrors errors, the error
	// after the last one reported is replaced by the error "too many
	// errors" at its position, and nothing more is reported for the file.
	Diagnostics []sexp.Diagnostic
	// Failed holds the sources with at least one error.
	Failed map[*sexp.Source]bool
}

// Check reads and checks sources as one program, in order, as run would
// evaluate them, without evaluating anything (SPEC §17.4): syntax (every
// syntax error of a file, not only the first), the
// shapes of special forms, operators and variables that resolve to
// nothing, and calls of templates — those of ws and of the program's own
// defatom forms — with unknown or missing inputs. A source with a syntax
// error is reported and left out of the program. ws's own diagnostics
// (template validation, hidden templates) are not included.
func Check(ws *Workspace, srcs []*sexp.Source, opts CheckOptions) CheckResult {
	res := CheckResult{Failed: map[*sexp.Source]bool{}}
	errs := map[*sexp.Source]int{}
	stopped := map[*sexp.Source]bool{}
	add := func(d sexp.Diagnostic) {
		src := d.Pos.Src
		if stopped[src] {
			return
		}
		if d.IsError() && errs[src] == MaxCheckErrors && src != nil {
			stopped[src] = true
			res.Diagnostics = append(res.Diagnostics, sexp.Diagnostic{Pos: d.Pos, Severity: sexp.SeverityError, Msg: "too many errors"})
			return
		}
		if d.IsError() {
			errs[src]++
			res.Failed[src] = true
		}
		res.Diagnostics = append(res.Diagnostics, d)
	}
	var forms []*sexp.Node
	for _, src := range srcs {
		f, errs := sexp.ParseAll(src, 0)
		if len(errs) > 0 {
			res.Failed[src] = true
			for _, e := range errs {
				add(sexp.Diagnostic{Pos: e.Pos, Severity: sexp.SeverityError, Msg: e.Msg})
			}
			continue
		}
		forms = append(forms, f.Forms...)
	}
	tasks := evaluator.NewTaskSystem(ws.registry(), nil)
	tasks.Tools = ws.toolset()
	for _, d := range evaluator.Check(forms, evaluator.CheckOptions{Tasks: tasks, Globals: opts.Globals}) {
		add(d)
	}
	return res
}

// Parse reads the top-level forms of src as a run reads them: a list
// quoted with the shorthand '(…) is made into its value while it is read,
// so a large quoted datum is held once (evaluator.Parse). Errors are
// sexp's syntax errors, with their positions.
func Parse(src *sexp.Source) ([]*sexp.Node, error) { return evaluator.Parse(src) }
