package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/value"
)

// History is the project's run journal, read: the runs and their call
// trees, for `evalrun runs` and `evalrun status` (SPEC §16.3) and for
// resuming a run (FindResume).
type History struct {
	store *journal.Store
}

// OpenHistory opens the journal of the project opts.WorkDir lies in
// (.evalrun/journal.db under the project root; only WorkDir and Getenv are
// used). ok is false, with no error, when the project has no journal.
func OpenHistory(opts Options) (h *History, ok bool, err error) {
	ws, err := locate(opts)
	if err != nil {
		return nil, false, err
	}
	path := filepath.Join(ws.Root, journal.DefaultPath)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	s, err := journal.Open(path)
	if err != nil {
		return nil, false, &Error{Kind: KindUsage, Err: err}
	}
	return &History{store: s}, true, nil
}

// Close closes the journal.
func (h *History) Close() error { return h.store.Close() }

// StatusFormat is a form of WriteStatus's output.
type StatusFormat int

// The forms of `evalrun status`.
const (
	// StatusText is the header and the indented tree of SPEC §16.3.
	StatusText StatusFormat = iota
	// StatusMarkdown is the "- [x]" checklist.
	StatusMarkdown
	// StatusJSON is {"run": RUN, "nodes": [NODE...], "current": SEQ or
	// null}, indented by two spaces.
	StatusJSON
)

// WriteRuns writes the runs, newest first: one line each (id, status,
// start time, duration, calls, workflow) below a header, or with asJSON an
// array of RUN objects (see WriteStatus). A journal without runs is one
// line saying so instead of a lone header (`[]` with asJSON). An error
// reading the journal is an *Error of KindUsage; an error writing w is
// returned as it is.
func (h *History) WriteRuns(w io.Writer, asJSON bool) error {
	runs, err := h.store.Runs(0)
	if err != nil {
		return &Error{Kind: KindUsage, Err: err}
	}
	none := "no runs yet: the journal " + journal.DefaultPath + " has none (evalrun run, eval and task record them)"
	return writeRuns(w, runs, asJSON, none)
}

// WriteNoRuns writes what WriteRuns writes for a project without a
// journal: the line of `evalrun status`'s error, or `[]` with asJSON.
func WriteNoRuns(w io.Writer, asJSON bool) error {
	return writeRuns(w, nil, asJSON, NoJournalError("last").Error())
}

// writeRuns writes runs; none is the line written when there are none.
func writeRuns(w io.Writer, runs []*journal.RunRecord, asJSON bool, none string) error {
	if !asJSON && len(runs) == 0 {
		_, err := io.WriteString(w, none+"\n")
		return err
	}
	if asJSON {
		l := make(value.List, len(runs))
		for i, r := range runs {
			l[i] = runJSON(r)
		}
		_, err := io.WriteString(w, value.JSONIndent(l, "  ")+"\n")
		return err
	}
	return journal.RenderRuns(w, runs)
}

// WriteStatus writes the run ref names (a full id, a unique prefix or
// "last") in the format f. RUN is {id, workflow, workflow_sha256, args,
// status, resumed_from, started_at, finished_at, duration_seconds, calls,
// tokens, cost_usd, replayed_cost_usd, cost_unknown_calls, final, error} (cost_usd
// is what the run paid; replayed_cost_usd the recorded cost of the calls it
// replayed from the runs it resumed, not paid again) and NODE {seq, kind, name, label, status, input_hash,
// inputs, result, error, attempts, input_tokens, output_tokens, turns,
// cost_usd (null when unknown), executor, template_source, replayed, started_at, finished_at,
// children}, times in RFC 3339 and absent ones null. A task's executor
// ("openai:gpt-4.1", "agent:claude") and template_source (SCOPE PATH:LINE)
// are known from its start; "" for steps, tools and calls not started.
// label is the short label of a task or tool call (journal.CallLabel: its
// input values, cut to 40 characters), "" for steps. An unknown ref is an *Error of KindUsage; an error
// writing w is returned as it is.
func (h *History) WriteStatus(w io.Writer, ref string, f StatusFormat) error {
	rec, err := h.store.Resolve(ref)
	if err != nil {
		return &Error{Kind: KindUsage, Err: err}
	}
	tree, err := h.store.Tree(rec.ID)
	if err != nil {
		return &Error{Kind: KindUsage, Err: err}
	}
	return writeStatus(w, rec, tree, f)
}

// writeStatus writes the run rec with its calls tree in the format f (the
// output of WriteStatus).
func writeStatus(w io.Writer, rec *journal.RunRecord, tree []*journal.Node, f StatusFormat) error {
	var err error
	switch f {
	case StatusJSON:
		var cur value.Value = value.Null{}
		if n := journal.CurrentPosition(tree); n != nil {
			cur = value.Int(n.Seq)
		}
		out := value.DictOf("run", runJSON(rec), "nodes", nodesJSON(tree), "current", cur)
		_, err = io.WriteString(w, value.JSONIndent(out, "  ")+"\n")
		return err
	case StatusMarkdown:
		return journal.RenderMarkdown(w, tree)
	}
	return journal.RenderStatus(w, rec, tree)
}

// NoJournalError is the error of a command that needs the journal in a
// project that has none. ref "last" (status without an argument) says that
// there are no runs yet and what creates the journal.
func NoJournalError(ref string) error {
	if ref == "last" {
		return errorf(KindUsage, "no runs yet: the journal %s does not exist (evalrun run, eval and task create it)", journal.DefaultPath)
	}
	return errorf(KindUsage, "no run %s: the journal %s does not exist", ref, journal.DefaultPath)
}

// Resume is a journaled run that a new run resumes (SPEC §16.4), found by
// FindResume and given to Open as Options.Resume.
type Resume struct {
	// ID is the run's full id.
	ID string
	// Workflow is the workflow as recorded: the files given to run
	// (separated by spaces), "<eval>" or "task NAME".
	Workflow string
	// Files are the workflow files to evaluate again; nil when the run
	// evaluated an expression or ran one task.
	Files []string
	// Inputs are the run's --set values, in order; Open binds them when
	// Options.Inputs is nil.
	Inputs []Input
	// Provider, Model, Agent, Role and Contexts are the run's flags
	// --provider, --model, --agent, --role and --context. Open uses them
	// where Options gives none: Provider and Agent (and then Model) when
	// the new run names neither a provider nor an agent, Model when it
	// names no model either, Role and Contexts when it names none.
	Provider, Model, Agent, Role string
	Contexts                     []string
	// Running is set when the run is recorded as running and its process
	// is not known to be gone (journal.Owner.Gone): it may still be making
	// the calls that the new run makes again. Owner is that process (PID
	// 0 when unknown).
	Running bool
	Owner   journal.Owner

	sha256 string
	// maxCostUSD and maxTokens are the budgets given for the run, kept
	// when the resuming run is given none (SPEC §14.9).
	maxCostUSD float64
	maxTokens  int64
}

// RunningWarning is the warning for resuming a run that is recorded as
// running (Running), "" for any other: "run ID is still running (pid N on
// HOST): the calls it has not completed run again in this run".
func (r *Resume) RunningWarning() string {
	if !r.Running {
		return ""
	}
	by := ""
	if r.Owner.PID > 0 {
		by = fmt.Sprintf(" (pid %d on %s)", r.Owner.PID, r.Owner.Host)
	}
	return fmt.Sprintf("run %s is still running%s: the calls it has not completed run again in this run", r.ID, by)
}

// Changed reports whether text differs from the workflow text the run
// evaluated (a resumed run only warns, SPEC §16.4).
func (r *Resume) Changed(text string) bool {
	return journal.HashWorkflow([]byte(text)) != r.sha256
}

// FindResume finds the run ref names (a full id, a unique prefix or
// "last") in the journal of the project opts.WorkDir lies in, for
// Options.Resume. Every error is an *Error of KindUsage: a dry run (never
// journaled), a project without a journal, an unknown or ambiguous ref.
func FindResume(opts Options, ref string) (*Resume, error) {
	if opts.DryRun {
		return nil, errorf(KindUsage, "--resume cannot be used with --dry-run: dry runs are not journaled")
	}
	h, ok, err := OpenHistory(opts)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(KindUsage, "--resume %s: the journal %s does not exist", ref, journal.DefaultPath)
	}
	defer h.Close()
	rec, err := h.store.Resolve(ref)
	if err != nil {
		return nil, errorf(KindUsage, "--resume: %v", err)
	}
	r := &Resume{ID: rec.ID, Workflow: rec.WorkflowPath, sha256: rec.WorkflowSHA256, maxCostUSD: rec.MaxCostUSD, maxTokens: rec.MaxTokens,
		Running: rec.Status == journal.StatusRunning, Owner: rec.Owner}
	args, _ := rec.Args.(*value.Dict)
	set, current := argsSet(args)
	if !current {
		// A run recorded before the arguments held their flags: the dict
		// is the --set values, the workflow path the files.
		set = args
		if rec.WorkflowPath != "<eval>" && !strings.HasPrefix(rec.WorkflowPath, "task ") {
			r.Files = strings.Fields(rec.WorkflowPath)
		}
	}
	if set != nil {
		for k, v := range set.All() {
			r.Inputs = append(r.Inputs, Input{Name: k, Value: v})
		}
	}
	if current {
		r.Files = argStrings(args, "files")
		r.Contexts = argStrings(args, "contexts")
		for _, f := range []struct {
			key string
			to  *string
		}{{"provider", &r.Provider}, {"model", &r.Model}, {"agent", &r.Agent}, {"role", &r.Role}} {
			if v, ok := args.Get(f.key); ok {
				*f.to = value.Text(v)
			}
		}
	}
	return r, nil
}

// argsSet returns the "set" dict of a run's arguments and whether they
// are in the form runArgs writes.
func argsSet(args *value.Dict) (*value.Dict, bool) {
	if args == nil {
		return nil, false
	}
	v, ok := args.Get("set")
	if !ok {
		return nil, false
	}
	set, ok := v.(*value.Dict)
	return set, ok
}

// argStrings returns the list of strings under key, nil when absent.
func argStrings(args *value.Dict, key string) []string {
	v, ok := args.Get(key)
	if !ok {
		return nil
	}
	l, ok := v.(value.List)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, value.Text(x))
	}
	return out
}

// apply fills the options a resumed run does not give anew from the
// resumed run's (SPEC §16.4: "with the original --set values and flags
// unless new ones are given").
func (r *Resume) apply(opts *Options) {
	if opts.Inputs == nil {
		opts.Inputs = r.Inputs
	}
	if opts.Provider == "" && opts.Agent == "" {
		opts.Provider, opts.Agent = r.Provider, r.Agent
		if opts.Model == "" {
			opts.Model = r.Model
		}
	}
	if opts.Role == "" {
		opts.Role = r.Role
	}
	if opts.Contexts == nil {
		opts.Contexts = r.Contexts
	}
	if opts.MaxCostUSD == 0 {
		opts.MaxCostUSD = r.maxCostUSD
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = r.maxTokens
	}
}

func timeJSON(t time.Time) value.Value {
	if t.IsZero() {
		return value.Null{}
	}
	return value.String(t.Format(time.RFC3339Nano))
}

func orNull(v value.Value) value.Value {
	if v == nil {
		return value.Null{}
	}
	return v
}

// costJSON is a call's cost_usd: the number, null when unknown.
func costJSON(c *float64) value.Value {
	if c == nil {
		return value.Null{}
	}
	return value.Float(*c)
}

// runJSON is the RUN object of status and runs --json.
func runJSON(r *journal.RunRecord) *value.Dict {
	return value.DictOf(
		"id", value.String(r.ID),
		"workflow", value.String(r.WorkflowPath),
		"workflow_sha256", value.String(r.WorkflowSHA256),
		"args", orNull(r.Args),
		"status", value.String(r.Status),
		"resumed_from", value.String(r.ResumedFrom),
		"started_at", timeJSON(r.StartedAt),
		"finished_at", timeJSON(r.FinishedAt),
		"duration_seconds", value.Float(r.Duration().Seconds()),
		"calls", value.Int(r.Calls),
		"tokens", value.Int(r.Tokens),
		"cost_usd", value.Float(r.CostUSD),
		"replayed_cost_usd", value.Float(r.ReplayedCostUSD),
		"cost_unknown_calls", value.Int(r.CostUnknown),
		"final", orNull(r.Final),
		"error", value.String(r.Error),
	)
}

// nodesJSON is the NODE objects of status --json.
func nodesJSON(tree []*journal.Node) value.List {
	l := make(value.List, len(tree))
	for i, n := range tree {
		l[i] = value.DictOf(
			"seq", value.Int(n.Seq),
			"kind", value.String(n.Kind),
			"name", value.String(n.Name),
			"label", value.String(n.Label),
			"status", value.String(n.Status),
			"input_hash", value.String(n.InputHash),
			"inputs", orNull(n.Inputs),
			"result", orNull(n.Result),
			"error", value.String(strings.TrimSpace(n.Error)),
			"attempts", value.Int(n.Attempts),
			"input_tokens", value.Int(n.Usage.InputTokens),
			"output_tokens", value.Int(n.Usage.OutputTokens),
			"turns", value.Int(n.Usage.Turns),
			"cost_usd", costJSON(n.Usage.CostUSD),
			"executor", value.String(n.Executor),
			"template_source", value.String(n.TemplateSource),
			"replayed", value.Bool(n.Replayed),
			"started_at", timeJSON(n.StartedAt),
			"finished_at", timeJSON(n.FinishedAt),
			"children", nodesJSON(n.Children),
		)
	}
	return l
}
