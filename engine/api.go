package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler/tools"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
)

// Program is a compiled workflow: its forms, ready to run in any Engine.
type Program struct {
	p *evaluator.Program
}

// Compile reads and compiles a source text. A syntax error is a
// *sexp.Error; a malformed special form an evaluation error (ErrorDisplay).
func Compile(src *sexp.Source) (*Program, error) {
	forms, err := sexp.Parse(src)
	if err != nil {
		return nil, err
	}
	return CompileForms(src, forms)
}

// CompileForms compiles forms already read from src (several files read
// one by one and run as one program, a REPL input).
func CompileForms(src *sexp.Source, forms []*sexp.Node) (*Program, error) {
	p, err := evaluator.CompileForms(src, forms)
	if err != nil {
		return nil, err
	}
	return &Program{p: p}, nil
}

// Forms returns the program's forms.
func (p *Program) Forms() []*sexp.Node { return p.p.Forms }

// Input is one named input: a global variable of a run (Options.Inputs,
// --set NAME=VALUE) or a named argument of Task. Values are evalrun values
// (package value); InputsOf converts plain Go values. Inputs are a list,
// not a map, so that their order is kept and a repeated name reaches a
// task as written (where it is an error, SPEC §11.1).
type Input struct {
	Name  string
	Value value.Value
}

// InputsOf converts plain Go values — what encoding/json produces and
// accepts: nil, bool, numbers, strings, []any, map[string]any, structs
// with json tags — into inputs, in the sorted order of the names. Integers
// stay integers, other numbers become floats (SPEC §5.6).
func InputsOf(m map[string]any) ([]Input, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	v, err := value.ParseJSON(string(data))
	if err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	d, ok := v.(*value.Dict)
	if !ok { // a nil map
		return nil, nil
	}
	out := make([]Input, 0, d.Len())
	for k, x := range d.All() {
		out = append(out, Input{Name: k, Value: x})
	}
	return out, nil
}

// Usage is a run's model use (SPEC §17.3): the task calls that asked a
// model (the memory's associative-matching calls and failed calls
// included) and those replayed from the journal, their tokens and turns.
type Usage struct {
	// Calls counts the task calls that made at least one model request,
	// plus the replayed ones.
	Calls int
	// Replayed counts the calls answered from the journal (--resume).
	Replayed int
	// InputTokens and OutputTokens sum the usage of every call.
	InputTokens, OutputTokens int
	// Turns sums the assistant messages of every call.
	Turns int
	// CostUSD sums the known costs of the calls (SPEC §14.9), replayed
	// calls with their recorded cost; CostUnknown counts the calls whose
	// price is unknown.
	CostUSD     float64
	CostUnknown int
	// ReplayedCostUSD is the part of CostUSD that replayed calls recorded:
	// spent by the run that made them, not again by this one.
	ReplayedCostUSD float64
}

// Line is the usage line of SPEC §17.3 and §14.9, "usage: 3 model calls
// (1 replayed), 1234 input + 567 output tokens, 5 turns, $0.0123", or ""
// when no model was asked. The cost part is the known cost when above
// zero, then "cost unknown for N calls" when calls had no known price
// ("…, 5 turns, $0.0123, cost unknown for 2 calls"); a free run (echo)
// shows none. When replayed calls recorded a cost, the part is what this
// run spent and what was replayed: "$0.0021 spent + $0.0183 replayed", so
// a resumed run shows that it did not pay again.
func (u Usage) Line() string {
	if u.Calls == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("usage: ")
	b.WriteString(plural(u.Calls, "model call", "model calls"))
	if u.Replayed > 0 {
		fmt.Fprintf(&b, " (%d replayed)", u.Replayed)
	}
	fmt.Fprintf(&b, ", %d input + %d output tokens, %s", u.InputTokens, u.OutputTokens, plural(u.Turns, "turn", "turns"))
	if u.ReplayedCostUSD > 0 {
		fmt.Fprintf(&b, ", %s spent + %s replayed", journal.FormatUSD(max(u.CostUSD-u.ReplayedCostUSD, 0)), journal.FormatUSD(u.ReplayedCostUSD))
		if u.CostUnknown > 0 {
			fmt.Fprintf(&b, ", cost unknown for %s", plural(u.CostUnknown, "call", "calls"))
		}
	} else if c := journal.CostText(u.CostUSD, u.CostUnknown); c != "" {
		b.WriteString(", " + c)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func usageOf(u tasksystem.RunUsage) Usage {
	return Usage{Calls: u.Calls, Replayed: u.Replayed, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, Turns: u.Turns,
		CostUSD: u.CostUSD, CostUnknown: u.CostUnknown, ReplayedCostUSD: u.ReplayedCostUSD}
}

// Interrupted is the cause to cancel a run's context with when the user
// interrupts it (Ctrl-C): the run ends with an evaluation error for which
// IsInterrupted is true.
func Interrupted() error { return evaluator.Interrupted() }

// IsInterrupted reports whether err ended a run that was interrupted
// (Interrupted, SPEC §6.7).
func IsInterrupted(err error) bool {
	var ee *evaluator.Error
	if errors.As(err, &ee) {
		return ee.Kind == evaluator.KindCancelled
	}
	kind, _, ok := remoteError(err)
	return ok && kind == string(evaluator.KindCancelled)
}

// ErrorDisplay returns the display of an evaluation error of Run, Eval or
// Compile — "file:line:col: message", the source line and a caret (SPEC
// §4.7) — and true; false when err is no evaluation error.
func ErrorDisplay(err error) (string, bool) {
	var ee *evaluator.Error
	if errors.As(err, &ee) {
		return ee.Display(), true
	}
	if _, display, ok := remoteError(err); ok {
		return display, true
	}
	return "", false
}

// UnboundVariable returns the name of an evaluation error of Run or Eval
// that is an unbound variable ("Unbound symbol: Name 'x' is not defined.",
// SPEC §6.2) with no "did you mean" hint, and true; false for any other
// error. An unknown operator is not a variable.
func UnboundVariable(err error) (string, bool) {
	var ee *evaluator.Error
	if !errors.As(err, &ee) || ee.Kind != evaluator.KindUnbound || ee.Hint != "" {
		return "", false
	}
	return UnboundVariableName(ee.Msg)
}

// UnboundVariableName returns the name in the message of an unbound
// variable, "Unbound symbol: Name 'x' is not defined." (an error of
// evaluation or of evalrun check), and true; false for any other message.
func UnboundVariableName(msg string) (string, bool) {
	rest, ok := strings.CutPrefix(msg, "Unbound symbol: Name '")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "' is not defined.")
}

// ConfigErrorsDisplay returns the display of every error of an invalid
// configuration file ("PATH:LINE:COL: message" with the source line and
// a caret) that err holds, and true; false when it holds none.
func ConfigErrorsDisplay(err error) (string, bool) {
	var cl config.ErrorList
	if !errors.As(err, &cl) {
		return "", false
	}
	var b strings.Builder
	for _, e := range cl {
		b.WriteString(e.Display())
	}
	return b.String(), true
}

// IsTerminal reports whether f is an *os.File that is a terminal (the
// null device is not): interactive prompts, colours and the
// request_user_input tool are only for terminals.
func IsTerminal(f any) bool { return tools.IsTerminal(f) }
