package serve

import (
	"fmt"
	"html"
	"sort"
	"strings"
)

// Layout of the plan graph.
const (
	graphNodeW  = 210
	graphNodeH  = 46
	graphColGap = 56
	graphRowGap = 18
	graphPad    = 16
	graphTitle  = 27 // code points of a title shown in a box
	graphAgent  = 26 // code points of the id and the agent on a box's first line
)

// planGraph draws the dependency graph of a plan as SVG (SPEC §24.1): one
// box per task in columns by dependency depth (a task stands right of
// everything it depends on and of its container), solid arrows from a
// dependency to its dependant, dashed lines from a container to its
// subtasks. Boxes carry the class of their derived state, so the page's
// theme colours them; the embedded style gives a standalone file the same
// look.
func planGraph(p *Plan) string {
	byID := map[string]*PlanTask{}
	for _, t := range p.Tasks {
		byID[t.ID] = t
	}
	layer := map[string]int{}
	visiting := map[string]bool{}
	var depth func(t *PlanTask) int
	depth = func(t *PlanTask) int {
		if l, ok := layer[t.ID]; ok {
			return l
		}
		if visiting[t.ID] { // a cycle: plan check reports it
			return 0
		}
		visiting[t.ID] = true
		l := 0
		for _, d := range t.DependsOn {
			if dt := byID[d]; dt != nil {
				l = max(l, depth(dt)+1)
			}
		}
		if t.Parent != nil {
			if pt := byID[*t.Parent]; pt != nil {
				l = max(l, depth(pt)+1)
			}
		}
		visiting[t.ID] = false
		layer[t.ID] = l
		return l
	}
	cols := map[int][]*PlanTask{}
	maxCol, maxRow := 0, 0
	for _, t := range p.Tasks { // id order within a column
		l := depth(t)
		cols[l] = append(cols[l], t)
		maxCol = max(maxCol, l)
		maxRow = max(maxRow, len(cols[l]))
	}
	type box struct{ x, y int }
	pos := map[string]box{}
	for c := 0; c <= maxCol; c++ {
		for r, t := range cols[c] {
			pos[t.ID] = box{graphPad + c*(graphNodeW+graphColGap), graphPad + r*(graphNodeH+graphRowGap)}
		}
	}
	w := 2*graphPad + (maxCol+1)*graphNodeW + maxCol*graphColGap
	h := 2*graphPad + maxRow*graphNodeH + max(maxRow-1, 0)*graphRowGap
	if len(p.Tasks) == 0 {
		w, h = 2*graphPad+graphNodeW, 2*graphPad+graphNodeH
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="plan-graph" role="img" aria-label="dependency graph of %s" viewBox="0 0 %d %d" width="%d" height="%d">`,
		html.EscapeString(p.Dir), w, h, w, h)
	b.WriteString(`<style>
.plan-graph{font:12px ui-sans-serif,system-ui,sans-serif}
.plan-graph .box{fill:var(--panel,#fff);stroke:var(--line,#c9ced6);stroke-width:1}
.plan-graph .bar{fill:var(--muted,#8a93a0)}
.plan-graph .st-completed .bar{fill:var(--ok,#1f9d55)}
.plan-graph .st-active .bar{fill:var(--run,#2f6fde)}
.plan-graph .st-blocked .bar{fill:var(--bad,#d64545)}
.plan-graph .current .box{stroke:var(--accent,#2f6fde);stroke-width:2}
.plan-graph .id{font-weight:600;fill:var(--fg,#1d232b)}
.plan-graph .title{fill:var(--fg2,#4b5563)}
.plan-graph .agent{font-weight:400;font-size:11px;fill:var(--muted,#8a93a0)}
.plan-graph .edge{fill:none;stroke:var(--edge,#9aa3ad);stroke-width:1.4}
.plan-graph .edge.parent{stroke-dasharray:4 3}
.plan-graph .node{cursor:pointer}
</style>`)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L8,4 L0,8 z" fill="var(--edge,#9aa3ad)"/></marker></defs>`)
	edge := func(from, to, class string) {
		a, ok1 := pos[from]
		z, ok2 := pos[to]
		if !ok1 || !ok2 {
			return
		}
		x1, y1 := a.x+graphNodeW, a.y+graphNodeH/2
		x2, y2 := z.x, z.y+graphNodeH/2
		if x2 <= x1 { // same column (a cycle): draw below
			fmt.Fprintf(&b, `<path class="edge %s" d="M%d,%d C%d,%d %d,%d %d,%d" marker-end="url(#arrow)"/>`, class,
				a.x+graphNodeW/2, a.y+graphNodeH, a.x+graphNodeW/2, a.y+graphNodeH+20, z.x+graphNodeW/2, z.y-20, z.x+graphNodeW/2, z.y)
			return
		}
		mid := (x1 + x2) / 2
		marker := ` marker-end="url(#arrow)"`
		if class == "parent" {
			marker = ""
		}
		fmt.Fprintf(&b, `<path class="edge %s" d="M%d,%d C%d,%d %d,%d %d,%d"%s/>`, class, x1, y1, mid, y1, mid, y2, x2, y2, marker)
	}
	for _, t := range p.Tasks {
		deps := append([]string(nil), t.DependsOn...)
		sort.Strings(deps)
		for _, d := range deps {
			edge(d, t.ID, "dep")
		}
		if t.Parent != nil {
			edge(*t.Parent, t.ID, "parent")
		}
	}
	for _, t := range p.Tasks {
		at := pos[t.ID]
		class := "node st-" + t.Status
		if t.Current {
			class += " current"
		}
		title := []rune(t.Title)
		shown := t.Title
		if len(title) > graphTitle {
			shown = strings.TrimRight(string(title[:graphTitle-1]), " ") + "…"
		}
		tip := t.ID + " " + t.Title + " (" + t.Status
		if t.Reason != "" {
			tip += ": " + t.Reason
		}
		tip += ")"
		fmt.Fprintf(&b, `<g class="%s" data-id="%s" transform="translate(%d,%d)"><title>%s</title>`, class,
			html.EscapeString(t.ID), at.x, at.y, html.EscapeString(tip))
		fmt.Fprintf(&b, `<rect class="box" width="%d" height="%d" rx="6"/><rect class="bar" width="4" height="%d" rx="2"/>`,
			graphNodeW, graphNodeH, graphNodeH)
		agent := ""
		if t.Agent != "" {
			room := graphAgent - len(t.ID)
			a := []rune(t.Agent)
			if len(a) > room {
				a = append(a[:max(room-1, 1)], '…')
			}
			agent = `<tspan class="agent" dx="8">` + html.EscapeString(string(a)) + `</tspan>`
		}
		fmt.Fprintf(&b, `<text class="id" x="14" y="19">%s%s</text><text class="title" x="14" y="36">%s</text></g>`,
			html.EscapeString(t.ID), agent, html.EscapeString(shown))
	}
	b.WriteString(`</svg>`)
	return b.String()
}
