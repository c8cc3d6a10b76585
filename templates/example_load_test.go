package templates_test

import (
	"fmt"

	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func ExampleParseFile() {
	src := `<task name="greet" type="atomic">
  <description>Greet someone</description>
  <inputs><input name="who" type="string" default="World">Whom to greet</input></inputs>
  <instructions>
    Say hello to {{ who | upper }}.
  </instructions>
  <limits max_turns="two"/>
</task>`
	ts, diags := templates.ParseFile("greet.xml", []byte(src), templates.ScopeLocal)
	fmt.Println(len(ts), "valid templates")
	for _, d := range diags {
		fmt.Print(d.Display())
	}

	ts, _ = templates.ParseFile("greet.xml", []byte(src[:len(src)-len(`  <limits max_turns="two"/>
</task>`)]+"</task>"), templates.ScopeLocal)
	t := ts[0]
	fmt.Printf("%s: %q, input %s default %v\n", t.Name, t.Instructions, t.Inputs[0].Name, t.Inputs[0].Default)
	// Output:
	// 0 valid templates
	// greet.xml:7:11: invalid value "two" for attribute max_turns of <limits>: expected an integer >= 1
	//   <limits max_turns="two"/>
	//           ^
	// greet: "Say hello to {{ who | upper }}.", input who default "World"
}

func ExampleLoad() {
	set, diags := templates.Load(templates.LoadOptions{
		Sources:    templates.Sources{Local: "testdata/spec20"},
		KnownRoles: func(role string) bool { return role == "reviewer" },
	})
	for _, d := range diags {
		fmt.Print(d.Display())
	}
	for _, it := range set.List() {
		fmt.Printf("%-8s %-40s %s:%d\n", it.Scope, it.Name, it.Path, it.Line)
	}
	review, _ := set.Lookup("gdr")
	fmt.Println(review.Source())
	fmt.Println(review.OutputFormat.Compiled.Validate(value.DictOf("verdict", value.String("maybe"))))
	// Output:
	// builtin  internal:associative_matching_content    <builtin>:6
	// builtin  internal:associative_matching_metadata   <builtin>:34
	// local    plan/generate                            plan.xml:2
	// local    code/implement                           plan.xml:14
	// local    review/git-diff                          review.xml:1
	// local    summarize-file                           summaries.xml:2
	// local    combine-summaries                        summaries.xml:8
	// local    writer:plan                              writer.xml:2
	// local    writer:draft                             writer.xml:10
	// local    writer:critique                          writer.xml:14
	// local testdata/spec20/review.xml:1
	// [/: missing required property 'issues' /verdict: value must be one of "approve", "changes"]
}
