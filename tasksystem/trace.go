package tasksystem

import (
	"sort"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// taskSpan is the trace side of one Execute: the call's task span, started
// once the request hash is known (or at the end, for a call that failed
// before), and its session.
type taskSpan struct {
	span    *trace.Span
	session *handler.Session
	// replayed is set when the result came from a trace.Gate (the
	// journal's replay), with the usage and turns recorded for it.
	replayed bool
	usage    handler.Usage
	turns    int
	cost     handler.Cost
	// agent is set for a call an agent answered: its cost is j.cost.
	agent bool
}

// inputsDict returns bound inputs as a dict with sorted keys.
func inputsDict(in map[string]value.Value) *value.Dict {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	d := value.NewDict(len(keys))
	for _, k := range keys {
		d.Set(k, in[k])
	}
	return d
}

// requestInputs returns the named arguments of a request as a dict, for a
// call that failed before its inputs were bound.
func requestInputs(req Request) value.Value {
	d := value.NewDict(len(req.Named))
	for _, n := range req.Named {
		d.Set(n.Name, n.Value)
	}
	if len(req.Positional) > 0 {
		d.Set("_positional", value.List(append([]value.Value(nil), req.Positional...)))
	}
	return d
}
