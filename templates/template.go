package templates

import (
	"strconv"
	"time"

	"github.com/evalrun/evalrun/value"
)

// Scope says where a template came from (SPEC §10.1). Later scopes win.
type Scope int

// The scopes in load order.
const (
	ScopeBuiltin Scope = iota
	ScopeGlobal
	ScopeLocal
	ScopeDir
	ScopeDefatom
)

var scopeNames = [...]string{"builtin", "global", "local", "dir", "defatom"}

// String returns the scope's name as printed in provenance lines.
func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return "unknown"
}

// Template is the definition of one atomic task, from an XML <task> element
// or a defatom form (SPEC §7.14, §9.2).
type Template struct {
	Name    string
	Alias   string // "" when absent
	Type    string // always "atomic"
	Subtype string // "standard" when not given
	Role    string

	Description  string
	System       string
	Instructions string

	// Inputs lists the declared inputs, or the inferred ones when
	// InputsDeclared is false (SPEC §9.3).
	Inputs         []Input
	InputsDeclared bool

	Model    string
	Provider string
	// Agent is the <agent> element (SPEC §22.2): the coding agent that
	// executes the task unless --agent says otherwise; "" when absent.
	Agent       string
	Temperature *float64

	OutputFormat *OutputFormat
	Context      ContextSettings
	FilePaths    *FilePaths
	Command      *Command
	File         string
	AllowedTools []string
	History      HistoryConfig
	Limits       Limits
	Criteria     string
	Depends      []string

	// Provenance.
	Scope Scope
	// Path is the file the template came from, as given to ParseFile; Load
	// gives the path as shown to users (DisplayPath). "" for builtin and
	// defatom templates.
	Path string
	Line int // line of the <task> element or defatom form
	Col  int

	// XML is the <task> element exactly as written in its file (for
	// `templates show`); "" for defatom templates.
	XML string

	// parts caches the compiled placeholder texts; Infer sets it. A template
	// must not be changed after Infer without calling Infer again.
	parts *Parts
}

// Input is one declared or inferred template input.
type Input struct {
	Name        string
	Type        string // string int float number bool list dict any
	Description string
	Required    bool
	Default     value.Value // nil when there is no default
}

// OutputFormat is the <output_format> element.
type OutputFormat struct {
	Type         string // json or text
	Schema       string // schema name, "" when absent
	InlineSchema string // text of an inline <schema> child, "" when absent
	// Compiled is the resolved schema (SPEC §9.5) of a template loaded from
	// XML; nil when there is no schema or it has not been resolved (defatom
	// templates: resolve Schema with Schemas.Resolve).
	Compiled *Schema
}

// ContextSettings holds the context-management fields a template (or a call)
// sets explicitly; "" means "not set" (SPEC §13.1).
type ContextSettings struct {
	InheritContext     string // full, subset, none
	AccumulateData     string // true, false
	AccumulationFormat string // full_output, notes_only
	FreshContext       string // enabled, disabled
}

// FilePaths is the <file_paths> element (SPEC §13.4).
type FilePaths struct {
	Source       string // literal, command, description, context_description
	Paths        []string
	Command      string
	Description  string
	ContextQuery string
}

// Command is the <command> element (SPEC §12.4).
type Command struct {
	Text        string
	Shell       string
	Timeout     time.Duration
	FailOnError bool
}

// HistoryConfig is the <history_config> element (SPEC §13.6); nil pointers
// mean "not set".
type HistoryConfig struct {
	UseSessionHistory      *bool
	HistoryTurnsToInclude  *int
	RecordInSessionHistory *bool
}

// Limits is the <limits> element; zero values mean "not set".
type Limits struct {
	MaxTurns           int
	MaxContextFraction float64
}

// Source returns the provenance text used in notes and provenance lines:
// "SCOPE PATH:LINE", or just the scope when there is no file.
func (t *Template) Source() string {
	if t.Path == "" {
		return t.Scope.String()
	}
	return t.Scope.String() + " " + t.Path + ":" + strconv.Itoa(t.Line)
}

// Provenance returns the provenance line that run, eval and task print on
// stderr for a template from the global, local or dir scope (SPEC §10.3):
// "template review/git-diff: local .evalrun/templates/review.xml:1".
func (t *Template) Provenance() string { return "template " + t.Name + ": " + t.Source() }

// InputNamed returns the input called name.
func (t *Template) InputNamed(name string) (Input, bool) {
	for _, in := range t.Inputs {
		if in.Name == name {
			return in, true
		}
	}
	return Input{}, false
}
