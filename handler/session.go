package handler

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// Defaults of SPEC §14.2.
const (
	// DefaultMaxTurns is the turn limit when neither the template nor the
	// configuration sets one.
	DefaultMaxTurns = 10
	// DefaultContextWindow is the context window when the provider
	// configuration sets none.
	DefaultContextWindow = 128000
	// DefaultContextFraction is the part of the context window a task may
	// fill when neither the template nor the configuration says.
	DefaultContextFraction = 0.8
	// WarnPercent is the share of a limit at which a warning is given.
	WarnPercent = 80
)

// SessionConfig configures one session. The zero values of the optional
// fields give the defaults of SPEC §14.
type SessionConfig struct {
	// Provider answers the model calls; required.
	Provider Provider
	// Model is the model name sent with every call.
	Model string
	// System is the assembled system prompt (SPEC §14.1).
	System string
	// Temperature is the template's temperature; nil means the provider's
	// (DefaultTemperaturer), and with neither none is sent.
	Temperature *float64
	// MaxTurns limits the assistant messages of the session; 0 means
	// DefaultMaxTurns.
	MaxTurns int

	// Task names the task in warnings, such as "review/git-diff".
	Task string
	// ContextWindow is the model's context window in tokens; 0 asks the
	// provider (ContextWindower), else DefaultContextWindow.
	ContextWindow int
	// ContextFraction is the share of the window the session may fill; 0
	// means DefaultContextFraction. The limit is
	// floor(ContextWindow × ContextFraction).
	ContextFraction float64
	// Tools holds the tools of the run (package handler/tools); nil when
	// there are none. AllowedTools names those the template allows (SPEC
	// §14.3). The tools offered are the allowed ones that are available;
	// each one left out gives a warning.
	Tools        Toolbox
	AllowedTools []string
	// ResponseFormat asks for JSON output (SPEC §14.5); nil for text.
	ResponseFormat *ResponseFormat
	// OnWarning, when set, receives each warning as it arises (the CLI
	// prints it on stderr); Warnings returns them all.
	OnWarning func(msg string)
	// Counter counts tokens; nil means tokens.O200k(). tokens.None leaves
	// tokenization out (benchmarks).
	Counter tokens.Counter
	// Prices are the model's prices (SPEC §14.9), nil when unknown: a
	// request the server reports no cost for then has an unknown cost.
	Prices *Prices
}

// Toolbox is what a session needs of the run's tools: the definitions of
// the tools a template allows, and running one. Package handler/tools
// implements it; the handler knows no tool itself.
type Toolbox interface {
	// Offer returns the definitions of the allowed tools that can be
	// offered in this run, in the order given, and one warning (SPEC
	// §14.3) for each allowed tool left out:
	// "warning: task 'TASK' cannot use tool 'NAME': REASON".
	Offer(task string, allowed []string) (defs []ToolDef, warnings []string)
	// CallTool runs one tool with its parameters and returns its result,
	// never nil; it opens the call's tool span (trace.Tool). It must not
	// take a slot of the run's concurrency semaphore (see Run).
	CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult
}

// noTools is the Toolbox of a session without tools: every allowed tool
// is left out.
type noTools struct{}

// Offer implements Toolbox: every allowed tool is left out.
func (noTools) Offer(task string, allowed []string) ([]ToolDef, []string) {
	var warnings []string
	seen := make(map[string]bool, len(allowed))
	for _, name := range allowed {
		if !seen[name] {
			seen[name] = true
			warnings = append(warnings, "warning: task '"+task+"' cannot use tool '"+name+"': no tools are configured")
		}
	}
	return nil, warnings
}

// CallTool implements Toolbox: no tool is available.
func (noTools) CallTool(ctx context.Context, name string, params *value.Dict) *value.TaskResult {
	return value.Failed(ReasonInputValidation, "tool '"+name+"' is not available", nil)
}

// ModelCall is the trace.Detail of a model span (trace.Model): the
// provider a session asks and the request it sends, for the sinks that
// look at prompts (the dry run, SPEC §17.7) or at providers (the echo
// notice, SPEC §14.5).
type ModelCall struct {
	Provider Provider
	Request  *Request
}

// Session is the message list of one task execution (SPEC §14.1): the
// system prompt, then user, assistant and tool messages. It counts turns
// (one per assistant message) and tokens, checks the limits before every
// model call, runs the tool calls the model asks for, and sums the usage.
// Tokens are counted incrementally: a call costs only the messages added
// since the previous one. A Session belongs to one goroutine.
type Session struct {
	cfg         SessionConfig
	counter     tokens.Counter
	temperature *float64
	window      int
	limit       int // context limit in tokens

	messages []Message
	turns    int
	usage    Usage
	cost     Cost

	offered []ToolDef
	allowed map[string]bool

	fixed     int  // tokens of the system message, tools and reply priming
	fixedDone bool // fixed has been counted
	counted   int  // messages whose tokens are in msgTokens
	msgTokens int

	fixedBound int // promptBound's parts, computed incrementally like the counts
	bounded    int
	msgBound   int

	warnings      []string
	warnedTurns   bool
	warnedContext bool
}

// NewSession returns an empty session. The allowed tools that cannot be
// offered give their warnings here.
func NewSession(cfg SessionConfig) *Session {
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	s := &Session{cfg: cfg, messages: make([]Message, 0, 4), counter: cfg.Counter, temperature: cfg.Temperature}
	if s.counter == nil {
		s.counter = tokens.O200k()
	}
	s.window = cfg.ContextWindow
	if s.window <= 0 {
		if cw, ok := cfg.Provider.(ContextWindower); ok {
			s.window = cw.ContextWindow()
		}
		if s.window <= 0 {
			s.window = DefaultContextWindow
		}
	}
	fraction := cfg.ContextFraction
	if fraction <= 0 {
		fraction = DefaultContextFraction
	}
	s.limit = ContextLimit(s.window, fraction)
	if s.temperature == nil {
		if dt, ok := cfg.Provider.(DefaultTemperaturer); ok {
			s.temperature = dt.DefaultTemperature()
		}
	}
	if s.cfg.Tools == nil {
		s.cfg.Tools = noTools{}
	}
	if len(cfg.AllowedTools) > 0 {
		var warnings []string
		s.offered, warnings = s.cfg.Tools.Offer(cfg.Task, cfg.AllowedTools)
		s.allowed = make(map[string]bool, len(s.offered))
		for _, d := range s.offered {
			s.allowed[d.Name] = true
		}
		for _, w := range warnings {
			s.warn(w)
		}
	}
	return s
}

// ContextLimit returns floor(window × fraction) (SPEC §14.2).
func ContextLimit(window int, fraction float64) int {
	return int(math.Floor(float64(window)*fraction + 1e-9))
}

// AddUser appends a user message.
func (s *Session) AddUser(content string) {
	s.messages = append(s.messages, Message{Role: RoleUser, Content: content})
}

// Messages returns a copy of the messages so far, without the system prompt.
func (s *Session) Messages() []Message { return append([]Message(nil), s.messages...) }

// System returns the system prompt.
func (s *Session) System() string { return s.cfg.System }

// Turns returns the number of assistant messages the model has produced.
func (s *Session) Turns() int { return s.turns }

// MaxTurns returns the session's turn limit.
func (s *Session) MaxTurns() int { return s.cfg.MaxTurns }

// ContextLimit returns the session's context limit in tokens.
func (s *Session) ContextLimit() int { return s.limit }

// Usage returns the tokens used over the session: the provider's counts,
// or the tokenizer's for calls the provider reported none for.
func (s *Session) Usage() Usage { return s.usage }

// Cost returns what the session's answered requests cost (SPEC §14.9):
// the known costs summed, and how many requests had an unknown price.
// The session's cost is known when Cost().Known().
func (s *Session) Cost() Cost { return s.cost }

// UsageNote returns notes.usage: {"input_tokens", "output_tokens",
// "turns"} (SPEC §11.5).
func (s *Session) UsageNote() *value.Dict { return UsageNote(s.usage, s.turns) }

// UsageNote builds the notes.usage dict of SPEC §11.5.
func UsageNote(u Usage, turns int) *value.Dict {
	return value.DictOf("input_tokens", value.Int(u.InputTokens), "output_tokens", value.Int(u.OutputTokens),
		"turns", value.Int(turns))
}

// Warnings returns the warnings of the session so far, for notes.warnings:
// tools that could not be offered and the 80 % warnings of SPEC §14.2.
func (s *Session) Warnings() []string { return append([]string(nil), s.warnings...) }

// Tools returns the definitions of the tools offered to the model.
func (s *Session) Tools() []ToolDef { return append([]ToolDef(nil), s.offered...) }

// PromptTokens returns the token count of the next request (SPEC §14.2):
// each message's content plus 4, the system prompt included, the tool
// definitions as compact JSON, and 3 for the reply. Only messages added
// since the last count are tokenized.
func (s *Session) PromptTokens() int {
	if !s.fixedDone {
		s.fixed = s.counter.Count(s.cfg.System) + tokens.PerMessage + tokens.ReplyPriming
		if len(s.offered) > 0 {
			s.fixed += s.counter.Count(toolsJSON(s.offered))
		}
		s.fixedDone = true
	}
	for ; s.counted < len(s.messages); s.counted++ {
		s.msgTokens += s.messageTokens(&s.messages[s.counted])
	}
	return s.fixed + s.msgTokens
}

// promptBound returns an upper bound of PromptTokens computed from byte
// lengths, without tokenizing (tokens.Bounder), or -1 when the counter
// gives no bound.
func (s *Session) promptBound() int {
	b, ok := s.counter.(tokens.Bounder)
	if !ok {
		return -1
	}
	if s.fixedBound == 0 {
		s.fixedBound = b.Bound(s.cfg.System) + tokens.PerMessage + tokens.ReplyPriming
		if len(s.offered) > 0 {
			s.fixedBound += b.Bound(toolsJSON(s.offered))
		}
	}
	for ; s.bounded < len(s.messages); s.bounded++ {
		m := &s.messages[s.bounded]
		s.msgBound += b.Bound(m.Content) + tokens.PerMessage
		for _, c := range m.ToolCalls {
			s.msgBound += b.Bound(c.Name) + b.Bound(c.Arguments)
		}
	}
	return s.fixedBound + s.msgBound
}

// messageTokens counts one message: its content, the names and arguments
// of its tool calls, and 4.
func (s *Session) messageTokens(m *Message) int {
	n := s.counter.Count(m.Content) + tokens.PerMessage
	for _, c := range m.ToolCalls {
		n += s.counter.Count(c.Name) + s.counter.Count(c.Arguments)
	}
	return n
}

// NextRequest returns the request the next model call would send; the task
// system hashes it for --resume (SPEC §11.3, §14.6). The messages are
// shared with the session: do not modify them.
func (s *Session) NextRequest() *Request {
	n := len(s.messages)
	return &Request{
		Model:          s.cfg.Model,
		System:         s.cfg.System,
		Messages:       s.messages[:n:n],
		Temperature:    s.temperature,
		Tools:          s.offered,
		ResponseFormat: s.cfg.ResponseFormat,
	}
}

// Answer is the outcome of Run.
type Answer struct {
	// Content is the text of the final assistant message.
	Content string
	// Turns is the number of assistant messages of the session, which is
	// also the number of model calls.
	Turns int
	// Usage sums the usage over the session.
	Usage Usage
	// Warnings are the session's warnings so far (see Session.Warnings).
	Warnings []string
}

// Run converses with the model until it answers without tool calls (SPEC
// §14.3). Before every model call it checks the turn limit and the context
// limit (a *LimitError) and gives the 80 % warnings once per session. The
// tool calls of a reply run in order, each answered by a tool message
// (the result's content, "ERROR: MESSAGE" for a FAILED result, "ERROR: tool
// 'x' is not available" for a tool that was not offered), and the model is
// called again.
//
// Tool calls run on the caller's goroutine and must not take a slot of the
// run-wide concurrency semaphore: the task already holds one, and waiting
// for a second could deadlock the run.
//
// A provider error is returned unchanged (it may implement Reasoner); a
// cancelled ctx returns ctx's error. After an error, Usage, Turns and
// Warnings still describe the session so far.
func (s *Session) Run(ctx context.Context) (*Answer, error) {
	for {
		if s.turns >= s.cfg.MaxTurns {
			return nil, &LimitError{Resource: ResourceTurns, Used: s.turns, Limit: s.cfg.MaxTurns}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		used := -1 // not counted: the byte bound decides the limit check
		if b := s.promptBound(); b < 0 || b*100 >= WarnPercent*s.limit {
			used = s.PromptTokens()
			if used > s.limit {
				return nil, &LimitError{Resource: ResourceContext, Used: used, Limit: s.limit}
			}
		}
		s.checkWarnings(used)
		req := s.NextRequest()
		mctx, span := s.startModel(ctx, req)
		resp, err := s.complete(mctx, span, req)
		if err != nil {
			span.End(trace.Result{Status: trace.Failed, Error: err.Error()}, trace.Usage{})
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, ctxErr
			}
			return nil, err
		}
		if resp == nil {
			err := fmt.Errorf("provider %s returned no response", s.cfg.Provider.Name())
			span.End(trace.Result{Status: trace.Failed, Error: err.Error()}, trace.Usage{})
			return nil, err
		}
		if used < 0 && resp.Usage == (Usage{}) {
			used = s.PromptTokens() // the usage is counted below
		}
		msg := Message{Role: RoleAssistant, Content: resp.Content}
		if len(resp.ToolCalls) > 0 {
			msg.ToolCalls = append([]ToolCall(nil), resp.ToolCalls...)
		}
		s.messages = append(s.messages, msg)
		s.turns++
		usage := resp.Usage
		if usage == (Usage{}) {
			// The provider reports no usage (echo, some servers): count.
			before := s.msgTokens
			s.PromptTokens()
			usage = Usage{InputTokens: used, OutputTokens: s.msgTokens - before - tokens.PerMessage}
		}
		s.usage = s.usage.Add(usage)
		usd, known := requestCost(resp, usage, s.cfg.Prices)
		if known {
			s.cost.USD += usd
		} else {
			s.cost.Unknown++
		}
		span.End(trace.Result{Status: trace.Completed}, trace.Usage{InputTokens: usage.InputTokens, OutputTokens: usage.OutputTokens, Turns: 1, CostUSD: usd, CostKnown: known})
		if len(msg.ToolCalls) == 0 {
			return &Answer{Content: resp.Content, Turns: s.turns, Usage: s.usage, Warnings: s.Warnings()}, nil
		}
		for _, call := range msg.ToolCalls {
			res := s.callTool(ctx, call)
			content := res.Content
			if res.Status == value.StatusFailed {
				content = "ERROR: " + content
			}
			s.messages = append(s.messages, Message{Role: RoleTool, Content: content, ToolCallID: call.ID})
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
}

// startModel opens the model span of one request (trace.Model), named
// after the provider, with the executor PROVIDER:MODEL; without sinks in
// ctx it costs nothing.
func (s *Session) startModel(ctx context.Context, req *Request) (context.Context, *trace.Span) {
	if !trace.Enabled(ctx) {
		return ctx, nil
	}
	name := s.cfg.Provider.Name()
	ctx, span := trace.Start(ctx, trace.Model, name, nil,
		trace.Executor(name+":"+req.Model), trace.Detail(ModelCall{Provider: s.cfg.Provider, Request: req}))
	span.Running()
	return ctx, span
}

// complete asks the provider, unless a sink refuses the request (a dry run
// that cannot write it down).
func (s *Session) complete(ctx context.Context, span *trace.Span, req *Request) (*Response, error) {
	if a, ok := span.Before(); ok && a.Err != nil {
		return nil, a.Err
	}
	return s.cfg.Provider.Complete(ctx, req)
}

// callTool runs one tool call of the model. An allowed tool with valid
// arguments runs through Tools.CallTool, which traces it; a tool that is
// not available, or invalid arguments, give a FAILED result traced here,
// so that every tool call of the model is a span inside its task (SPEC
// §14.3).
func (s *Session) callTool(ctx context.Context, call ToolCall) *value.TaskResult {
	var res *value.TaskResult
	var params *value.Dict
	if s.allowed[call.Name] {
		params, res = parseArguments(call)
	} else {
		res = value.Failed(ReasonInputValidation, "tool '"+call.Name+"' is not available", nil)
	}
	if res == nil {
		return s.cfg.Tools.CallTool(ctx, call.Name, params)
	}
	_, span := trace.Start(ctx, trace.Tool, call.Name, dictValue(params))
	span.Running()
	span.End(trace.ResultOf(res, false), trace.Usage{})
	return res
}

// dictValue is d as a value, nil for a nil dict.
func dictValue(d *value.Dict) value.Value {
	if d == nil {
		return nil
	}
	return d
}

// parseArguments reads a tool call's arguments as a JSON object; empty
// arguments are an empty object. An invalid text gives a FAILED result.
func parseArguments(call ToolCall) (*value.Dict, *value.TaskResult) {
	text := strings.TrimSpace(call.Arguments)
	if text == "" {
		return value.NewDict(0), nil
	}
	v, err := value.ParseJSON(text)
	if err != nil {
		return nil, value.Failed(ReasonInputValidation, "invalid arguments for tool '"+call.Name+"': invalid JSON: "+err.Error(), nil)
	}
	d, ok := v.(*value.Dict)
	if !ok {
		return nil, value.Failed(ReasonInputValidation, "invalid arguments for tool '"+call.Name+"': expected a JSON object, got "+v.Type(), nil)
	}
	return d, nil
}

// checkWarnings gives the 80 % warnings of SPEC §14.2, each once.
func (s *Session) checkWarnings(used int) {
	if !s.warnedContext && s.limit > 0 && used >= 0 && used*100 >= WarnPercent*s.limit {
		s.warnedContext = true
		s.warn("warning: task '" + s.cfg.Task + "' at " + strconv.Itoa(used*100/s.limit) +
			"% of its context limit (" + strconv.Itoa(used) + "/" + strconv.Itoa(s.limit) + " tokens)")
	}
	if !s.warnedTurns && s.turns > 0 && s.turns*100 >= WarnPercent*s.cfg.MaxTurns {
		s.warnedTurns = true
		s.warn("warning: task '" + s.cfg.Task + "' at " + strconv.Itoa(s.turns*100/s.cfg.MaxTurns) +
			"% of its turn limit (" + strconv.Itoa(s.turns) + "/" + strconv.Itoa(s.cfg.MaxTurns) + " turns)")
	}
}

func (s *Session) warn(msg string) {
	s.warnings = append(s.warnings, msg)
	if s.cfg.OnWarning != nil {
		s.cfg.OnWarning(msg)
	}
}
