package temporal

import (
	"context"
	"sync"
	"time"

	"github.com/evalrun/evalrun/evaluator"
	"go.temporal.io/sdk/activity"
)

// RunKey identifies the run a call belongs to.
type RunKey struct {
	// WorkflowID and RunID are the workflow execution's ids.
	WorkflowID, RunID string
	// Start is the run's start time, its {{date}}.
	Start time.Time
}

// The bounds of a worker's per-run task systems: one unused for runIdle is
// dropped, and at most maxRuns are kept (the least recently used go
// first). A dropped run's next call starts a fresh task system, without
// the outputs its earlier calls accumulated.
const (
	runIdle = 24 * time.Hour
	maxRuns = 1024
)

// runCache holds the task system of each run a worker executes calls of.
type runCache struct {
	mu   sync.Mutex
	runs map[string]*cachedRun
}

type cachedRun struct {
	tasks evaluator.Tasks
	used  time.Time
}

// tasksFor returns the task system for the call running in ctx: a.Tasks
// without Activities.ForRun or outside an activity, else the run's own.
func (a *Activities) tasksFor(ctx context.Context, start time.Time) evaluator.Tasks {
	if a.ForRun == nil || !activity.IsActivity(ctx) {
		return a.Tasks
	}
	info := activity.GetInfo(ctx)
	key := RunKey{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID, Start: start}
	c := &a.runs
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.runs == nil {
		c.runs = map[string]*cachedRun{}
	}
	id := key.WorkflowID + "/" + key.RunID
	if r, ok := c.runs[id]; ok {
		r.used = now
		return r.tasks
	}
	var oldest string
	for k, r := range c.runs {
		if now.Sub(r.used) > runIdle {
			delete(c.runs, k)
			continue
		}
		if oldest == "" || r.used.Before(c.runs[oldest].used) {
			oldest = k
		}
	}
	if len(c.runs) >= maxRuns && oldest != "" {
		delete(c.runs, oldest)
	}
	r := &cachedRun{tasks: a.ForRun(key), used: now}
	c.runs[id] = r
	return r.tasks
}
