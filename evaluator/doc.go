// Package evaluator evaluates evalrun programs: the values of package value,
// environments, the special forms and primitives of SPEC §6–§8, closures,
// operator resolution, the limits of §6.7 (recursion depth, step budget,
// timeout, value sizes), cancellation, and the concurrency of parallel and
// parallel-map under one run-wide semaphore (§6.8).
//
// A program is read by package sexp (Parse: quoted lists are made into
// their values while they are read) and compiled once: special forms and
// primitives are resolved at compile time, because variables never shadow
// them in operator position (§6.3); templates, tools and variables are
// resolved when a form is evaluated, so a defatom made while the program runs
// is seen by later calls. Each special form has one compile function, the
// only place that knows its grammar: it turns the form into a typed form
// (the bindings and body of a let, the clauses of a loop, the policy of a
// step) and records every shape error with its position. Evaluation walks
// the typed tree and never looks at a form's shape again. A shape error is
// raised when evaluation reaches the place where it was found, exactly as if
// it had been found then: (if true 1 (let x)) is 1, and in
// (let ((a (f)) (b)) ...) f runs before the bad binding fails. So SPEC §4.6
// (a syntax error means nothing runs) concerns the reader only; Check and
// `evalrun check` report every shape error at once. Program.PlannedSteps
// and Program.Templates tell other packages what a program holds without
// their knowing the grammar.
//
// The compiler also resolves variables: a reference whose binding is a
// closure parameter, a let binding or a catch variable reads it from its
// frame and slot, one that only the global frame can bind goes straight
// there, and only names that a define may add at run time are looked up by
// name (resolve.go says when). Primitive arguments live on a per-goroutine
// stack; a closure or let whose syntax can make no closure takes its frame
// from a per-thread free list, so such a call allocates nothing; + - * and
// the comparisons compute two ints inline. TestOptimizationsKeepOutcomes
// and FuzzOptimizations compare every outcome with the plain evaluator.
//
// Task and tool calls go through the Tasks interface; NewTaskSystem adapts
// the tasksystem package (registry and executor) and the handler's tools, and
// tests may supply their own. Evaluation errors are *Error values with a
// kind, a message and the position of the offending node (§6.6); a FAILED
// task is a value, not an error. Check runs the static checks of `evalrun
// check` without evaluating anything.
//
//	ts := evaluator.NewTaskSystem(tasksystem.NewRegistry(), tasksystem.NewExecutor(tasksystem.Options{}))
//	in := evaluator.New(evaluator.Options{Tasks: ts})
//	in.Define("who", value.String("Ada"))
//	v, err := in.EvalString(ctx, "<eval>", `(string-append "hello " who)`)
//	if err != nil {
//		var e *evaluator.Error
//		if errors.As(err, &e) {
//			fmt.Fprint(os.Stderr, e.Display()) // FILE:LINE:COL: MESSAGE, the line, a caret
//		}
//	}
//	fmt.Println(v) // "hello Ada"
package evaluator
