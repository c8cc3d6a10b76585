package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// validatePlan checks the rules that span tasks: hierarchy, the cap,
// dependencies, focus paths and file cohesion.
func validatePlan(p *Plan, r *reporter, opts Options) {
	// Hierarchy.
	for _, t := range p.Tasks {
		f := t.File
		if len(t.Num) > 2 {
			r.file(f.Path, SevError, "%s is deeper than 2 levels (IMPL-N.M at most)", t.ID)
			continue
		}
		var parentNode *Node
		if f.Root != nil {
			parentNode = f.Root.Get("context").Get("parent")
		}
		if len(t.Num) == 2 {
			pk := keyOf(t.Num[:1])
			parent, ok := p.byKey[pk]
			if !ok {
				r.file(f.Path, SevError, "%s has no parent task %s", t.ID, pk)
			} else {
				t.Parent = parent
				parent.Subtasks = append(parent.Subtasks, t)
			}
			if parentNode != nil && parentNode.Kind == String {
				if k, _ := canonical(parentNode.Str); k != pk {
					r.node(f, parentNode, SevError, "context.parent %q disagrees with the id %s (parent %s)", parentNode.Str, t.ID, pk)
				}
			}
		} else if parentNode != nil && parentNode.Kind == String && parentNode.Str != "" {
			r.node(f, parentNode, SevError, "context.parent %q disagrees with the id %s (a top-level task has no parent)", parentNode.Str, t.ID)
		}
	}
	for _, t := range p.Tasks {
		if t.File.Root == nil || t.Status == "" {
			continue
		}
		st := t.File.Root.Get("status")
		switch {
		case t.IsContainer() && t.Status != StatusContainer && t.Status != StatusCompleted:
			var subs []string
			for _, s := range t.Subtasks {
				subs = append(subs, s.ID)
			}
			r.node(t.File, st, SevError, "%s has subtasks (%s) but its status is %q, not \"container\"", t.ID, strings.Join(subs, ", "), t.Status)
		case !t.IsContainer() && t.Status == StatusContainer:
			r.node(t.File, st, SevError, "%s is a container without subtasks", t.ID)
		}
		if !t.IsContainer() && !t.HasFlow {
			r.file(t.File.Path, SevError, "missing core field %q", "flow_control")
		}
	}
	// The cap.
	if n := len(p.Tasks); n > opts.maxTasks() {
		r.file(p.Dir, SevError, "the plan has %d tasks, more than the limit of %d ([plan] max_tasks); split it into iterations", n, opts.maxTasks())
	}
	// Dependencies.
	for _, t := range p.Tasks {
		for _, n := range depNodes(t) {
			k, ok := canonical(n.Str)
			if !ok {
				k = n.Str
			}
			switch {
			case k == t.Key:
				r.node(t.File, n, SevError, "%s depends on itself", t.ID)
			case p.byKey[k] == nil:
				r.node(t.File, n, SevError, "depends_on names unknown task %q%s", n.Str, p.idHint(k))
			}
		}
	}
	reportCycles(p, r)
	// Focus paths and cohesion.
	for _, t := range p.Tasks {
		fp := focusNode(t)
		if fp == nil {
			continue
		}
		for _, it := range fp.Items {
			if it.Kind != String {
				continue
			}
			switch {
			case strings.ContainsAny(it.Str, "*?["):
				r.node(t.File, it, SevWarning, "focus_paths entry %q contains a wildcard; name concrete paths", it.Str)
			case strings.Contains(it.Str, "${"):
			default:
				path := it.Str
				if !filepath.IsAbs(path) {
					path = filepath.Join(p.Root, path)
				}
				if _, err := os.Stat(path); err != nil {
					r.node(t.File, it, SevWarning, "focus_paths entry %q does not exist", it.Str)
				}
			}
		}
	}
	cohesion(p, r)
}

// depNodes returns the string nodes of both depends_on lists of a task.
func depNodes(t *Task) []*Node {
	if t.File.Root == nil {
		return nil
	}
	var out []*Node
	for _, deps := range []*Node{t.File.Root.Get("depends_on"), t.File.Root.Get("context").Get("depends_on")} {
		if deps == nil || deps.Kind != Array {
			continue
		}
		for _, d := range deps.Items {
			if d.Kind == String {
				out = append(out, d)
			}
		}
	}
	return out
}

// reportCycles finds every dependency cycle once and reports it at the
// depends_on entry of its smallest task that starts it.
func reportCycles(p *Plan, r *reporter) {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []*Task
	seen := map[string]bool{}
	var visit func(t *Task)
	visit = func(t *Task) {
		color[t.Key] = grey
		stack = append(stack, t)
		for _, d := range t.DependsOn {
			u := p.byKey[d]
			if u == nil || u == t {
				continue
			}
			switch color[u.Key] {
			case white:
				visit(u)
			case grey:
				i := slices.Index(stack, u)
				cycle := slices.Clone(stack[i:])
				// Rotate so that the smallest id leads.
				minI := 0
				for j, c := range cycle {
					if lessNums(c.Num, cycle[minI].Num) < 0 {
						minI = j
					}
				}
				cycle = append(cycle[minI:], cycle[:minI]...)
				ids := make([]string, 0, len(cycle)+1)
				for _, c := range cycle {
					ids = append(ids, c.ID)
				}
				ids = append(ids, cycle[0].ID)
				sig := strings.Join(ids, " ")
				if seen[sig] {
					continue
				}
				seen[sig] = true
				lead, next := cycle[0], cycle[1%len(cycle)]
				var at *Node
				for _, n := range depNodes(lead) {
					if k, _ := canonical(n.Str); k == next.Key {
						at = n
						break
					}
				}
				r.node(lead.File, at, SevError, "dependency cycle: %s", strings.Join(ids, " → "))
			}
		}
		stack = stack[:len(stack)-1]
		color[t.Key] = black
	}
	for _, t := range p.Tasks {
		if color[t.Key] == white {
			visit(t)
		}
	}
}

// dependsOn reports whether a depends, directly or through other tasks
// (its container's dependencies included), on b.
func (p *Plan) dependsOn(a, b *Task) bool {
	seen := map[string]bool{}
	var walk func(t *Task) bool
	walk = func(t *Task) bool {
		if seen[t.Key] {
			return false
		}
		seen[t.Key] = true
		deps := slices.Clone(t.DependsOn)
		if t.Parent != nil {
			deps = append(deps, t.Parent.DependsOn...)
		}
		for _, d := range deps {
			u := p.byKey[d]
			if u == nil {
				continue
			}
			if u == b || (b.Parent != nil && u == b.Parent) || walk(u) {
				return true
			}
			for _, s := range u.Subtasks {
				if s == b || walk(s) {
					return true
				}
			}
		}
		return false
	}
	return walk(a)
}

// cohesion warns about the same file in the focus_paths of two leaf tasks
// that do not depend on each other.
func cohesion(p *Plan, r *reporter) {
	leaves := p.Leaves()
	for i, a := range leaves {
		for _, b := range leaves[i+1:] {
			if p.dependsOn(a, b) || p.dependsOn(b, a) {
				continue
			}
			for _, fa := range a.FocusPaths {
				if slices.ContainsFunc(b.FocusPaths, func(fb string) bool { return cleanPath(fa) == cleanPath(fb) }) {
					var at *Node
					var items []*Node
					if fn := focusNode(b); fn != nil {
						items = fn.Items
					}
					for _, n := range items {
						if n.Kind == String && cleanPath(n.Str) == cleanPath(fa) {
							at = n
							break
						}
					}
					r.node(b.File, at, SevWarning, "file cohesion: %q is in the focus_paths of %s and %s, which do not depend on each other", fa, a.ID, b.ID)
				}
			}
		}
	}
}

// focusNode returns the focus_paths array of a task (top-level in the
// flat schema), or nil.
func focusNode(t *Task) *Node {
	if t.File.Root == nil {
		return nil
	}
	n := t.File.Root.Get("context").Get("focus_paths")
	if t.Flat {
		n = t.File.Root.Get("focus_paths")
	}
	if n == nil || n.Kind != Array {
		return nil
	}
	return n
}

func cleanPath(s string) string { return filepath.Clean(strings.TrimPrefix(s, "./")) }

// overlap reports whether two focus path lists share a path or one path
// lies inside another; an empty list overlaps nothing.
func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			cx, cy := cleanPath(x), cleanPath(y)
			if cx == cy || cx == "." || cy == "." || strings.HasPrefix(cx, cy+"/") || strings.HasPrefix(cy, cx+"/") {
				return true
			}
		}
	}
	return false
}

// String summarises a plan for `plan check`: "DIR: ok (7 tasks, 2
// containers)".
func (p *Plan) String() string {
	return fmt.Sprintf("%s: ok (%d tasks, %d containers)", p.Dir, len(p.Tasks), p.Containers())
}
