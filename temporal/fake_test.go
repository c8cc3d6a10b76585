package temporal_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// fakeTasks stands in for the engine's task system: templates greet
// (input name: content "Hello NAME"), fail (always FAILED), slow (waits
// for delay or its context) and big (a result of 3 MiB); a tool "upper".
// It counts executions and the most that ran at once.
type fakeTasks struct {
	delay time.Duration

	mu        sync.Mutex
	calls     map[string]int
	defined   map[string]*templates.Template
	active    atomic.Int64
	maxActive atomic.Int64
	cancelled atomic.Int64
	// crashes is how many more task executions panic, as a worker that
	// dies mid-call (the SDK reports the panic as a retryable failure).
	crashes atomic.Int64
	// crashOn names a greet argument whose first execution panics.
	crashOn string
	crashed atomic.Bool
}

var _ evaluator.Tasks = (*fakeTasks)(nil)

func newFake() *fakeTasks {
	return &fakeTasks{calls: map[string]int{}, defined: map[string]*templates.Template{}}
}

var fakeTemplates = map[string]*templates.Template{
	"greet": {Name: "greet", Inputs: []templates.Input{{Name: "name", Type: "string", Required: true}}, InputsDeclared: true},
	"fail":  {Name: "fail"},
	"slow":  {Name: "slow", Inputs: []templates.Input{{Name: "n", Type: "any"}}, InputsDeclared: true},
	"big":   {Name: "big"},
}

func (f *fakeTasks) Lookup(name string) (*templates.Template, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.defined[name]; ok {
		return t, true
	}
	t, ok := fakeTemplates[name]
	return t, ok
}

func (f *fakeTasks) HasTool(name string) bool { return name == "upper" }

func (f *fakeTasks) Define(t *templates.Template) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.defined[t.Name] = t
	return nil
}

func (f *fakeTasks) Match(string) value.List { return nil }

// count records one execution of key and returns how many there were.
func (f *fakeTasks) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[key]++
	return f.calls[key]
}

func (f *fakeTasks) executions(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

func (f *fakeTasks) Execute(ctx context.Context, call *evaluator.TaskCall) *value.TaskResult {
	n := f.active.Add(1)
	defer f.active.Add(-1)
	for {
		m := f.maxActive.Load()
		if n <= m || f.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	if f.crashes.Add(-1) >= 0 {
		panic("worker lost")
	}
	for _, a := range call.Named {
		if f.crashOn != "" && a.Name == "name" && asText(a.Value) == f.crashOn && f.crashed.CompareAndSwap(false, true) {
			panic("worker lost")
		}
	}
	if call.Template == nil {
		return failedResult("template_not_found", fmt.Sprintf("Template not found: %s", call.Name))
	}
	args := map[string]value.Value{}
	for _, a := range call.Named {
		args[a.Name] = a.Value
	}
	for i, v := range call.Positional {
		args[call.Template.Inputs[i].Name] = v
	}
	f.count(call.Template.Name + ":" + fmt.Sprint(args["name"], args["n"]))
	switch call.Template.Name {
	case "greet":
		return complete(fmt.Sprintf("Hello %s", asText(args["name"])))
	case "fail":
		return failedResult("llm_error", "HTTP 400: bad request")
	case "slow":
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			f.cancelled.Add(1)
			return failedResult("execution_halted", "cancelled")
		}
		return complete(fmt.Sprintf("slow %s", asText(args["n"])))
	case "big":
		return complete(strings.Repeat("x", 3<<20))
	}
	// Any other template (made by defatom): where it was defined, its
	// instructions and the name argument.
	tm := call.Template
	return complete(fmt.Sprintf("%s@%s:%d:%d %s name=%s", tm.Name, tm.Path, tm.Line, tm.Col, tm.Instructions, asText(args["name"])))
}

func (f *fakeTasks) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	f.count("tool:" + name)
	v, _ := params.Get("text")
	return complete(strings.ToUpper(asText(v)))
}

func (f *fakeTasks) GetContext(ctx context.Context, q evaluator.ContextQuery) *value.Dict {
	f.count("get-context:" + q.Query)
	m := value.NewDict(2)
	m.Set("id", value.String("a.go"))
	m.Set("relevance_score", value.Float(0.5))
	d := value.NewDict(2)
	d.Set("summary", value.String("found for "+q.Query))
	d.Set("matches", value.List{m})
	return d
}

func asText(v value.Value) string {
	if s, ok := v.(value.String); ok {
		return string(s)
	}
	if v == nil {
		return "null"
	}
	return v.String()
}

func complete(content string) *value.TaskResult {
	notes := value.NewDict(1)
	notes.Set("model", value.String("fake"))
	return &value.TaskResult{Status: "COMPLETE", Content: content, Notes: notes}
}

func failedResult(reason, msg string) *value.TaskResult {
	e := value.NewDict(3)
	e.Set("type", value.String("TASK_FAILURE"))
	e.Set("reason", value.String(reason))
	e.Set("message", value.String(msg))
	notes := value.NewDict(1)
	notes.Set("error", e)
	return &value.TaskResult{Status: "FAILED", Content: msg, Notes: notes}
}
