package evaluator

import (
	"context"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

func init() {
	defineForm("get-context", false, compileGetContext)
	defineForm("get_context", false, compileGetContext)
	for _, name := range []string{"get-context", "get_context"} {
		valuePrimitives[name] = &primitive{name: name, min: 1, max: 1, fn: primGetContext}
	}
}

// ContextQuery is one memory lookup requested by get-context (SPEC §8.7,
// §15.4): the memory package's query, with the inputs already appended to
// Query.
type ContextQuery = memory.Query

// The get-context defaults and bounds, those of the memory package.
const (
	DefaultContextTopK = memory.DefaultTopK
	MaxContextTopK     = memory.MaxTopK
)

// contextStrategies maps the accepted strategy names to the canonical ones.
var contextStrategies = map[string]string{
	"content": "content", "content-only": "content",
	"metadata": "metadata", "metadata-only": "metadata",
	"llm": "llm", "llm-metadata": "llm-metadata",
}

// getContextKeys are the parameter names of get-context (SPEC §8.7).
var getContextKeys = []string{"query", "matching_strategy", "context-strategy", "context_strategy", "top_k", "inputs", "templateDescription"}

// getContextForm is (get-context QUERY (key expr)...): the first argument
// is the query unless it is a (key expr) pair of a known key. An unknown
// parameter raises its error when evaluation reaches it.
type getContextForm struct{ args []getContextArg }

type getContextArg struct {
	key string // "" for the query given alone
	x   *expr
	err *Error
}

func compileGetContext(c *compiler, x *expr, depth int) (form, error) {
	a := argNodes(x)
	f := &getContextForm{args: make([]getContextArg, len(a))}
	for i, n := range a {
		ga := &f.args[i]
		if n.Kind == sexp.List && len(n.Items) == 2 && n.Items[0].Kind == sexp.Symbol && slices.Contains(getContextKeys, n.Items[0].Str) {
			ga.key = n.Items[0].Str
			v, err := c.compile(n.Items[1], depth+1)
			if err != nil {
				return nil, err
			}
			ga.x = v
			continue
		}
		if i > 0 {
			ga.err = c.problem(errorf(n.Pos, KindValue, "Unknown '%s' parameter: %s", x.name, datum(n)))
			continue
		}
		v, err := c.compile(n, depth)
		if err != nil {
			return nil, err
		}
		ga.x = v
	}
	return f, nil
}

func (f *getContextForm) eval(t *thread, x *expr, env *Env) (value.Value, error) {
	q := ContextQuery{TopK: DefaultContextTopK}
	var query, strategy, topK, inputs, description value.Value
	for i := range f.args {
		a := &f.args[i]
		if a.err != nil {
			e := *a.err
			return nil, &e
		}
		v, err := t.eval(a.x, env)
		if err != nil {
			return nil, err
		}
		switch a.key {
		case "", "query":
			query = v
		case "matching_strategy", "context-strategy", "context_strategy":
			strategy = v
		case "top_k":
			topK = v
		case "inputs":
			inputs = v
		case "templateDescription":
			description = v
		}
	}
	if err := setContextQuery(&q, query, strategy, topK, inputs, description, x.pos()); err != nil {
		return nil, err
	}
	return t.getContext(q, x.pos())
}

func (f *getContextForm) children() []*expr {
	var out []*expr
	for _, a := range f.args {
		if a.x != nil {
			out = append(out, a.x)
		}
	}
	return out
}

// primGetContext is get-context applied to one value: the query.
func primGetContext(t *thread, c *call, args []value.Value) (value.Value, error) {
	q := ContextQuery{TopK: DefaultContextTopK}
	if err := setContextQuery(&q, args[0], nil, nil, nil, nil, c.at()); err != nil {
		return nil, err
	}
	return t.getContext(q, c.at())
}

// setContextQuery checks and stores the evaluated parameters in q; nil
// means not given.
func setContextQuery(q *ContextQuery, query, strategy, topK, inputs, description value.Value, pos sexp.Pos) error {
	var err error
	if q.Query, err = contextText("query", query, pos); err != nil {
		return err
	}
	if q.TemplateDescription, err = contextText("templateDescription", description, pos); err != nil {
		return err
	}
	if strings.TrimSpace(q.Query) == "" && strings.TrimSpace(q.TemplateDescription) == "" {
		return newError(pos, KindValue, "'get-context' requires a query parameter.")
	}
	q.Strategy = "content"
	if strategy != nil {
		name := value.Text(strategy)
		canon, ok := contextStrategies[name]
		if !ok {
			return errorf(pos, KindValue, "Invalid context strategy: %s. Must be content, metadata, llm or llm-metadata.", name)
		}
		q.Strategy = canon
	}
	if topK != nil {
		n, ok := topK.(value.Int)
		if !ok || n < 1 || n > MaxContextTopK {
			return errorf(pos, KindValue, "'get-context' top_k must be an integer from 1 to %d, got %s", MaxContextTopK, topK)
		}
		q.TopK = int(n)
	}
	if inputs != nil {
		d, ok := inputsDict(inputs)
		if !ok {
			return errorf(pos, KindType, "'get-context' inputs must be a dict or a list of pairs, got %s", inputs.Type())
		}
		// The inputs' rendered values are appended to the query (§8.7).
		var b strings.Builder
		b.WriteString(q.Query)
		for _, v := range d.All() {
			if t := value.Text(v); t != "" {
				b.WriteByte('\n')
				b.WriteString(t)
			}
		}
		q.Query = b.String()
	}
	return nil
}

// contextText reads the query or templateDescription of get-context: a
// string or a symbol; null or nil means not given.
func contextText(param string, v value.Value, pos sexp.Pos) (string, error) {
	switch v := v.(type) {
	case nil, value.Null:
		return "", nil
	case value.List:
		if len(v) == 0 {
			return "", nil
		}
	case value.String:
		return string(v), nil
	case value.Symbol:
		return string(v), nil
	}
	return "", errorf(pos, KindType, "'get-context' %s must be a string, got %s", param, v.Type())
}

// inputsDict accepts a dict or an association list.
func inputsDict(v value.Value) (*value.Dict, bool) {
	switch v := v.(type) {
	case *value.Dict:
		return v, true
	case value.Null:
		return nil, true
	case value.List:
		d := value.NewDict(len(v))
		for _, e := range v {
			pair, ok := e.(value.List)
			if !ok || len(pair) != 2 {
				return nil, false
			}
			k, ok := textOf(pair[0])
			if !ok {
				return nil, false
			}
			d.Set(k, pair[1])
		}
		return d, true
	}
	return nil, false
}

// getContext runs the lookup; a memory failure is in the result's error key,
// never an evaluation error.
func (t *thread) getContext(q ContextQuery, pos sexp.Pos) (value.Value, error) {
	if err := t.acquireMemory(pos); err != nil {
		return nil, err
	}
	var r *value.Dict
	if t.in.tasks != nil {
		r = t.in.tasks.GetContext(t.ctx, q)
	} else {
		r = NoMemory()
	}
	if err := t.interruption(pos); err != nil {
		return nil, err
	}
	return r, nil
}

// acquireMemory notices cancellation before a lookup starts; lookups run
// their model calls in the memory system's own pool (SPEC §6.8).
func (t *thread) acquireMemory(pos sexp.Pos) error { return t.interruption(pos) }

// NoMemory is the get-context result when no memory index is available.
func NoMemory() *value.Dict {
	return value.DictOf("summary", value.String(""), "matches", value.List(nil),
		"error", value.String("no memory index is available"))
}

// ContextFunc answers get-context lookups for a TaskSystem.
type ContextFunc func(ctx context.Context, q ContextQuery) *value.Dict
