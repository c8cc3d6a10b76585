package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/evalrun/evalrun/handler"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// The names of the built-in tools (SPEC §14.4).
const (
	ToolReadFiles     = "system_read_files"
	ToolListDirectory = "system_list_directory"
	ToolGetContext    = "system_get_context"
	ToolShell         = "system_execute_shell_command"
	ToolUserInput     = "request_user_input"
)

// ParamKind is the type of a tool parameter.
type ParamKind int

// The parameter kinds. Strings accept symbols too; numbers accept ints and
// floats.
const (
	ParamString ParamKind = iota
	ParamStringList
	ParamInt
	ParamNumber
)

// String names the kind in messages: "string", "list of strings", "int",
// "number".
func (k ParamKind) String() string {
	switch k {
	case ParamStringList:
		return "list of strings"
	case ParamInt:
		return "int"
	case ParamNumber:
		return "number"
	}
	return "string"
}

func (k ParamKind) schema() map[string]any {
	switch k {
	case ParamStringList:
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	case ParamInt:
		return map[string]any{"type": "integer"}
	case ParamNumber:
		return map[string]any{"type": "number"}
	}
	return map[string]any{"type": "string"}
}

// Param declares one parameter of a tool.
type Param struct {
	Name        string
	Kind        ParamKind
	Required    bool
	Description string
}

// Tool is a host function callable from workflows and, during a task, by
// the model (SPEC §14.4).
type Tool struct {
	Name        string
	Description string
	// Params are checked before Run: unknown names, missing required ones
	// and wrong types give FAILED input_validation_failure.
	Params []Param
	// Unavailable, when set, returns why the tool cannot be offered to a
	// model in this run ("" when it can). Direct calls are not affected.
	Unavailable func() string
	// Run executes a call whose parameters passed the checks; params is
	// never nil. It returns a TaskResult, never nil.
	Run func(ctx context.Context, params *value.Dict) *value.TaskResult
}

// Def returns the definition offered to the model: a JSON Schema object
// with one property per parameter and no others.
func (t *Tool) Def() handler.ToolDef {
	props := make(map[string]any, len(t.Params))
	required := []string{}
	for _, p := range t.Params {
		s := p.Kind.schema()
		if p.Description != "" {
			s["description"] = p.Description
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	b, _ := json.Marshal(schema) // maps of strings and bools: cannot fail
	return handler.ToolDef{Name: t.Name, Description: t.Description, Parameters: b}
}

// ContextRetriever answers system_get_context (SPEC §14.4, §15.4): the
// TaskResult whose content is the JSON array of the matching ids, with
// notes context_summary and matches. The memory package provides it
// (memory.Result.ToolResult); the handler knows nothing more of memory.
type ContextRetriever interface {
	// ContextTool runs a lookup for query; topK 0 means the memory's
	// default.
	ContextTool(ctx context.Context, query string, topK int) *value.TaskResult
}

// ContextFunc adapts a function to ContextRetriever.
type ContextFunc func(ctx context.Context, query string, topK int) *value.TaskResult

// ContextTool implements ContextRetriever.
func (f ContextFunc) ContextTool(ctx context.Context, query string, topK int) *value.TaskResult {
	return f(ctx, query, topK)
}

// ToolsConfig configures the built-in tools of a run.
type ToolsConfig struct {
	// Root is the project root: file tools and the shell tool's cwd must
	// lie inside it after resolving symbolic links (SPEC §19). "" means
	// WorkDir.
	Root string
	// WorkDir resolves relative paths (SPEC §12.4) and is the shell tool's
	// default cwd; "" means the process's working directory.
	WorkDir string
	// ShellAllow lists the programs system_execute_shell_command may start
	// ([tools] shell_allow); "*" allows any. Empty disables the tool.
	ShellAllow []string
	// HideEnv names environment variables removed from the environment of
	// the shell tool's commands, such as the api_key_env of every
	// configured provider; OPENAI_API_KEY is always removed (SPEC §19: a
	// model must not be able to print a key into the conversation).
	HideEnv []string
	// DryRun never runs the shell tool (SPEC §17.7): a call answers
	// COMPLETE with empty output and notes.dry_run true.
	DryRun bool
	// Context answers system_get_context; nil makes it fail with
	// configuration_error and keeps it from being offered.
	Context ContextRetriever
	// Stdin and Stderr serve request_user_input; nil means os.Stdin and
	// os.Stderr.
	Stdin  io.Reader
	Stderr io.Writer
	// Interactive reports whether stdin and stderr are terminals, the
	// condition for offering request_user_input to a model; nil checks
	// os.Stdin and os.Stderr.
	Interactive func() bool
}

// Tools is the registry of the tools of a run: the built-ins of SPEC §14.4
// and any registered by the embedding program. It is safe for concurrent
// calls once registration is done.
//
// Tools implements the evaluator's HasTool and CallTool. A workflow's tool
// call takes a slot of the run-wide concurrency semaphore before CallTool
// (the evaluator does that); a tool call the model makes inside a task runs
// in Session.Run on the task's own slot and must never take a second one:
// with every slot held by a task waiting for its tools, that would
// deadlock.
type Tools struct {
	cfg     ToolsConfig
	root    string // absolute, symbolic links resolved
	workDir string // absolute
	tools   map[string]*Tool
	names   []string

	stdinMu sync.Mutex
	stdin   *bufio.Reader
}

// NewTools returns a registry holding the built-in tools configured by cfg.
func NewTools(cfg ToolsConfig) *Tools {
	t := &Tools{cfg: cfg, tools: make(map[string]*Tool)}
	t.workDir = cfg.WorkDir
	if t.workDir == "" {
		t.workDir, _ = os.Getwd()
	}
	t.workDir, _ = filepath.Abs(t.workDir)
	root := cfg.Root
	if root == "" {
		root = t.workDir
	}
	root, _ = filepath.Abs(root)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	t.root = root
	for _, tool := range t.builtins() {
		t.Register(tool)
	}
	return t
}

// Register adds a tool, replacing one of the same name. Register before the
// run starts: it is not safe concurrently with calls.
func (t *Tools) Register(tool Tool) {
	if _, ok := t.tools[tool.Name]; !ok {
		t.names = append(t.names, tool.Name)
		slices.Sort(t.names)
	}
	t.tools[tool.Name] = &tool
}

// HasTool reports whether name is a tool of the registry. The colon
// spelling of a built-in tool that hoidn/llm workflows use,
// system:execute_shell_command for system_execute_shell_command, names the
// same tool unless a tool of that exact name is registered.
func (t *Tools) HasTool(name string) bool {
	_, ok := t.Tool(name)
	return ok
}

// canonicalName is canonical for a registry that may be nil.
func (t *Tools) canonicalName(name string) string {
	if t == nil {
		return name
	}
	return t.canonical(name)
}

// canonical returns the registered name that name stands for: name itself,
// or for "system:NAME" the tool "system_NAME" when only that one exists.
func (t *Tools) canonical(name string) string {
	if _, ok := t.tools[name]; ok {
		return name
	}
	if rest, ok := strings.CutPrefix(name, "system:"); ok {
		if _, found := t.tools["system_"+rest]; found {
			return "system_" + rest
		}
	}
	return name
}

// Names returns the tool names, sorted.
func (t *Tools) Names() []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.names)
}

// Tool returns the tool called name (see HasTool for the colon spelling).
func (t *Tools) Tool(name string) (*Tool, bool) {
	if t == nil {
		return nil, false
	}
	tool, ok := t.tools[t.canonical(name)]
	return tool, ok
}

// Root returns the project root the file tools are confined to.
func (t *Tools) Root() string { return t.root }

// unavailable returns why name cannot be offered to a model, or "".
func (t *Tools) unavailable(name string) string {
	if t == nil {
		return "no tools are configured"
	}
	tool, ok := t.Tool(name)
	if !ok {
		return "no such tool"
	}
	if tool.Unavailable != nil {
		return tool.Unavailable()
	}
	return ""
}

// Offer returns the definitions of the allowed tools that can be offered in
// this run, in the order given, and one warning (SPEC §14.3) for each
// allowed tool left out:
// "warning: task 'TASK' cannot use tool 'NAME': REASON". A nil *Tools
// offers nothing.
func (t *Tools) Offer(task string, allowed []string) (defs []handler.ToolDef, warnings []string) {
	seen := make(map[string]bool, len(allowed))
	for _, name := range allowed {
		if seen[t.canonicalName(name)] {
			continue
		}
		seen[t.canonicalName(name)] = true
		if why := t.unavailable(name); why != "" {
			warnings = append(warnings, "warning: task '"+task+"' cannot use tool '"+name+"': "+why)
			continue
		}
		tool, _ := t.Tool(name)
		defs = append(defs, tool.Def())
	}
	return defs, warnings
}

// CallTool runs one tool with its parameters (SPEC §11.4, §14.4) and
// returns its TaskResult, never nil; params may be nil. It takes no
// concurrency slot (see Tools). The call is a tool span (trace.Tool) in
// the span ctx is in; a trace.Gate may answer it instead (the journal
// replays a workflow-level tool call on --resume, SPEC §16.4).
func (t *Tools) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	ctx, span := trace.Start(ctx, trace.Tool, name, dictValue(params))
	span.Running()
	if a, ok := span.Before(); ok {
		r, isResult := a.Value.(*value.TaskResult)
		if a.Err != nil || !isResult {
			r = value.Failed(handler.ReasonUnexpected, fmt.Sprintf("tool '%s': %v", name, a.Err), nil)
			span.End(trace.ResultOf(r, false), trace.Usage{})
			return r
		}
		span.End(trace.ResultOf(r, true), a.Usage)
		return r
	}
	r := t.run(ctx, name, params)
	span.End(trace.ResultOf(r, false), trace.Usage{})
	return r
}

// run runs one tool call: the tool's parameters checked, a panic turned
// into a FAILED result.
func (t *Tools) run(ctx context.Context, name string, params *value.Dict) (res *value.TaskResult) {
	tool, ok := t.Tool(name)
	if !ok {
		return value.Failed(handler.ReasonTemplateNotFound, "Tool '"+name+"' not found in registered executors.", nil)
	}
	if params == nil {
		params = value.NewDict(0)
	}
	if msg := checkParams(tool, params); msg != "" {
		return value.Failed(handler.ReasonInputValidation, msg, nil)
	}
	if ctx.Err() != nil {
		return value.Failed(handler.ReasonExecutionHalted, "cancelled", nil)
	}
	defer func() {
		if r := recover(); r != nil {
			res = value.Failed(handler.ReasonUnexpected, fmt.Sprintf("tool '%s' panicked: %v", name, r), nil)
		}
	}()
	res = tool.Run(ctx, params)
	if res == nil {
		res = value.Failed(handler.ReasonUnexpected, "tool '"+name+"' returned no result", nil)
	}
	return res
}

// checkParams returns the input_validation_failure message for params, or
// "" when they are valid.
func checkParams(tool *Tool, params *value.Dict) string {
	var unknown []string
	for k := range params.All() {
		if !slices.ContainsFunc(tool.Params, func(p Param) bool { return p.Name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		names := make([]string, len(tool.Params))
		for i, p := range tool.Params {
			names[i] = p.Name
		}
		msg := "Unknown parameter(s) for tool '" + tool.Name + "': " + strings.Join(unknown, ", ")
		if near := suggest.Near(unknown[0], names); near != "" {
			msg += " (did you mean '" + near + "'?)"
		}
		return msg
	}
	var missing []string
	for _, p := range tool.Params {
		v, ok := params.Get(p.Name)
		if !ok || isNull(v) {
			if p.Required {
				missing = append(missing, p.Name)
			}
			continue
		}
		if !kindAccepts(p.Kind, v) {
			return fmt.Sprintf("Parameter '%s' of tool '%s' expects %s, got %s", p.Name, tool.Name, p.Kind, describe(v))
		}
	}
	if len(missing) > 0 {
		return "Missing required parameter(s) for tool '" + tool.Name + "': " + strings.Join(missing, ", ")
	}
	return ""
}

func isNull(v value.Value) bool {
	_, null := v.(value.Null)
	return v == nil || null
}

func kindAccepts(k ParamKind, v value.Value) bool {
	switch k {
	case ParamString:
		return isStringish(v)
	case ParamStringList:
		l, ok := v.(value.List)
		if !ok {
			return false
		}
		for _, e := range l {
			if !isStringish(e) {
				return false
			}
		}
		return true
	case ParamInt:
		switch x := v.(type) {
		case value.Int:
			return true
		case value.Float:
			return float64(x) == float64(int64(x))
		}
		return false
	case ParamNumber:
		switch v.(type) {
		case value.Int, value.Float:
			return true
		}
	}
	return false
}

func isStringish(v value.Value) bool {
	switch v.(type) {
	case value.String, value.Symbol:
		return true
	}
	return false
}

// describe names a value's type for messages: "string", "int", and for a
// list with a non-string element "list containing int".
func describe(v value.Value) string {
	if l, ok := v.(value.List); ok {
		for _, e := range l {
			if !isStringish(e) {
				return "list containing " + e.Type()
			}
		}
	}
	return v.Type()
}

// paramString returns a string parameter ("" when absent).
func paramString(params *value.Dict, name string) (string, bool) {
	v, ok := params.Get(name)
	if !ok {
		return "", false
	}
	switch s := v.(type) {
	case value.String:
		return string(s), true
	case value.Symbol:
		return string(s), true
	}
	return "", false
}

// paramStrings returns a list-of-strings parameter.
func paramStrings(params *value.Dict, name string) []string {
	v, _ := params.Get(name)
	l, _ := v.(value.List)
	out := make([]string, 0, len(l))
	for _, e := range l {
		switch s := e.(type) {
		case value.String:
			out = append(out, string(s))
		case value.Symbol:
			out = append(out, string(s))
		}
	}
	return out
}

// paramNumber returns a number parameter.
func paramNumber(params *value.Dict, name string) (float64, bool) {
	v, ok := params.Get(name)
	if !ok {
		return 0, false
	}
	switch n := v.(type) {
	case value.Int:
		return float64(n), true
	case value.Float:
		return float64(n), true
	}
	return 0, false
}

// complete builds a COMPLETE result.
func complete(content string, notes *value.Dict) *value.TaskResult {
	return &value.TaskResult{Status: value.StatusComplete, Content: content, Notes: notes}
}

// builtins returns the built-in tools of SPEC §14.4.
func (t *Tools) builtins() []Tool {
	return []Tool{
		{
			Name:        ToolReadFiles,
			Description: "Read text files of the project. Returns each file after a '--- File: PATH ---' line.",
			Params: []Param{{Name: "file_paths", Kind: ParamStringList, Required: true,
				Description: "Paths of the files to read, relative to the working directory."}},
			Run: t.readFiles,
		},
		{
			Name:        ToolListDirectory,
			Description: "List a directory of the project as a JSON array of entry names, sorted; directories end with '/'.",
			Params: []Param{{Name: "directory_path", Kind: ParamString, Required: true,
				Description: "Path of the directory, relative to the working directory."}},
			Run: t.listDirectory,
		},
		{
			Name:        ToolGetContext,
			Description: "Find the project files most relevant to a query. Returns a JSON array of file paths.",
			Params: []Param{
				{Name: "query", Kind: ParamString, Required: true, Description: "What to look for."},
				{Name: "top_k", Kind: ParamInt, Description: "How many files to return at most."},
			},
			Unavailable: func() string {
				if t.cfg.Context == nil {
					return errNoMemory
				}
				return ""
			},
			Run: t.getContext,
		},
		{
			Name: ToolShell,
			Description: "Run one program with arguments, without a shell (no pipes, redirections or substitutions). " +
				"Returns its standard output; fails when it exits with a non-zero status.",
			Params: []Param{
				{Name: "command", Kind: ParamString, Required: true, Description: "The command line, split into words with POSIX shell quoting."},
				{Name: "cwd", Kind: ParamString, Description: "Working directory inside the project."},
				{Name: "timeout", Kind: ParamNumber, Description: "Timeout in seconds (default 30, at most 600)."},
			},
			Unavailable: func() string {
				if len(t.cfg.ShellAllow) == 0 {
					return errShellDisabled
				}
				return ""
			},
			Run: t.shell,
		},
		{
			Name:        ToolUserInput,
			Description: "Ask the user a question and return the line they type.",
			Params:      []Param{{Name: "prompt", Kind: ParamString, Required: true, Description: "The question to show."}},
			Unavailable: func() string {
				if !t.interactive() {
					return "stdin and stderr are not terminals"
				}
				return ""
			},
			Run: t.userInput,
		},
	}
}

const (
	errShellDisabled = "shell tool is not enabled (set [tools] shell_allow)"
	errNoMemory      = "no memory index is configured"
)

// dictValue is d as a value, nil for a nil dict.
func dictValue(d *value.Dict) value.Value {
	if d == nil {
		return nil
	}
	return d
}
