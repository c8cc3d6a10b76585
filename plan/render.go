package plan

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// TodoList renders TODO_LIST.md (SPEC §23.4) from the task files and the
// run records (for the reasons of failed tasks).
func (p *Plan) TodoList(recs map[string]*RunRecord) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Tasks: %s\n\n## Progress\n", p.Topic)
	cur := p.Current()
	rs := reasons(recs)
	for _, t := range p.Tasks {
		indent := ""
		if t.Parent != nil {
			indent = "  "
		}
		box := " "
		if p.Completed(t) {
			box = "x"
		}
		fmt.Fprintf(&b, "%s- [%s] **%s**: %s", indent, box, t.ID, t.Title)
		st := p.StateOf(t, rs)
		switch {
		case t.IsContainer():
			b.WriteString(" (container)")
		case st.Word == StatusBlocked:
			fmt.Fprintf(&b, " (blocked: %s)", st.Reason)
		case st.Word == StatusActive:
			b.WriteString(" (active)")
		}
		if !t.IsContainer() {
			fmt.Fprintf(&b, " → [📋](./.task/%s.json)", t.ID)
			if box == "x" {
				fmt.Fprintf(&b, " | [✅](./.summaries/%s-summary.md)", t.ID)
			}
		}
		if t == cur {
			b.WriteString("  <-- current")
		}
		b.WriteByte('\n')
	}
	b.WriteString("\n## Status Legend\n- `- [ ]` = Pending task\n- `- [x]` = Completed task\n")
	return b.String()
}

// agentOf names the agent shown for a task: meta.agent, else meta.tool.
func agentOf(t *Task) string {
	if t.Agent != "" {
		return t.Agent
	}
	if t.Tool != "" {
		return t.Tool
	}
	return "@universal-executor"
}

// StatusText renders the task tree of `plan status` (Otto's rendering):
// a header, then [x]/[ ] id: title (@agent, state) with <-- current.
func (p *Plan) StatusText(recs map[string]*RunRecord) string {
	var b strings.Builder
	prog := 0
	leaves := p.Leaves()
	for _, t := range leaves {
		if p.Completed(t) {
			prog++
		}
	}
	fmt.Fprintf(&b, "plan %s  %d/%d tasks completed\n", filepath.Base(filepath.Clean(p.Dir)), prog, len(leaves))
	p.tree(&b, recs, "  ", "    ")
	return b.String()
}

// StatusMarkdown renders the checklist for injection into a prompt.
func (p *Plan) StatusMarkdown(recs map[string]*RunRecord) string {
	var b strings.Builder
	b.WriteString("## Current Tasks\n")
	p.tree(&b, recs, "- ", "  - ")
	return b.String()
}

func (p *Plan) tree(b *strings.Builder, recs map[string]*RunRecord, top, sub string) {
	cur := p.Current()
	rs := reasons(recs)
	for _, t := range p.Tasks {
		lead := top
		if t.Parent != nil {
			lead = sub
		}
		box := " "
		if p.Completed(t) {
			box = "x"
		}
		st := p.StateOf(t, rs)
		word := st.Word
		if st.Reason != "" {
			word += ": " + st.Reason
		}
		if t.IsContainer() {
			fmt.Fprintf(b, "%s[%s] %s: %s (container, %s)", lead, box, t.ID, t.Title, word)
		} else {
			fmt.Fprintf(b, "%s[%s] %s: %s (%s, %s)", lead, box, t.ID, t.Title, agentOf(t), word)
		}
		if t == cur {
			b.WriteString("  <-- current")
		}
		b.WriteByte('\n')
	}
}

// TaskStatus is one task of `plan status --json`.
type TaskStatus struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Status     string   `json:"status"`
	Reason     string   `json:"reason,omitempty"`
	Agent      string   `json:"agent"`
	DependsOn  []string `json:"depends_on"`
	Parent     *string  `json:"parent"`
	StartedAt  *string  `json:"started_at"`
	FinishedAt *string  `json:"finished_at"`
	Run        *string  `json:"run"`
	Tokens     int64    `json:"tokens"`
	CostUSD    float64  `json:"cost_usd"`
	Current    bool     `json:"current,omitempty"`
}

// StatusJSON renders the tasks of `plan status --json`, in id order.
func (p *Plan) StatusJSON(recs map[string]*RunRecord) ([]byte, error) {
	cur := p.Current()
	rs := reasons(recs)
	out := make([]TaskStatus, 0, len(p.Tasks))
	str := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	for _, t := range p.Tasks {
		st := p.StateOf(t, rs)
		ts := TaskStatus{ID: t.ID, Title: t.Title, Status: st.Word, Reason: st.Reason, Agent: agentOf(t), DependsOn: []string{}, Current: t == cur}
		for _, d := range t.DependsOn {
			if u := p.byKey[d]; u != nil {
				d = u.ID
			}
			ts.DependsOn = append(ts.DependsOn, d)
		}
		if t.Parent != nil {
			ts.Parent = &t.Parent.ID
		}
		if r := recs[t.Key]; r != nil {
			ts.StartedAt, ts.FinishedAt, ts.Run = str(r.StartedAt), str(r.FinishedAt), str(r.Run)
			ts.Tokens, ts.CostUSD = r.Tokens, r.CostUSD
		}
		out = append(out, ts)
	}
	return json.MarshalIndent(out, "", "  ")
}
