package temporal

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/tasksystem"
	"go.temporal.io/sdk/temporal"
)

// scriptedRun is a run whose progress grows by one event per query until
// it ends after ends queries; it records the queries' arguments.
type scriptedRun struct {
	mu      sync.Mutex
	events  []ProgressEvent
	queries []int
	ends    int
	end     chan struct{}
	out     RunOutput
	err     error
	usage   tasksystem.RunUsage
}

func (r *scriptedRun) await(ctx context.Context) (RunOutput, error) {
	<-r.end
	return r.out, r.err
}

func (r *scriptedRun) progress(ctx context.Context, after int) (ProgressPage, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, after)
	if len(r.queries) == r.ends {
		close(r.end)
	}
	l := progressLog{events: r.events}
	return l.page(after, r.usage), nil
}

func events(n int) []ProgressEvent {
	evs := make([]ProgressEvent, n)
	for i := range evs {
		evs[i] = ProgressEvent{Seq: i + 1, Event: progress.Event{Phase: progress.Running, ID: uint64(i + 1), Kind: "task", Name: "t"}}
	}
	return evs
}

// TestFollowPolls: follow polls until the run ends, hands each new event
// over once and in order, asks once more at the end, and returns the
// run's value and usage.
func TestFollowPolls(t *testing.T) {
	x, _ := Encode(nil)
	u := tasksystem.RunUsage{Calls: 2, InputTokens: 7}
	r := &scriptedRun{events: events(3), ends: 2, end: make(chan struct{}), out: RunOutput{Value: x, Usage: u}}
	var got []int
	v, usage, err := follow(context.Background(), r, time.Millisecond, func(evs []ProgressEvent) {
		for _, e := range evs {
			got = append(got, e.Seq)
		}
	})
	if err != nil || v.String() != "null" || usage != u {
		t.Fatalf("follow = %v, %+v, %v", v, usage, err)
	}
	if len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("events %v", got)
	}
	// The first query asks from 0, the next from 3; the last is the
	// final one, made after the run ended.
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.queries) < 3 || r.queries[0] != 0 || r.queries[len(r.queries)-1] != 3 {
		t.Fatalf("queries %v", r.queries)
	}
}

// TestFollowUsageOfError: the usage of a run that failed with an
// evaluation error comes with the error; a cancelled workflow's from the
// last query.
func TestFollowUsageOfError(t *testing.T) {
	u := tasksystem.RunUsage{Calls: 1, OutputTokens: 3}
	ee := EvaluationError{Kind: "type", Message: "wf.sexp:1:1: boom", Display: "boom", Usage: u}
	r := &scriptedRun{end: make(chan struct{}),
		err: temporal.NewNonRetryableApplicationError(ee.Message, EvaluationErrorType, nil, ee)}
	close(r.end) // without onEvents nothing is queried
	_, usage, err := follow(context.Background(), r, time.Hour, nil)
	var re *RunError
	if !errors.As(err, &re) || re.Kind != "type" || usage != u {
		t.Fatalf("follow error %v, usage %+v", err, usage)
	}
	r = &scriptedRun{ends: 1, end: make(chan struct{}), usage: u, err: temporal.NewCanceledError()}
	_, usage, err = follow(context.Background(), r, time.Millisecond, func([]ProgressEvent) {})
	if !errors.As(err, &re) || re.Kind != "cancelled" || usage != u {
		t.Fatalf("cancelled: error %v, usage %+v", err, usage)
	}
}

// TestProgressPageBounds: a page holds at most maxPageEvents events and
// about maxPageBytes; More says that there are more.
func TestProgressPageBounds(t *testing.T) {
	l := progressLog{events: events(2500)}
	p := l.page(0, tasksystem.RunUsage{})
	if len(p.Events) != maxPageEvents || p.Next != maxPageEvents || !p.More {
		t.Fatalf("first page: %d events, next %d, more %v", len(p.Events), p.Next, p.More)
	}
	p = l.page(2000, tasksystem.RunUsage{})
	if len(p.Events) != 500 || p.Next != 2500 || p.More {
		t.Fatalf("last page: %d events, next %d, more %v", len(p.Events), p.Next, p.More)
	}
	long := events(3)
	for i := range long {
		long[i].Name = strings.Repeat("n", 300<<10)
	}
	l = progressLog{events: long}
	p = l.page(0, tasksystem.RunUsage{})
	if len(p.Events) != 1 || p.Next != 1 || !p.More {
		t.Fatalf("large events: %d events, next %d, more %v", len(p.Events), p.Next, p.More)
	}
}

// stuckRun is a run whose first progress query waits until its context
// ends (a worker that does not answer), and which ends after 50ms.
type stuckRun struct {
	mu      sync.Mutex
	queries int
	stuck   chan error
}

func (r *stuckRun) await(ctx context.Context) (RunOutput, error) {
	time.Sleep(50 * time.Millisecond)
	x, _ := Encode(nil)
	return RunOutput{Value: x}, nil
}

func (r *stuckRun) progress(ctx context.Context, after int) (ProgressPage, error) {
	r.mu.Lock()
	r.queries++
	first := r.queries == 1
	r.mu.Unlock()
	if first {
		<-ctx.Done()
		r.stuck <- ctx.Err()
		return ProgressPage{}, ctx.Err()
	}
	return ProgressPage{Next: after}, nil
}

// TestFollowStuckQuery: a query that gets no answer does not hold back
// the run's result: it is given up when the run ends.
func TestFollowStuckQuery(t *testing.T) {
	r := &stuckRun{stuck: make(chan error, 1)}
	begin := time.Now()
	if _, _, err := follow(context.Background(), r, time.Millisecond, func([]ProgressEvent) {}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > time.Second {
		t.Fatalf("follow took %s", d)
	}
	if err := <-r.stuck; !errors.Is(err, context.Canceled) {
		t.Fatalf("the stuck query ended with %v", err)
	}
}
