package temporal

import (
	"context"
	"slices"

	"github.com/evalrun/evalrun/templates"
	"go.temporal.io/sdk/workflow"
)

// AgentPolicy is an optional interface of Workflow.Registry: which agent a
// task call runs and how many processes of an agent may run at once
// (agents.NAME.max_parallel, else [limits] concurrency). With it, the
// workflow keeps one semaphore per agent and holds a slot around every
// activity that runs the agent — a task call whose template runs it, a
// plan step whose task or commands do — so that max_parallel holds across
// all the workers of a run (not across runs: each run has its own
// semaphores). Like the templates, the answers must be the same on every
// worker that runs workflows, since a replay asks again: all workers load
// the same configuration.
type AgentPolicy interface {
	// CallAgent returns the agent a call of t runs with, "" for a
	// provider.
	CallAgent(t *templates.Template) string
	// MaxParallel returns how many processes of the agent may run at
	// once; 0 means no limit.
	MaxParallel(agent string) int
}

// agentSlots are a run's semaphores of agents, made on first use.
// enabled is false for a run started before evalrun held agent slots in
// the workflow (its history lacks the version marker agentSlotsChange),
// so that it replays as it ran.
type agentSlots struct {
	enabled bool
	sems    map[string]workflow.Semaphore
}

// agentSlotsChange is the workflow.GetVersion change id of the agent
// slots; the marker is recorded at the first call of a run that runs an
// agent.
const agentSlotsChange = "evalrun.agent-slots"

// acquireCallAgent takes a slot of the agent a call of tmpl runs, if the
// registry says which and limits it; release gives it back.
func (t *workflowTasks) acquireCallAgent(ctx context.Context, tmpl *templates.Template) (release func(), err error) {
	p, ok := t.registry.(AgentPolicy)
	if !ok || tmpl == nil {
		return func() {}, nil
	}
	a := p.CallAgent(tmpl)
	if a == "" {
		return func() {}, nil
	}
	release, err = t.acquireAgents(workflowOf(ctx), []string{a})
	if err != nil {
		if c := context.Cause(ctx); c != nil {
			return nil, c
		}
	}
	return release, err
}

// acquireAgents takes one slot of each of agents (in name order, so that
// two holders of several never wait on each other) and returns the
// function that releases them; on cancellation it holds none.
func (t *workflowTasks) acquireAgents(ctx workflow.Context, agents []string) (func(), error) {
	p, ok := t.registry.(AgentPolicy)
	if !ok || len(agents) == 0 {
		return func() {}, nil
	}
	if t.slots == nil {
		v := workflow.GetVersion(ctx, agentSlotsChange, workflow.DefaultVersion, 1)
		t.slots = &agentSlots{enabled: v >= 1, sems: map[string]workflow.Semaphore{}}
	}
	if !t.slots.enabled {
		return func() {}, nil
	}
	names := slices.Clone(agents)
	slices.Sort(names)
	names = slices.Compact(names)
	var held []workflow.Semaphore
	release := func() {
		for i := len(held) - 1; i >= 0; i-- {
			held[i].Release(1)
		}
	}
	for _, a := range names {
		s, ok := t.slots.sems[a]
		if !ok {
			n := p.MaxParallel(a)
			if n <= 0 {
				t.slots.sems[a] = nil
				continue
			}
			s = workflow.NewSemaphore(ctx, int64(n))
			t.slots.sems[a] = s
		}
		if s == nil {
			continue
		}
		if err := s.Acquire(ctx, 1); err != nil {
			release()
			return nil, err
		}
		held = append(held, s)
	}
	return release, nil
}
