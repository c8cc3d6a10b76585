package evaluator

import (
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
)

// UsageReporter is an optional interface of Tasks: the run's model use so
// far, for (run-usage). TaskSystem implements it with its executor's
// usage; a Tasks without it reports nothing used.
type UsageReporter interface {
	RunUsage() tasksystem.RunUsage
}

func init() {
	register(&primitive{name: "run-usage", min: 0, max: 0, arityMsg: "'run-usage' takes no arguments.", fn: primRunUsage})
}

// RunUsage implements UsageReporter.
func (s *TaskSystem) RunUsage() tasksystem.RunUsage { return s.Executor.Usage() }

// primRunUsage is (run-usage) (SPEC §14.9): the dict {calls, input_tokens,
// output_tokens, cost_usd, cost_unknown_calls} of the run so far — the
// figures of the usage line (replayed calls included, with their recorded
// cost) — so that a workflow can stop spending by itself.
func primRunUsage(t *thread, c *call, args []value.Value) (value.Value, error) {
	var u tasksystem.RunUsage
	if r, ok := t.in.tasks.(UsageReporter); ok {
		u = r.RunUsage()
	}
	return UsageDict(u), nil
}

// UsageDict is the (run-usage) dict of u.
func UsageDict(u tasksystem.RunUsage) *value.Dict {
	return value.DictOf(
		"calls", value.Int(u.Calls),
		"input_tokens", value.Int(u.InputTokens),
		"output_tokens", value.Int(u.OutputTokens),
		"cost_usd", value.Float(u.CostUSD),
		"cost_unknown_calls", value.Int(u.CostUnknown),
	)
}
