package evaluator_test

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// fakeTasks is a small in-memory stand-in for the task system: a template
// registry keyed by name (with alias and atomic:subtype lookup), an executor
// with echo-provider semantics (a task's content is its rendered
// instructions) and two tools. It records what the evaluator handed it.
type fakeTasks struct {
	mu    sync.Mutex
	tmpls map[string]*templates.Template
	// delay is how long each task execution takes; it honours ctx.
	delay time.Duration
	// delays overrides delay for the templates it names.
	delays map[string]time.Duration

	calls     atomic.Int64
	toolCalls atomic.Int64
	active    atomic.Int64
	maxActive atomic.Int64
	// cancelled counts executions that ended because ctx was cancelled.
	cancelled atomic.Int64

	lastCall       *evaluator.TaskCall
	contextQueries []evaluator.ContextQuery
}

var _ evaluator.Tasks = (*fakeTasks)(nil)

func newFakeTasks() *fakeTasks {
	return &fakeTasks{tmpls: map[string]*templates.Template{}}
}

// Lookup resolves a name by exact name, then alias, then atomic:subtype.
func (f *fakeTasks) Lookup(name string) (*templates.Template, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.tmpls[name]; ok {
		return t, true
	}
	names := make([]string, 0, len(f.tmpls))
	for n := range f.tmpls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if t := f.tmpls[n]; t.Alias != "" && t.Alias == name {
			return t, true
		}
	}
	for _, n := range names {
		if t := f.tmpls[n]; t.Type+":"+t.Subtype == name {
			return t, true
		}
	}
	return nil, false
}

// HasTool knows two tools: echo-tool (answers with its parameters as JSON)
// and fail-tool (always FAILED).
func (f *fakeTasks) HasTool(name string) bool {
	return name == "echo-tool" || name == "fail-tool"
}

// Define registers a template, replacing one of the same name.
func (f *fakeTasks) Define(t *templates.Template) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tmpls[t.Name] = t
	return nil
}

// placeholderRE matches a simple {{ name }} placeholder.
var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`)

// Execute binds the inputs (positional in declaration order, then named),
// renders the instructions and answers with the rendered text.
func (f *fakeTasks) Execute(ctx context.Context, c *evaluator.TaskCall) *value.TaskResult {
	f.calls.Add(1)
	n := f.active.Add(1)
	defer f.active.Add(-1)
	for {
		m := f.maxActive.Load()
		if n <= m || f.maxActive.CompareAndSwap(m, n) {
			break
		}
	}
	f.mu.Lock()
	f.lastCall = c
	f.mu.Unlock()
	tmpl := c.Template
	notes := value.DictOf("template_used", value.String(tmpl.Name))
	delay := f.delay
	if d, ok := f.delays[tmpl.Name]; ok {
		delay = d
	}
	if delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			f.cancelled.Add(1)
			return value.Failed("execution_halted", "cancelled", notes)
		}
	}
	inputs := map[string]value.Value{}
	for i, v := range c.Positional {
		inputs[tmpl.Inputs[i].Name] = v
	}
	var unknown []string
	for _, nv := range c.Named {
		if _, ok := tmpl.InputNamed(nv.Name); tmpl.InputsDeclared && !ok {
			unknown = append(unknown, nv.Name)
		}
		inputs[nv.Name] = nv.Value
	}
	if len(unknown) > 0 {
		return value.Failed("input_validation_failure",
			"Unknown parameter(s) for task '"+tmpl.Name+"': "+strings.Join(unknown, ", "), notes)
	}
	for _, in := range tmpl.Inputs {
		if _, ok := inputs[in.Name]; !ok && !in.Required {
			inputs[in.Name] = value.Null{}
		}
	}
	var missing []string
	text := placeholderRE.ReplaceAllStringFunc(tmpl.Instructions, func(ph string) string {
		name := placeholderRE.FindStringSubmatch(ph)[1]
		v, ok := inputs[name]
		if !ok {
			missing = append(missing, name)
			return ""
		}
		return value.Text(v)
	})
	if len(missing) > 0 {
		return value.Failed("input_validation_failure",
			"Missing parameter(s) or access error for substitution: "+strings.Join(missing, ", "), notes)
	}
	return &value.TaskResult{Status: value.StatusComplete, Content: text, Notes: notes}
}

// CallTool runs echo-tool or fail-tool.
func (f *fakeTasks) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	f.toolCalls.Add(1)
	switch name {
	case "echo-tool":
		return &value.TaskResult{Status: value.StatusComplete, Content: value.JSON(params)}
	case "fail-tool":
		r := value.Failed("tool_execution_error", "tool broke\nsecond line", nil)
		r.Content = "content of the failure"
		return r
	}
	return value.Failed("template_not_found", "Tool '"+name+"' not found in registered executors.", nil)
}

// Match returns every template whose name occurs in text.
func (f *fakeTasks) Match(text string) value.List {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for n := range f.tmpls {
		if strings.Contains(text, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out value.List
	for _, n := range names {
		out = append(out, value.DictOf("name", value.String(n), "score", value.Float(1), "source", value.String("defatom")))
	}
	return out
}

func (f *fakeTasks) last() *evaluator.TaskCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastCall
}

func (f *fakeTasks) GetContext(ctx context.Context, q evaluator.ContextQuery) *value.Dict {
	f.mu.Lock()
	f.contextQueries = append(f.contextQueries, q)
	f.mu.Unlock()
	return value.DictOf("summary", value.String("1 matches for \""+q.Query+"\""),
		"matches", value.List{value.DictOf("id", value.String("a.go"), "content", value.String("package a"))})
}
