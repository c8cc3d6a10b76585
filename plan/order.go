package plan

import (
	"slices"
	"strings"
)

// Completed reports whether a task is done: a leaf whose status is
// completed, or a container whose subtasks all are.
func (p *Plan) Completed(t *Task) bool {
	if t.IsContainer() {
		for _, s := range t.Subtasks {
			if !p.Completed(s) {
				return false
			}
		}
		return true
	}
	return t.Status == StatusCompleted
}

// unmet returns the dependencies of a task (its own and its container's)
// that are not completed, as written ids, in order.
func (p *Plan) unmet(t *Task, done func(*Task) bool) []string {
	deps := slices.Clone(t.DependsOn)
	if t.Parent != nil {
		deps = append(deps, t.Parent.DependsOn...)
	}
	var out []string
	for _, d := range deps {
		u := p.byKey[d]
		if u == nil {
			out = append(out, d)
			continue
		}
		if !done(u) && !slices.Contains(out, u.ID) {
			out = append(out, u.ID)
		}
	}
	return out
}

// Ready reports whether a leaf task can start: pending, with every task
// in its depends_on and in its container's depends_on completed.
func (p *Plan) Ready(t *Task) bool {
	return !t.IsContainer() && t.Status == StatusPending && len(p.unmet(t, p.Completed)) == 0
}

// Waves returns the order of execution as the groups of leaf tasks that
// would run side by side with up to parallel at once (never two with
// overlapping focus_paths in one wave), assuming every task succeeds.
// Only the tasks selected by sel run (nil selects all); the ids of
// pending tasks that could not be reached are returned too.
func (p *Plan) Waves(parallel int, sel func(*Task) bool) (waves [][]*Task, unreachable []string) {
	if parallel < 1 {
		parallel = 1
	}
	done := map[*Task]bool{}
	var isDone func(t *Task) bool
	isDone = func(t *Task) bool {
		if t.IsContainer() {
			for _, s := range t.Subtasks {
				if !isDone(s) {
					return false
				}
			}
			return true
		}
		return done[t] || t.Status == StatusCompleted
	}
	todo := []*Task{}
	for _, t := range p.Leaves() {
		switch {
		case sel != nil && !sel(t):
		case t.Status == StatusPending, t.Status == StatusActive, t.Status == StatusBlocked && sel != nil:
			todo = append(todo, t)
		}
	}
	for len(todo) > 0 {
		var wave []*Task
		for _, t := range todo {
			if len(wave) == parallel {
				break
			}
			if len(p.unmet(t, isDone)) > 0 {
				continue
			}
			if slices.ContainsFunc(wave, func(w *Task) bool { return overlap(w.FocusPaths, t.FocusPaths) }) {
				continue
			}
			wave = append(wave, t)
		}
		if len(wave) == 0 {
			for _, t := range todo {
				unreachable = append(unreachable, t.ID)
			}
			break
		}
		for _, t := range wave {
			done[t] = true
		}
		todo = slices.DeleteFunc(todo, func(t *Task) bool { return done[t] })
		waves = append(waves, wave)
	}
	return waves, unreachable
}

// Select returns a selector for --task patterns: an id (IMPL-1, IMPL-001)
// or IMPL-N.* for the subtasks of IMPL-N. A container id selects its
// subtasks. Unknown ids are returned as errors with a suggestion.
func (p *Plan) Select(patterns []string) (func(*Task) bool, []string) {
	if len(patterns) == 0 {
		return nil, nil
	}
	chosen := map[*Task]bool{}
	var bad []string
	for _, pat := range patterns {
		if base, ok := strings.CutSuffix(pat, ".*"); ok {
			k, ok := canonical(base)
			t := p.byKey[k]
			if !ok || t == nil {
				bad = append(bad, "unknown task "+base+p.idHint(k))
				continue
			}
			for _, s := range t.Subtasks {
				chosen[s] = true
			}
			continue
		}
		k, ok := canonical(pat)
		t := p.byKey[k]
		if !ok || t == nil {
			bad = append(bad, "unknown task "+pat+p.idHint(k))
			continue
		}
		chosen[t] = true
		for _, s := range t.Subtasks {
			chosen[s] = true
		}
	}
	return func(t *Task) bool { return chosen[t] }, bad
}

// idHint is " (did you mean ID?)" for the task id nearest to the
// canonical id k, written as its file writes it.
func (p *Plan) idHint(k string) string {
	if strings.HasPrefix(k, "CROSS::") {
		return " (a cross-module reference CCW's planner resolves to a task id when it merges the modules' plans: write the id, as IMPL-B1)"
	}
	// impl-1 is IMPL-1 in the wrong case (impl-a1 IMPL-A1).
	if len(k) > 5 && strings.EqualFold(k[:5], "IMPL-") {
		for _, id := range []string{"IMPL-" + k[5:], "IMPL-" + strings.ToUpper(k[5:])} {
			if u, ok := canonical(id); ok && p.byKey[u] != nil {
				return " (did you mean " + p.byKey[u].ID + "?)"
			}
		}
	}
	keys := make([]string, 0, len(p.Tasks))
	for _, t := range p.Tasks {
		keys = append(keys, t.Key)
	}
	c := suggestClosest(k, keys)
	if c == "" || c == k {
		return ""
	}
	return " (did you mean " + p.byKey[c].ID + "?)"
}

// State is the derived state of a task for status and TODO_LIST.md
// (SPEC §23.5).
type State struct {
	// Word is pending, active, completed or blocked.
	Word string
	// Reason says why a blocked task is blocked: its failure, or the
	// unfinished dependencies ("IMPL-2").
	Reason string
}

// StateOf derives the state of a task from its status, its dependencies
// and the failure reasons recorded by runs (reasons, by canonical id).
func (p *Plan) StateOf(t *Task, reasons map[string]string) State {
	switch {
	case p.Completed(t):
		return State{Word: StatusCompleted}
	case t.Status == StatusActive:
		return State{Word: StatusActive}
	case t.Status == StatusBlocked:
		r := reasons[t.Key]
		if r == "" {
			r = "failed"
		}
		return State{Word: StatusBlocked, Reason: r}
	}
	if un := p.unmet(t, p.Completed); len(un) > 0 {
		return State{Word: StatusBlocked, Reason: strings.Join(un, ", ")}
	}
	if t.IsContainer() {
		for _, s := range t.Subtasks {
			if s.Status == StatusBlocked {
				return State{Word: StatusBlocked, Reason: s.ID + " failed"}
			}
		}
		for _, s := range t.Subtasks {
			if s.Status == StatusActive || p.Completed(s) {
				return State{Word: StatusActive}
			}
		}
	}
	return State{Word: StatusPending}
}

// Current returns the first incomplete leaf in id order whose
// dependencies are met (and that has not failed), or nil.
func (p *Plan) Current() *Task {
	for _, t := range p.Leaves() {
		if p.Completed(t) || t.Status == StatusBlocked {
			continue
		}
		if len(p.unmet(t, p.Completed)) == 0 {
			return t
		}
	}
	return nil
}
