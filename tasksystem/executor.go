package tasksystem

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// The failure reasons of SPEC §11.5 that the executor produces.
const (
	ReasonInputValidation  = "input_validation_failure"
	ReasonTemplateNotFound = "template_not_found"
	ReasonXMLValidation    = "xml_validation_failure"
	ReasonLLMError         = "llm_error"
	ReasonExecutionHalted  = "execution_halted"
	ReasonConfiguration    = "configuration_error"
)

// Defaults of SPEC §12.3, §14.1 and §14.5.
const (
	// DefaultModel is the model when neither the run, the template nor the
	// provider names one.
	DefaultModel = "gpt-4o-mini"
	// DefaultBasePrompt starts every system prompt unless a role replaces it.
	DefaultBasePrompt = "You are a helpful assistant."
	// NoInstructions is the value of {{instructions}} when the run was not
	// given a task text.
	NoInstructions = "None"
	// DateLayout formats {{date}}: ISO 8601 with seconds and a numeric
	// offset, never Z.
	DateLayout = "2006-01-02T15:04:05-07:00"
)

// Request is one task call as the evaluator hands it to the executor.
type Request struct {
	// Name is the name the call used: template name, alias or type:subtype.
	// It appears in messages; "" means Template.Name.
	Name string
	// Template is the resolved template; nil fails with template_not_found.
	Template *templates.Template
	// Named are the named arguments in call order, reserved keys excluded.
	Named []NamedArg
	// Positional are the values of a template applied to values (SPEC §6.4).
	Positional []value.Value
	// Files is the call's files argument, and FilesGiven whether there was
	// one. File resolution and delivery (SPEC §13.4) are not implemented
	// yet: the fields are accepted so that callers need not change.
	Files      []string
	FilesGiven bool
	// Context holds the fields of the call's context argument
	// (ParseContextArg).
	Context templates.ContextSettings
	// History holds the call's history_config argument (ParseHistoryArg).
	// Session history (SPEC §13.6) is not implemented yet; the field is
	// accepted so that callers need not change.
	History templates.HistoryConfig
}

// Options are the run-level settings of an Executor.
type Options struct {
	// Start is the run's start time, the value of {{date}}; zero means the
	// time NewExecutor is called.
	Start time.Time
	// Provider is the provider chosen for the whole run (--provider); it
	// wins over a template's <provider>. nil when not given.
	Provider handler.Provider
	// DefaultProvider answers calls that neither the run nor the template
	// assigns to a provider (default_provider, or the implicit choice of
	// SPEC §14.5); nil means the echo provider.
	DefaultProvider handler.Provider
	// Providers returns the configured provider of a name, for a template's
	// <provider> or provider:model <model>; nil knows no names. The name
	// "echo" always resolves.
	Providers func(name string) (handler.Provider, bool)
	// Model is the run's model override (--model); "" when not given.
	Model string
	// MaxTurns is the configured turn limit (limits.max_turns); 0 means
	// handler.DefaultMaxTurns.
	MaxTurns int
	// Roles maps a role name to its system prompt ([roles.NAME]); the role
	// "default" replaces DefaultBasePrompt for templates without a role.
	Roles map[string]string
	// Instructions is the text given to `evalrun task NAME "text"`, the value
	// of {{instructions}}; "" means NoInstructions.
	Instructions string
	// BeforeFirstCall, when set, is called once, just before the run's first
	// model call (the CLI prints the echo-provider notice there).
	BeforeFirstCall func()
}

// Executor runs atomic tasks (SPEC §11.3). It is safe for concurrent use.
type Executor struct {
	opts         Options
	date         value.String
	instructions value.String
	firstCall    sync.Once
}

// NewExecutor returns an Executor with the run-level options opts.
func NewExecutor(opts Options) *Executor {
	if opts.Start.IsZero() {
		opts.Start = time.Now()
	}
	if opts.DefaultProvider == nil {
		opts.DefaultProvider = handler.Echo{}
	}
	instr := opts.Instructions
	if instr == "" {
		instr = NoInstructions
	}
	return &Executor{
		opts:         opts,
		date:         value.String(opts.Start.Local().Format(DateLayout)),
		instructions: value.String(instr),
	}
}

// Execute runs one task call and returns its TaskResult; it never returns
// nil. The pipeline (SPEC §11.3), as far as it is implemented: bind the
// inputs (§11.2), merge and validate the context settings (§13.2), render
// system and instructions (§12), assemble the system prompt (§14.1) and run
// a handler session with the selected provider and model (§14.5). Failures
// are FAILED TaskResults: input_validation_failure, configuration_error for
// an unknown provider, llm_error for a provider error, execution_halted when
// ctx is cancelled, and a turns RESOURCE_EXHAUSTION from the handler.
func (e *Executor) Execute(ctx context.Context, req Request) *value.TaskResult {
	t := req.Template
	task := req.Name
	if t == nil {
		return value.Failed(ReasonTemplateNotFound, "Template not found: '"+task+"'", nil)
	}
	if task == "" {
		task = t.Name
	}
	provider, model, providerErr := e.selectProvider(t)
	notes := value.NewDict(8)
	notes.Set("template_used", value.String(t.Name))
	notes.Set("template_source", value.String(t.Source()))
	notes.Set("model", value.String(model))
	providerName := t.Provider
	if provider != nil {
		providerName = provider.Name()
	}
	notes.Set("provider", value.String(providerName))
	notes.Set("context_source", value.String("none"))
	notes.Set("file_count", value.Int(0))
	fail := func(reason, msg string) *value.TaskResult { return value.Failed(reason, msg, notes) }

	if ctx.Err() != nil {
		return fail(ReasonExecutionHalted, haltMessage(ctx))
	}
	parts, err := t.Parts()
	if err != nil {
		return fail(ReasonXMLValidation, err.Error())
	}
	// (1) Bind inputs.
	inputs, err := Bind(task, t, parts, req.Named, req.Positional)
	if err != nil {
		return fail(ReasonInputValidation, err.Error())
	}
	// (2) Merge and validate the context settings.
	if _, err := EffectiveContext(t.Subtype, t.Context, req.Context); err != nil {
		return fail(ReasonInputValidation, err.Error())
	}
	if providerErr != nil {
		return fail(ReasonConfiguration, providerErr.Error())
	}
	// (5) Render system and instructions: inputs win over built-ins.
	modelText := value.String(model)
	lookup := func(root string) (value.Value, bool) {
		if v, ok := inputs[root]; ok {
			return v, true
		}
		switch root {
		case "instructions":
			return e.instructions, true
		case "date":
			return e.date, true
		case "model":
			return modelText, true
		case "file", "file_contents", "command", "command_output":
			return value.String(""), true
		}
		return nil, false
	}
	user, _ := parts.Instructions.Render(lookup)
	system, _ := parts.System.Render(lookup)

	// (6) Assemble the system prompt and (8) run the handler.
	maxTurns := t.Limits.MaxTurns
	if maxTurns == 0 {
		maxTurns = e.opts.MaxTurns
	}
	session := handler.NewSession(handler.SessionConfig{
		Provider:    provider,
		Model:       model,
		System:      e.systemPrompt(t, system),
		Temperature: t.Temperature,
		MaxTurns:    maxTurns,
	})
	session.AddUser(user)
	if e.opts.BeforeFirstCall != nil {
		e.firstCall.Do(e.opts.BeforeFirstCall)
	}
	answer, err := session.Run(ctx)
	if err != nil {
		return e.failure(ctx, err, notes)
	}
	return &value.TaskResult{Status: value.StatusComplete, Content: answer.Content, Notes: notes}
}

// failure turns a handler error into a FAILED TaskResult.
func (e *Executor) failure(ctx context.Context, err error, notes *value.Dict) *value.TaskResult {
	if ctx.Err() != nil {
		return value.Failed(ReasonExecutionHalted, haltMessage(ctx), notes)
	}
	var limit *handler.LimitError
	if errors.As(err, &limit) {
		return resourceExhausted(limit, notes)
	}
	reason := ReasonLLMError
	var r interface{ Reason() string }
	if errors.As(err, &r) && r.Reason() != "" {
		reason = r.Reason()
	}
	return value.Failed(reason, err.Error(), notes)
}

// resourceExhausted builds the FAILED result of SPEC §14.2.
func resourceExhausted(limit *handler.LimitError, notes *value.Dict) *value.TaskResult {
	msg := limit.Error()
	n := notes.Clone()
	n.Set("error", value.DictOf(
		"type", value.String("RESOURCE_EXHAUSTION"),
		"resource", value.String(limit.Resource),
		"message", value.String(msg),
		"metrics", value.DictOf("used", value.Int(limit.Used), "limit", value.Int(limit.Limit)),
	))
	return &value.TaskResult{Status: value.StatusFailed, Content: msg, Notes: n}
}

// haltMessage is the content of an execution_halted result: "cancelled",
// followed by the cancellation cause when one was given.
func haltMessage(ctx context.Context) string {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.Canceled) {
		return "cancelled"
	}
	return "cancelled: " + cause.Error()
}

// systemPrompt joins the base prompt (the template's role, else the default
// role, else DefaultBasePrompt) and the rendered <system> text with a blank
// line (SPEC §14.1).
func (e *Executor) systemPrompt(t *templates.Template, system string) string {
	base, ok := e.opts.Roles[t.Role]
	if t.Role == "" || !ok {
		base, ok = e.opts.Roles["default"]
		if !ok {
			base = DefaultBasePrompt
		}
	}
	if system == "" {
		return base
	}
	return base + "\n\n" + system
}

// selectProvider chooses the provider and model of a call (SPEC §14.5):
// the run's provider, else the template's <provider>, else the provider
// named by the prefix of a provider:model <model>, else the default
// provider; the model is the run's, else the template's (without a provider
// prefix), else the provider's default, else DefaultModel.
func (e *Executor) selectProvider(t *templates.Template) (handler.Provider, string, error) {
	tmplModel := t.Model
	var prefixed handler.Provider
	if prefix, rest, ok := strings.Cut(t.Model, ":"); ok {
		if p, found := e.provider(prefix); found {
			prefixed, tmplModel = p, rest
		}
	}
	var p handler.Provider
	var err error
	switch {
	case e.opts.Provider != nil:
		p = e.opts.Provider
	case t.Provider != "":
		var ok bool
		if p, ok = e.provider(t.Provider); !ok {
			err = errors.New("unknown provider '" + t.Provider + "' for template '" + t.Name + "'")
		}
	case prefixed != nil:
		p = prefixed
	default:
		p = e.opts.DefaultProvider
	}
	model := e.opts.Model
	if model == "" {
		model = tmplModel
	}
	if model == "" && p != nil {
		if dm, ok := p.(handler.DefaultModeler); ok {
			model = dm.DefaultModel()
		}
	}
	if model == "" {
		model = DefaultModel
	}
	return p, model, err
}

// provider returns the configured provider called name.
func (e *Executor) provider(name string) (handler.Provider, bool) {
	if e.opts.Providers != nil {
		if p, ok := e.opts.Providers(name); ok {
			return p, true
		}
	}
	if name == handler.EchoName {
		return handler.Echo{}, true
	}
	return nil, false
}
