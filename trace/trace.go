package trace

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evalrun/evalrun/value"
)

// Kind says what a span stands for.
type Kind string

// The kinds of span. The journal records Task, Tool and Step spans (SPEC
// §16.1); the other kinds are seen by the sinks that want them.
const (
	// Task is one task call (SPEC §11): a template executed by the task
	// system, from the workflow, from `evalrun task` or from the memory's
	// llm strategies.
	Task Kind = "task"
	// Tool is one tool call (SPEC §11.4, §14.3), from the workflow or from
	// the model inside a task.
	Tool Kind = "tool"
	// Step is one (step NAME EXPR) form (SPEC §7.17).
	Step Kind = "step"
	// Model is one request to a provider inside a task's session (SPEC
	// §14): the moment a prompt leaves evalrun.
	Model Kind = "model"
	// GetContext is one memory lookup (get_relevant_context_for, SPEC
	// §15.4).
	GetContext Kind = "get-context"
	// Agent is reserved for a task executed by a coding-agent process
	// (SPEC §22).
	Agent Kind = "agent"
	// PlanTask is one task of a plan (SPEC §23): its name is the task's
	// id, Title its title, Executor its meta.agent.
	PlanTask Kind = "plan-task"
	// ParallelMap is one (parallel-map F ITEMS) call (SPEC §8.6): Total is
	// the number of items, and each finished item is reported by Advance.
	ParallelMap Kind = "parallel-map"
)

// EventType says what happened to a span.
type EventType int

// The event types, in the order a span goes through them. A span made by
// Wait starts with Waiting; one made by Start starts with Started.
const (
	// Waiting: the call waits for a slot of the run's concurrency
	// semaphore (the journal's pending status). Its inputs are not known
	// yet.
	Waiting EventType = iota + 1
	// Started: the call starts with its inputs and key, or claims the
	// waiting span a caller made for it (the same span, now with inputs).
	Started
	// Running: the call has its slot and runs.
	Running
	// Progress: a running call reports what it is doing (Event.Text, an
	// agent's last output line).
	Progress
	// Ended: the call ended (Span.Result, Span.Usage).
	Ended
)

// String returns the event type's name.
func (t EventType) String() string {
	switch t {
	case Waiting:
		return "waiting"
	case Started:
		return "started"
	case Running:
		return "running"
	case Progress:
		return "progress"
	case Ended:
		return "ended"
	}
	return "unknown"
}

// Event is one thing that happened to a span, delivered to every sink.
type Event struct {
	Type EventType
	Span *Span
	// Time is when it happened.
	Time time.Time
	// Text is a Progress event's text.
	Text string
	// Done is the number of finished parts of the call (Advance), 0 when
	// the Progress event carries none.
	Done int
}

// Sink receives the events of a run's spans: the journal, the dry run,
// the provenance lines, the live progress display and the viewer's live
// events are sinks. Observe is called synchronously, in the order the
// events of one span happen, from the goroutine of the call; spans of
// parallel calls are observed concurrently, so a sink guards its state.
// Observe must not block for long: the call waits for it.
type Sink interface {
	Observe(e Event)
}

// Gate is an optional interface of a Sink that the seam consults just
// before a call runs (Span.Before): the sink may answer the call from a
// record instead of letting it run (the journal's replay for --resume,
// SPEC §16.4), or refuse it with an error (a dry run that cannot write the
// prompt it captures).
type Gate interface {
	Before(s *Span) (Answer, bool)
}

// Answer is what a Gate gives a call instead of running it.
type Answer struct {
	// Value is the recorded result (a *value.TaskResult for task and tool
	// calls); nil when Err is set.
	Value value.Value
	// Usage is what the recorded call used.
	Usage Usage
	// Err, when set, fails the call with this error.
	Err error
}

// Status is how a span ended.
type Status string

// The statuses a span ends with (SPEC §16.2).
const (
	Completed Status = "completed"
	Failed    Status = "failed"
	Skipped   Status = "skipped"
)

// Result is the outcome of a span.
type Result struct {
	Status Status
	// Value is the call's value: the TaskResult of a task or tool call,
	// the value of a step; nil when it has none.
	Value value.Value
	// Error is the reason of a failure or a skip ("" when completed).
	Error string
	// Attempts is the number of attempts a step made (0 for other kinds).
	Attempts int
	// Replayed is set when the value came from a Gate's record.
	Replayed bool
}

// ResultOf is the result of a task or tool call: completed for a COMPLETE
// TaskResult, failed otherwise.
func ResultOf(r *value.TaskResult, replayed bool) Result {
	st := Failed
	if r != nil && r.Status == value.StatusComplete {
		st = Completed
	}
	var v value.Value
	if r != nil {
		v = r
	}
	return Result{Status: st, Value: v, Replayed: replayed}
}

// Usage is what a call used of a model.
type Usage struct {
	InputTokens, OutputTokens int
	// Turns counts the assistant messages of a task's session.
	Turns int
	// CostUSD is what the call cost in US dollars (SPEC §14.9), meaningful
	// only when CostKnown is set: reported by the server (usage.cost) or
	// the agent, else computed from the configured prices.
	CostUSD float64
	// CostKnown is set when the call's cost is known; a call whose price
	// is unknown has CostKnown false and shows no cost.
	CostKnown bool
}

// Attr is an optional attribute of a span, given to Start.
type Attr struct {
	key attrKey
	str string
	val any
}

type attrKey int

const (
	attrReplayKey attrKey = iota
	attrExecutor
	attrDetail
	attrPrompt
	attrTotal
	attrTitle
	attrArgs
)

// Key is the key under which a call may be replayed and is journaled: a
// task's request hash (SPEC §14.6). Tool calls need none: the journal keys
// them by name and parameters.
func Key(k string) Attr { return Attr{key: attrReplayKey, str: k} }

// Executor names what executes the call, as the live display shows it:
// "openai:gpt-4.1", "agent:claude".
func Executor(e string) Attr { return Attr{key: attrExecutor, str: e} }

// Detail is a kind-specific value for the sinks that know the kind: the
// *templates.Template of a task span, the handler.ModelCall of a model
// span.
func Detail(v any) Attr { return Attr{key: attrDetail, val: v} }

// Prompt is the prompt a task call sends: the system prompt and the user
// message of its first request (the journal keeps them for the run
// viewer, SPEC §24.1).
func Prompt(system, user string) Attr {
	return Attr{key: attrPrompt, str: system, val: user}
}

// Total is the number of parts of a call whose progress is counted with
// Span.Advance: the items of a parallel-map.
func Total(n int) Attr { return Attr{key: attrTotal, val: n} }

// Title is a human-readable title of the call, shown after its name: a
// plan task's title.
func Title(t string) Attr { return Attr{key: attrTitle, str: t} }

// Args are the arguments of a call as it was made, given to Wait: a
// waiting call's inputs are not known until its template binds them, but
// its arguments tell it apart from the calls of the same template beside
// it (the journal labels it with them).
func Args(v value.Value) Attr { return Attr{key: attrArgs, val: v} }

// Span is one call seen through the seam. The methods of a nil *Span do
// nothing, so that code traced without sinks pays nothing.
type Span struct {
	id     uint64
	kind   Kind
	name   string
	parent *Span
	tr     *tracer

	mu       sync.Mutex
	started  time.Time
	inputs   value.Value
	args     value.Value
	key      string
	executor string
	detail   any
	system   string
	user     string
	title    string
	total    int
	done     int
	ref      string
	claimed  bool
	state    EventType
	result   Result
	usage    Usage
}

// ID is the span's number in its run, from 1, in the order spans are made.
func (s *Span) ID() uint64 {
	if s == nil {
		return 0
	}
	return s.id
}

// Kind is what the span stands for.
func (s *Span) Kind() Kind {
	if s == nil {
		return ""
	}
	return s.kind
}

// Name is the template, tool or step name (the provider's name for a
// model span).
func (s *Span) Name() string {
	if s == nil {
		return ""
	}
	return s.name
}

// Parent is the span the call was made in, nil at the top level.
func (s *Span) Parent() *Span {
	if s == nil {
		return nil
	}
	return s.parent
}

// Inputs are the call's inputs as Start received them (bound inputs of a
// task, parameters of a tool); nil while waiting.
func (s *Span) Inputs() value.Value {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inputs
}

// Args are the arguments given to Wait (Args); nil when none were.
func (s *Span) Args() value.Value {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.args
}

// Key is the span's replay and journal key (Key); "" when none.
func (s *Span) Key() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.key
}

// Executor is what executes the call (Executor); "" when unknown.
func (s *Span) Executor() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.executor
}

// Detail is the kind-specific value given to Start (Detail), or nil.
func (s *Span) Detail() any {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.detail
}

// Prompt returns the system prompt and user message given with the Prompt
// attribute; both are "" when none was.
func (s *Span) Prompt() (system, user string) {
	if s == nil {
		return "", ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.system, s.user
}

// Title is the call's title (Title); "" when none.
func (s *Span) Title() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.title
}

// Total is the number of parts of the call (Total); 0 when not given.
func (s *Span) Total() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// Done is the number of parts finished so far (Advance).
func (s *Span) Done() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// Advance reports that one more part of a running call has finished (an
// item of a parallel-map): a Progress event whose Done is the new count.
func (s *Span) Advance() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.done++
	n := s.done
	s.mu.Unlock()
	s.tr.emit(Event{Type: Progress, Span: s, Time: time.Now(), Done: n})
}

// StartedAt is when the span was made (waiting or started).
func (s *Span) StartedAt() time.Time {
	if s == nil {
		return time.Time{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// State is the last event the span went through (Waiting, Started,
// Running or Ended; Progress does not change it).
func (s *Span) State() EventType {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Result is the span's outcome once it has ended.
func (s *Span) Result() Result {
	if s == nil {
		return Result{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.result
}

// Usage is what the span's call used, once it has ended.
func (s *Span) Usage() Usage {
	if s == nil {
		return Usage{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// SetRef gives the span the identifier under which a recording sink keeps
// it (the journal's RUN-ID/SEQ, a task's notes.task_id, SPEC §11.5). A
// sink calls it while it observes the span's Waiting or Started event.
func (s *Span) SetRef(ref string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.ref = ref
	s.mu.Unlock()
}

// Ref is the identifier a recording sink gave the span (SetRef), "" when
// none did.
func (s *Span) Ref() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ref
}

// Running reports that the call has its slot and runs.
func (s *Span) Running() {
	if s == nil {
		return
	}
	s.set(Running)
	s.tr.emit(Event{Type: Running, Span: s, Time: time.Now()})
}

// Progress reports what a running call is doing, such as the last line an
// agent printed.
func (s *Span) Progress(text string) {
	if s == nil {
		return
	}
	s.tr.emit(Event{Type: Progress, Span: s, Time: time.Now(), Text: text})
}

// Before consults the sinks that are Gates, in the order they were
// installed, just before the call runs; the first that answers wins. ok is
// false when the call is to run.
func (s *Span) Before() (a Answer, ok bool) {
	if s == nil {
		return Answer{}, false
	}
	for _, g := range s.tr.gates {
		if a, ok := g.Before(s); ok {
			return a, true
		}
	}
	return Answer{}, false
}

// End reports the call's outcome and usage. Only the first End counts.
func (s *Span) End(r Result, u Usage) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.state == Ended {
		s.mu.Unlock()
		return
	}
	s.state, s.result, s.usage = Ended, r, u
	s.mu.Unlock()
	s.tr.emit(Event{Type: Ended, Span: s, Time: time.Now()})
}

func (s *Span) set(state EventType) {
	s.mu.Lock()
	s.state = state
	s.mu.Unlock()
}

// tracer is the set of sinks of one run.
type tracer struct {
	sinks []Sink
	gates []Gate
	next  atomic.Uint64
}

func (t *tracer) emit(e Event) {
	for _, s := range t.sinks {
		s.Observe(e)
	}
}

// frame is what a context carries: the run's sinks, the span new spans are
// made in, and a span made by Wait that the call's Start claims.
type frame struct {
	tr      *tracer
	parent  *Span
	pending *Span
}

type ctxKey struct{}

func frameOf(ctx context.Context) *frame {
	f, _ := ctx.Value(ctxKey{}).(*frame)
	return f
}

// WithSinks returns ctx with the sinks installed: the spans started under
// it are reported to them, in the order given. Sinks that are also Gates
// are consulted by Span.Before. Spans started under ctx are top-level
// spans. No sinks returns ctx as it is.
func WithSinks(ctx context.Context, sinks ...Sink) context.Context {
	if len(sinks) == 0 {
		return ctx
	}
	tr := &tracer{sinks: sinks}
	for _, s := range sinks {
		if g, ok := s.(Gate); ok {
			tr.gates = append(tr.gates, g)
		}
	}
	return context.WithValue(ctx, ctxKey{}, &frame{tr: tr})
}

// Enabled reports whether ctx carries sinks, for callers that would
// compute a span's inputs only to trace them.
func Enabled(ctx context.Context) bool { return frameOf(ctx) != nil }

// Start opens a span of kind and name with its inputs under the span ctx
// is in, reports it Started, and returns the context of the call, in
// which the spans it makes are its children. When ctx carries a span that
// Wait made for the same kind and name and no Start has claimed yet,
// Start claims it instead: the same span, now with its inputs. Without
// sinks in ctx it returns ctx and a nil span.
func Start(ctx context.Context, kind Kind, name string, inputs value.Value, attrs ...Attr) (context.Context, *Span) {
	f := frameOf(ctx)
	if f == nil {
		return ctx, nil
	}
	now := time.Now()
	var s *Span
	if p := f.pending; p != nil && p.kind == kind && p.name == name {
		p.mu.Lock()
		if !p.claimed {
			p.claimed = true
			s = p
		}
		p.mu.Unlock()
	}
	if s == nil {
		s = &Span{id: f.tr.next.Add(1), kind: kind, name: name, parent: f.parent, tr: f.tr, started: now, claimed: true}
	}
	s.mu.Lock()
	s.inputs = inputs
	s.state = Started
	for _, a := range attrs {
		switch a.key {
		case attrReplayKey:
			s.key = a.str
		case attrExecutor:
			s.executor = a.str
		case attrDetail:
			s.detail = a.val
		case attrPrompt:
			s.system, _ = a.str, a.val
			s.user, _ = a.val.(string)
		case attrTotal:
			s.total, _ = a.val.(int)
		case attrTitle:
			s.title = a.str
		}
	}
	s.mu.Unlock()
	f.tr.emit(Event{Type: Started, Span: s, Time: now})
	return context.WithValue(ctx, ctxKey{}, &frame{tr: f.tr, parent: s}), s
}

// Abandon ends the span that Wait made in ctx, when no Start has claimed
// it, with the result r: the call will never start (its run was cancelled
// while it waited for a slot), and its span must not stay Waiting. It
// does nothing when ctx holds no such span or the call started.
func Abandon(ctx context.Context, r Result) {
	f := frameOf(ctx)
	if f == nil || f.pending == nil {
		return
	}
	p := f.pending
	p.mu.Lock()
	if p.claimed {
		p.mu.Unlock()
		return
	}
	p.claimed = true
	p.mu.Unlock()
	p.End(r, Usage{})
}

// Wait reports a call of kind and name that waits for a slot of the run's
// concurrency semaphore, before its inputs are known: a span in state
// Waiting under the span ctx is in. The context it returns is the one to
// hand to the call, whose Start of the same kind and name claims the span.
// Spans of other kinds or names started under it are made as if Wait had
// not been called (an internal call made before the claim is no child of
// the waiting call). Of attrs only Args is used.
func Wait(ctx context.Context, kind Kind, name string, attrs ...Attr) context.Context {
	f := frameOf(ctx)
	if f == nil {
		return ctx
	}
	now := time.Now()
	s := &Span{id: f.tr.next.Add(1), kind: kind, name: name, parent: f.parent, tr: f.tr, started: now, state: Waiting}
	for _, a := range attrs {
		if a.key == attrArgs {
			s.args, _ = a.val.(value.Value)
		}
	}
	f.tr.emit(Event{Type: Waiting, Span: s, Time: now})
	return context.WithValue(ctx, ctxKey{}, &frame{tr: f.tr, parent: f.parent, pending: s})
}
