package trace_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// progress is a sink as a live display would be one: a line per event,
// indented by the span's depth, with kind, name, executor and tokens.
type progress struct{ lines []string }

func (p *progress) Observe(e trace.Event) {
	depth := 0
	for s := e.Span.Parent(); s != nil; s = s.Parent() {
		depth++
	}
	line := fmt.Sprintf("%s%s %s %s", strings.Repeat("  ", depth), e.Type, e.Span.Kind(), e.Span.Name())
	if x := e.Span.Executor(); x != "" && e.Type == trace.Started {
		line += " (" + x + ")"
	}
	if e.Type == trace.Progress {
		line += ": " + e.Text
	}
	if e.Type == trace.Ended {
		u := e.Span.Usage()
		line += fmt.Sprintf(" %s, %d tokens", e.Span.Result().Status, u.InputTokens+u.OutputTokens)
	}
	p.lines = append(p.lines, line)
}

// A sink sees every call of a run: a step, a task waiting for its slot and
// then claimed by its own Start, the model request inside it.
func Example() {
	p := &progress{}
	ctx := trace.WithSinks(context.Background(), p)

	sctx, step := trace.Start(ctx, trace.Step, "review", nil)
	wctx := trace.Wait(sctx, trace.Task, "review/git-diff")
	tctx, task := trace.Start(wctx, trace.Task, "review/git-diff", value.DictOf("focus", value.String("security")),
		trace.Key("9f2c…"), trace.Executor("openai:gpt-4.1"))
	task.Running()
	_, model := trace.Start(tctx, trace.Model, "openai", nil, trace.Executor("openai:gpt-4.1"))
	model.Running()
	model.Progress("streaming")
	model.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: 900, OutputTokens: 120, Turns: 1})
	task.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Content: "LGTM"}, false),
		trace.Usage{InputTokens: 900, OutputTokens: 120, Turns: 1})
	step.End(trace.Result{Status: trace.Completed, Attempts: 1}, trace.Usage{})

	fmt.Println(strings.Join(p.lines, "\n"))
	// Output:
	// started step review
	//   waiting task review/git-diff
	//   started task review/git-diff (openai:gpt-4.1)
	//   running task review/git-diff
	//     started model openai (openai:gpt-4.1)
	//     running model openai
	//     progress model openai: streaming
	//     ended model openai completed, 1020 tokens
	//   ended task review/git-diff completed, 1020 tokens
	// ended step review completed, 0 tokens
}
