package temporal

import (
	"context"
	"fmt"
	"time"

	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// statusQueryTimeout bounds the progress queries of Inspect: a closed
// workflow's query is answered by a worker that replays its history, and
// without a worker polling its task queue it would wait forever.
const statusQueryTimeout = 5 * time.Second

// RunState is what a run on Temporal tells of itself, for `evalrun
// status`: its description, what its history records (the workflow's
// input and end, every call activity) and, when a worker answered the
// progress query, the run's progress events.
type RunState struct {
	Status Status
	// Sources are the run's workflow files, names and text.
	Sources []Source
	// Calls are the activities of the history, in the order the workflow
	// scheduled them.
	Calls []ActivityCall
	// Events are the run's progress events (ProgressQuery), all of them;
	// Answered says whether a worker answered the query (else Events is
	// nil and QueryError says why).
	Events     []ProgressEvent
	Answered   bool
	QueryError error
	// Usage is what the run used of models: from its result or
	// evaluation error once it ended, else from the progress query.
	Usage tasksystem.RunUsage
	// Value is the run's value once it completed, nil otherwise.
	Value value.Value
	// Error is why the run failed: the evaluation error's message, or
	// what ended the workflow (cancelled, terminated, timed out).
	Error string
	// LastEvent is the time of the history's last event; for a run that
	// still runs, Inspect makes it the time it read the run.
	LastEvent time.Time
}

// ActivityCall is one activity of a run's history.
type ActivityCall struct {
	// Activity is the activity's name (TaskActivityName, …).
	Activity string
	// Name is what the call is shown as: a task's template (else the
	// name it was called by), a tool's name, a plan step's task id; ""
	// for the other activities.
	Name string
	// Seq is a task call's TaskInput.Seq, 0 for other activities.
	Seq int
	// Inputs are a task call's named inputs or a tool call's parameters
	// (a dict), nil for the others or when they cannot be decoded.
	Inputs value.Value
	// Closed says whether the activity ended; Started whether an attempt
	// of it started; Attempt is the number of its last attempt.
	Started, Closed bool
	Attempt         int
	// ScheduledAt, StartedAt and ClosedAt are when those happened (zero
	// when they did not).
	ScheduledAt, StartedAt, ClosedAt time.Time
	// Result is a task or tool call's TaskResult as the workflow got it:
	// the activity's, or the FAILED result it makes of an activity that
	// failed after its retries, timed out or was cancelled. A plan step's
	// is nil.
	Result *value.TaskResult
	// Usage is what the call reported it used (nil when it did not).
	Usage *CallUsage
	// Step is a plan step's output, nil for other activities or while it
	// runs; StepError a plan step activity's failure.
	Step      *PlanStepOutput
	StepError string
}

// Inspect reads the run id for `evalrun status`: its description, its
// history and, when a worker answers within a few seconds, its progress
// events. A progress query that is not answered is not an error
// (RunState.Answered).
func Inspect(ctx context.Context, conn Connection, id string) (*RunState, error) {
	cl, err := conn.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	st, err := describe(ctx, cl, id)
	if err != nil {
		return nil, err
	}
	rs, err := readHistory(ctx, cl, id, st.RunID)
	if err != nil {
		return nil, err
	}
	rs.Status = st
	if st.Closed.IsZero() {
		// A running run's duration goes on to now, not to its last event.
		rs.LastEvent = time.Now()
	}
	qctx, cancel := context.WithTimeout(ctx, statusQueryTimeout)
	defer cancel()
	run := clientRun{cl, id}
	after := 0
	for {
		p, err := run.progress(qctx, after)
		if err != nil {
			rs.Events, rs.QueryError = nil, err
			break
		}
		rs.Answered = true
		rs.Events = append(rs.Events, p.Events...)
		after = p.Next
		if st.Closed.IsZero() {
			rs.Usage = p.Usage
		}
		if !p.More || len(p.Events) == 0 {
			break
		}
	}
	return rs, nil
}

// StateFromHistory reads a run's history: its workflow files, its calls,
// and how it ended. Status and the progress events are left to the
// caller (Inspect).
func StateFromHistory(events []*historypb.HistoryEvent) (*RunState, error) {
	dc := converter.GetDefaultDataConverter()
	rs := &RunState{}
	byScheduled := map[int64]int{}
	call := func(scheduledID int64) *ActivityCall {
		if i, ok := byScheduled[scheduledID]; ok {
			return &rs.Calls[i]
		}
		return nil
	}
	for _, e := range events {
		at := e.GetEventTime().AsTime()
		rs.LastEvent = at
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
			var in RunInput
			if err := fromPayloads(dc, e.GetWorkflowExecutionStartedEventAttributes().GetInput(), &in); err != nil {
				return nil, fmt.Errorf("the workflow's input: %w", err)
			}
			rs.Sources = in.Sources
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			a := e.GetActivityTaskScheduledEventAttributes()
			c := ActivityCall{Activity: a.GetActivityType().GetName(), ScheduledAt: at}
			scheduledInput(dc, &c, a.GetInput())
			byScheduled[e.GetEventId()] = len(rs.Calls)
			rs.Calls = append(rs.Calls, c)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			a := e.GetActivityTaskStartedEventAttributes()
			if c := call(a.GetScheduledEventId()); c != nil {
				c.Started, c.StartedAt, c.Attempt = true, at, int(a.GetAttempt())
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			a := e.GetActivityTaskCompletedEventAttributes()
			if c := call(a.GetScheduledEventId()); c != nil {
				c.Closed, c.ClosedAt = true, at
				completedResult(dc, c, a.GetResult())
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_FAILED:
			a := e.GetActivityTaskFailedEventAttributes()
			if c := call(a.GetScheduledEventId()); c != nil {
				c.Closed, c.ClosedAt = true, at
				failedResult(c, "unexpected_error", a.GetFailure().GetMessage())
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
			a := e.GetActivityTaskTimedOutEventAttributes()
			if c := call(a.GetScheduledEventId()); c != nil {
				c.Closed, c.ClosedAt = true, at
				msg := "call timed out"
				if info := a.GetFailure().GetTimeoutFailureInfo(); info != nil {
					msg = fmt.Sprintf("call timed out (%s)", info.GetTimeoutType())
				}
				failedResult(c, "execution_timeout", msg)
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
			a := e.GetActivityTaskCanceledEventAttributes()
			if c := call(a.GetScheduledEventId()); c != nil {
				c.Closed, c.ClosedAt = true, at
				failedResult(c, "execution_halted", "canceled")
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
			var out RunOutput
			if err := fromPayloads(dc, e.GetWorkflowExecutionCompletedEventAttributes().GetResult(), &out); err != nil {
				return nil, fmt.Errorf("the workflow's result: %w", err)
			}
			rs.Usage = out.Usage
			v, err := Decode(out.Value)
			if err != nil {
				return nil, fmt.Errorf("the workflow's value: %w", err)
			}
			rs.Value = v
			if out.Budget != nil {
				rs.Error = out.Budget.Error()
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
			rs.Error, rs.Usage = workflowFailure(dc, e.GetWorkflowExecutionFailedEventAttributes().GetFailure())
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
			rs.Error = "cancelled"
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED:
			rs.Error = "terminated"
			if r := e.GetWorkflowExecutionTerminatedEventAttributes().GetReason(); r != "" {
				rs.Error += ": " + r
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
			rs.Error = "timed out"
		}
	}
	return rs, nil
}

// fromPayloads decodes the first payload of ps into v; no payload leaves
// v as it is.
func fromPayloads(dc converter.DataConverter, ps *commonpb.Payloads, v any) error {
	if len(ps.GetPayloads()) == 0 {
		return nil
	}
	return dc.FromPayload(ps.GetPayloads()[0], v)
}

// scheduledInput fills c's name, seq and inputs from a scheduled
// activity's input; an input that cannot be decoded leaves them empty.
func scheduledInput(dc converter.DataConverter, c *ActivityCall, ps *commonpb.Payloads) {
	switch c.Activity {
	case TaskActivityName:
		var in TaskInput
		if fromPayloads(dc, ps, &in) != nil {
			return
		}
		c.Name, c.Seq = in.Name, in.Seq
		if in.Template != "" {
			c.Name = in.Template
		}
		d := value.NewDict(len(in.Named))
		for _, n := range in.Named {
			if v, err := Decode(n.Value); err == nil {
				d.Set(n.Name, v)
			}
		}
		c.Inputs = d
	case ToolActivityName:
		var in ToolInput
		if fromPayloads(dc, ps, &in) != nil {
			return
		}
		c.Name = in.Name
		if v, err := Decode(in.Params); err == nil {
			c.Inputs = v
		}
	case PlanStepActivityName:
		var in PlanStepInput
		if fromPayloads(dc, ps, &in) == nil {
			c.Name = in.TaskID
		}
	}
}

// completedResult fills c's result from a completed activity's result.
func completedResult(dc converter.DataConverter, c *ActivityCall, ps *commonpb.Payloads) {
	switch c.Activity {
	case TaskActivityName, ToolActivityName:
		var out CallResult
		if err := fromPayloads(dc, ps, &out); err != nil {
			failedResult(c, "unexpected_error", err.Error())
			return
		}
		c.Usage = out.Usage
		v, err := Decode(out.Value)
		if err != nil {
			failedResult(c, "unexpected_error", err.Error())
			return
		}
		r, ok := v.(*value.TaskResult)
		if !ok {
			failedResult(c, "unexpected_error", "call activity returned a "+v.Type())
			return
		}
		c.Result = r
	case PlanStepActivityName:
		var out PlanStepOutput
		if err := fromPayloads(dc, ps, &out); err == nil {
			c.Step, c.Usage = &out, out.Usage
		}
	}
}

// failedResult records an activity that failed: a task or tool call gets
// the FAILED result the workflow made of it, a plan step its message.
func failedResult(c *ActivityCall, reason, msg string) {
	switch c.Activity {
	case TaskActivityName, ToolActivityName:
		c.Result = failed(reason, msg)
	default:
		c.StepError = msg
	}
}

// workflowFailure is the message and usage of a failed workflow: its
// evaluation error's, else the failure's message.
func workflowFailure(dc converter.DataConverter, f *failurepb.Failure) (string, tasksystem.RunUsage) {
	if info := f.GetApplicationFailureInfo(); info != nil && info.GetType() == EvaluationErrorType {
		var ee EvaluationError
		if err := fromPayloads(dc, info.GetDetails(), &ee); err == nil {
			return ee.Message, ee.Usage
		}
	}
	return f.GetMessage(), tasksystem.RunUsage{}
}

// describe is Describe over an open client.
func describe(ctx context.Context, cl client.Client, id string) (Status, error) {
	desc, err := cl.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return Status{}, fmt.Errorf("cannot describe %s: %w", id, err)
	}
	d := desc.RawResponse
	info := d.GetWorkflowExecutionInfo()
	st := Status{
		ID: id, RunID: info.GetExecution().GetRunId(), State: stateName(info.GetStatus()),
		Start: info.GetStartTime().AsTime(), HistoryLength: info.GetHistoryLength(),
		PendingCalls: len(d.GetPendingActivities()),
	}
	if c := info.GetCloseTime(); c != nil {
		st.Closed = c.AsTime()
	}
	return st, nil
}

// ListRuns reads the newest evalrun.Run workflows of the namespace, at
// most limit of them, newest first, each from its history as Inspect
// reads one (without the progress query, RunState.Answered false). It
// needs the server's visibility store (ListWorkflowExecutions).
func ListRuns(ctx context.Context, conn Connection, limit int) ([]*RunState, error) {
	cl, err := conn.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var runs []*RunState
	var token []byte
	for len(runs) < limit {
		resp, err := cl.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowType = '" + WorkflowName + "'", NextPageToken: token, PageSize: int32(limit - len(runs)),
		})
		if err != nil {
			return nil, fmt.Errorf("cannot list the workflows: %w", err)
		}
		for _, info := range resp.GetExecutions() {
			if len(runs) == limit {
				break
			}
			id, runID := info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId()
			rs, err := readHistory(ctx, cl, id, runID)
			if err != nil {
				return nil, err
			}
			rs.Status = Status{ID: id, RunID: runID, State: stateName(info.GetStatus()), Start: info.GetStartTime().AsTime(),
				HistoryLength: info.GetHistoryLength()}
			if c := info.GetCloseTime(); c != nil {
				rs.Status.Closed = c.AsTime()
			}
			runs = append(runs, rs)
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			break
		}
	}
	return runs, nil
}

// readHistory reads the whole history of the run runID of the workflow id
// (its current run when "").
func readHistory(ctx context.Context, cl client.Client, id, runID string) (*RunState, error) {
	var events []*historypb.HistoryEvent
	it := cl.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return nil, fmt.Errorf("cannot read the history of %s: %w", id, err)
		}
		events = append(events, e)
	}
	rs, err := StateFromHistory(events)
	if err != nil {
		return nil, fmt.Errorf("the history of %s: %w", id, err)
	}
	return rs, nil
}
