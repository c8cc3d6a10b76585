package templates_test

import (
	"fmt"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func ExampleParse() {
	txt, err := templates.Parse(`Review {{ files | join(", ") }} for {{ focus | default("bugs") }}. {{ plan.steps | length }} steps.`)
	if err != nil {
		fmt.Println(err)
		return
	}
	inputs := value.DictOf("files", value.List{value.String("a.go"), value.String("b.go")})
	text, missing := txt.Render(func(root string) (value.Value, bool) { return inputs.Get(root) })
	fmt.Println(text)
	fmt.Println(missing)

	_, err = templates.Parse("{{ x | uper }}")
	fmt.Println(err)
	// Output:
	// Review a.go, b.go for bugs.  steps.
	// [plan.steps]
	// invalid placeholder {{ x | uper }}: unknown filter 'uper' (did you mean 'upper'?)
}

func ExampleInfer() {
	t := &templates.Template{Name: "summarize", Instructions: "Summarise {{path}} for {{reader | default(\"anyone\")}}. {{date}}"}
	if err := templates.Infer(t); err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range t.Inputs {
		fmt.Println(in.Name, in.Type, in.Required)
	}
	// Output:
	// path any true
	// reader any false
}
