package tasksystem_test

import (
	"context"
	"fmt"

	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func Example() {
	reg := tasksystem.NewRegistry()
	greet := &templates.Template{
		Name: "greet", Type: "atomic", Instructions: "Hello {{name}}!",
		Inputs:         []templates.Input{{Name: "name", Type: "any", Required: true}},
		InputsDeclared: true, Scope: templates.ScopeDefatom,
	}
	if err := templates.Infer(greet); err != nil {
		fmt.Println(err)
		return
	}
	reg.Add(greet)

	ex := tasksystem.NewExecutor(tasksystem.Options{}) // the echo provider
	t, _ := reg.Lookup("greet")
	ok := ex.Execute(context.Background(), tasksystem.Request{Template: t,
		Named: []tasksystem.NamedArg{{Name: "name", Value: value.String("Bob")}}})
	failed := ex.Execute(context.Background(), tasksystem.Request{Template: t})
	fmt.Println(ok)
	fmt.Println(failed)
	// Output:
	// #<TaskResult COMPLETE "Hello Bob!">
	// #<TaskResult FAILED "Missing parameter(s) or access error for substitution: name">
}

func ExampleRegistry_Match() {
	reg := tasksystem.NewRegistry()
	reg.Add(&templates.Template{Name: "analyze", Description: "analyze python code", Scope: templates.ScopeLocal})
	reg.Add(&templates.Template{Name: "examples", Description: "find python examples", Scope: templates.ScopeGlobal})
	for _, m := range reg.Match("analyze python script") {
		fmt.Println(m.Name, m.Score, m.Scope)
	}
	// Output:
	// analyze 0.5 local
}
