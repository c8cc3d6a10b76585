package temporal

import "github.com/evalrun/evalrun/tasksystem"

// Budgets on Temporal (SPEC §14.9). The run's budget travels in its
// input (RunInput.Budget: the --max-cost and --max-tokens of the client
// that started it, else the [limits] of the configuration that client
// loaded) and is kept in workflow code, so it holds for the run across
// all its workers. The workflow adds up what every call activity and
// plan step reports it used (CallUsage.Run: the tokens and known cost of
// the task calls made inside it); a task call or a plan step that would
// start once either budget is spent is not started — a task call is a
// FAILED result with reason resource_exhaustion and the message of
// tasksystem.BudgetError ("budget spent: $0.1000 of $0.1000"), a plan
// step a failed task with reason "resource_exhaustion: budget spent: …",
// as locally — while the calls already running finish and are counted.
// The run's value then carries the first refusal (RunOutput.Budget), and
// the client prints it and exits 1 as a local run does.
//
// The decision reads workflow state only (the results in the history),
// and a refusal schedules nothing, so a replay decides the same and a
// history recorded without a budget replays unchanged. Unlike a local
// run, which counts a call when its model answers, the workflow learns
// what a call used when its activity completes: calls that start while
// earlier ones are still running may take the run past its budget, by at
// most the calls running at once, as locally. Inside one plan step or
// get-context lookup, which run on a worker as one activity, the calls
// are not refused: a step that started runs to its end. Tool calls use
// no model and are never refused.

// addUsage adds what a finished call used to the run's usage and to what
// its budget has spent; replayed calls cost this run nothing.
func (t *workflowTasks) addUsage(u tasksystem.RunUsage) {
	addUsage(&t.usage, u)
	t.spent.Add(u.CostUSD-u.ReplayedCostUSD, int64(u.InputTokens+u.OutputTokens))
}

// refuse returns the error of the run's spent budget, remembering the
// first, or nil while money and tokens remain (or without a budget).
func (t *workflowTasks) refuse() *tasksystem.BudgetError {
	if !t.budget.On() {
		return nil
	}
	err := t.budget.Spent(t.spent)
	if err != nil && t.refused == nil {
		t.refused = err
	}
	return err
}
