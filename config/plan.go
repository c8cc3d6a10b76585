package config

import (
	"maps"
	"strings"
)

// DefaultPlanMaxTasks is the task cap of a plan when [plan] max_tasks is
// not set (SPEC §23.2).
const DefaultPlanMaxTasks = 10

// Plan is the [plan] section: the task cap of plans and [plan.agents],
// which maps a task's meta.agent ("@code-developer") to the agent of §22
// that runs it ("claude"), or to "none" for the provider.
type Plan struct {
	MaxTasks int
	Agents   map[string]string
}

type rawPlan struct {
	MaxTasks *int64            `toml:"max_tasks"`
	Agents   map[string]string `toml:"agents"`
}

// overlayPlan merges a file's [plan] section: max_tasks replaces, agents
// are merged key by key.
func (m *merger) overlayPlan(raw *rawPlan) {
	if raw == nil {
		return
	}
	setInt(&m.cfg.Plan.MaxTasks, raw.MaxTasks)
	if raw.Agents != nil {
		if m.cfg.Plan.Agents == nil {
			m.cfg.Plan.Agents = map[string]string{}
		}
		maps.Copy(m.cfg.Plan.Agents, raw.Agents)
	}
}

// validatePlan checks a file's [plan] section.
func (f *file) validatePlan(raw *rawPlan) ErrorList {
	if raw == nil {
		return nil
	}
	var errs ErrorList
	if raw.MaxTasks != nil && *raw.MaxTasks < 1 {
		errs = append(errs, f.errorAt([]string{"plan", "max_tasks"}, "plan.max_tasks: must be at least 1, got %d", *raw.MaxTasks))
	}
	for _, k := range sortedKeys(raw.Agents) {
		path := []string{"plan", "agents", k}
		if !strings.HasPrefix(k, "@") || len(k) < 2 {
			errs = append(errs, f.errorAt(path, "plan.agents: key %q must name a meta.agent such as \"@code-developer\"", k))
		}
		if strings.TrimSpace(raw.Agents[k]) == "" {
			errs = append(errs, f.errorAt(path, "plan.agents.%q: must name an agent", k))
		}
	}
	return errs
}
