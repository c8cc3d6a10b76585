package handler

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// fakeTools is a Toolbox for the handler's tests (the real tools are in
// package handler/tools, which imports this one): each tool is a function
// of its parameters, offered with an empty parameter schema; a name it
// does not have is left out with the warning "no such tool". CallTool
// traces the call as the real tools do.
type fakeTools map[string]func(params *value.Dict) *value.TaskResult

func (f fakeTools) Offer(task string, allowed []string) ([]ToolDef, []string) {
	var defs []ToolDef
	var warnings []string
	seen := map[string]bool{}
	for _, name := range allowed {
		if seen[name] {
			continue
		}
		seen[name] = true
		if _, ok := f[name]; !ok {
			warnings = append(warnings, "warning: task '"+task+"' cannot use tool '"+name+"': no such tool")
			continue
		}
		defs = append(defs, ToolDef{Name: name, Description: "The " + name + " tool.",
			Parameters: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)})
	}
	return defs, warnings
}

func (f fakeTools) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	_, span := trace.Start(ctx, trace.Tool, name, dictValue(params))
	span.Running()
	r := f[name](params)
	span.End(trace.ResultOf(r, false), trace.Usage{})
	return r
}

// listTools offers system_list_directory, which answers with the given
// listing.
func listTools(listing string) fakeTools {
	return fakeTools{"system_list_directory": func(*value.Dict) *value.TaskResult {
		return &value.TaskResult{Status: value.StatusComplete, Content: listing}
	}}
}

// ok is a COMPLETE result.
func ok(content string) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete, Content: content}
}

// writeFile writes content to dir/name, making its directory.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type recordedCall struct {
	name   string
	params string
	status string
	text   string
	parent string
}

// memRecorder is a trace sink that keeps the tool spans that ended and
// the model spans' executors.
type memRecorder struct {
	mu     sync.Mutex
	calls  []recordedCall
	models []string
}

func (r *memRecorder) Observe(e trace.Event) {
	if e.Type != trace.Ended || e.Span.Kind() == trace.Task {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := e.Span
	if sp.Kind() == trace.Model {
		r.models = append(r.models, sp.Executor()+" "+string(sp.Result().Status))
		return
	}
	rc := recordedCall{name: sp.Name(), params: "nil", parent: sp.Parent().Name()}
	if in := sp.Inputs(); in != nil {
		rc.params = value.JSON(in)
	}
	res := sp.Result().Value.(*value.TaskResult)
	rc.status, rc.text = res.Status, res.Content
	r.calls = append(r.calls, rc)
}
