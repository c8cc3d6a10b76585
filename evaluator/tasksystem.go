package evaluator

import (
	"strings"

	"context"

	"github.com/evalrun/evalrun/handler/tools"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// TaskSystem is the standard Tasks implementation: the tasksystem registry
// and executor behind the evaluator's interface.
type TaskSystem struct {
	Registry *tasksystem.Registry
	Executor *tasksystem.Executor
	// Tools are the tools workflows may call by name; nil means none.
	Tools *tools.Tools
	// Context answers get-context; nil means no memory index is available.
	Context ContextFunc
	// OnDefine, when set, receives what each defatom registration displaced
	// (for the shadowing warnings).
	OnDefine func(t *templates.Template, res tasksystem.AddResult)
	// Plans reads and runs plans for plan-load and plan-run; nil makes
	// them evaluation errors.
	Plans Planner
}

// NewTaskSystem returns a TaskSystem over a registry and an executor.
func NewTaskSystem(reg *tasksystem.Registry, exec *tasksystem.Executor) *TaskSystem {
	return &TaskSystem{Registry: reg, Executor: exec}
}

// Lookup implements Tasks.
func (s *TaskSystem) Lookup(name string) (*templates.Template, bool) { return s.Registry.Lookup(name) }

// TemplateNames returns the names and aliases of the registered templates,
// except internal ones: the candidates of "did you mean" hints.
func (s *TaskSystem) TemplateNames() []string {
	var names []string
	for _, t := range s.Registry.All() {
		if strings.HasPrefix(t.Name, "internal:") {
			continue
		}
		names = append(names, t.Name)
		if t.Alias != "" {
			names = append(names, t.Alias)
		}
	}
	return names
}

// HasTool implements Tasks.
func (s *TaskSystem) HasTool(name string) bool { return s.Tools != nil && s.Tools.HasTool(name) }

// Define implements Tasks.
func (s *TaskSystem) Define(t *templates.Template) error {
	res := s.Registry.Add(t)
	if s.OnDefine != nil {
		s.OnDefine(t, res)
	}
	return nil
}

// Execute implements Tasks: the call's request goes to the executor as
// it is.
func (s *TaskSystem) Execute(ctx context.Context, c *TaskCall) *value.TaskResult {
	return s.Executor.Execute(ctx, c.Request)
}

// CallTool implements Tasks.
func (s *TaskSystem) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	if s.HasTool(name) {
		return s.Tools.CallTool(ctx, name, params)
	}
	return notFound("Tool '" + name + "' not found in registered executors.")
}

// Match implements Tasks: a list of {"name", "score", "source"} dicts.
func (s *TaskSystem) Match(text string) value.List {
	matches := s.Registry.Match(text)
	if len(matches) == 0 {
		return nil
	}
	out := make(value.List, len(matches))
	for i, m := range matches {
		out[i] = value.DictOf("name", value.String(m.Name), "score", value.Float(m.Score), "source", value.String(m.Scope))
	}
	return out
}

func parseContextArg(task string, v value.Value) (templates.ContextSettings, error) {
	return tasksystem.ParseContextArg(task, v)
}

func parseHistoryArg(task string, v value.Value) (templates.HistoryConfig, error) {
	return tasksystem.ParseHistoryArg(task, v)
}

// GetContext implements Tasks.
func (s *TaskSystem) GetContext(ctx context.Context, q ContextQuery) *value.Dict {
	if s.Context == nil {
		return NoMemory()
	}
	return s.Context(ctx, q)
}
