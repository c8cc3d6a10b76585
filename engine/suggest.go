package engine

import (
	"slices"
	"strings"

	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/value"
)

// Suggest returns up to three template names for a name no template has
// (SPEC §10.5, §17.1): the matches of SPEC §10.5 first; when they are
// fewer than three, names and aliases within edit distance 2 of the name
// (a typo) follow, nearest first (decided here: Jaccard matching of
// descriptions never suggests a misspelt name).
func Suggest(reg *tasksystem.Registry, name string) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range reg.Match(name) {
		if !seen[m.Name] {
			seen[m.Name] = true
			names = append(names, m.Name)
		}
	}
	type near struct {
		name string
		dist int
	}
	var typos []near
	lower := strings.ToLower(strings.TrimSpace(name))
	for _, t := range reg.All() {
		if strings.HasPrefix(t.Name, "internal:") || seen[t.Name] {
			continue
		}
		for _, cand := range []string{t.Name, t.Alias} {
			if cand == "" {
				continue
			}
			if d := suggest.Distance(lower, strings.ToLower(cand)); d <= suggest.MaxDistance {
				typos = append(typos, near{t.Name, d})
				break
			}
		}
	}
	slices.SortStableFunc(typos, func(x, y near) int {
		if x.dist != y.dist {
			return x.dist - y.dist
		}
		return strings.Compare(x.name, y.name)
	})
	for _, n := range typos {
		if !seen[n.name] {
			seen[n.name] = true
			names = append(names, n.name)
		}
	}
	if len(names) > 3 {
		names = names[:3]
	}
	return names
}

// TaskInputHint returns the hint lines that follow the message of a task
// call of name (as `evalrun task` names it) whose inputs failed validation
// (reason input_validation_failure): "did you mean" for an unknown
// parameter near an input, then the template's inputs, the optional ones
// marked, and how to give them. It returns "" for any other result.
func (e *Engine) TaskInputHint(name string, res *value.TaskResult) string {
	if FailureReason(res) != "input_validation_failure" {
		return ""
	}
	t, ok := e.reg.Lookup(name)
	if !ok {
		return ""
	}
	names := make([]string, len(t.Inputs))
	listed := make([]string, len(t.Inputs))
	for i, in := range t.Inputs {
		names[i] = in.Name
		listed[i] = in.Name
		if !in.Required || in.Default != nil {
			listed[i] += " (optional)"
		}
	}
	var b strings.Builder
	if rest, ok := strings.CutPrefix(res.Content, "Unknown parameter(s) for task '"); ok {
		_, unknown, _ := strings.Cut(rest, "': ")
		first, _, _ := strings.Cut(unknown, ", ")
		if near := suggest.Near(first, names); near != "" {
			b.WriteString("hint: did you mean '" + near + "'?\n")
		}
	}
	if len(names) == 0 {
		b.WriteString("hint: '" + name + "' takes no inputs\n")
	} else {
		b.WriteString("hint: the inputs of '" + name + "' are " + strings.Join(listed, ", ") + "; give each as --set NAME=VALUE\n")
	}
	return b.String()
}

// IgnoresInstructions reports whether name is a template that never refers
// to {{instructions}}, so that the text of `evalrun task NAME "text"` would
// not be sent; false for an unknown name or a template that cannot compile
// (the call reports those).
func (e *Engine) IgnoresInstructions(name string) bool {
	t, ok := e.reg.Lookup(name)
	if !ok {
		return false
	}
	p, err := t.Parts()
	if err != nil {
		return false
	}
	for _, r := range p.Roots() {
		if r.Name == "instructions" {
			return false
		}
	}
	return true
}

// FailureReason returns the reason of a FAILED TaskResult (notes.error.reason,
// e.g. input_validation_failure), or "" for any other value.
func FailureReason(v value.Value) string {
	res, ok := v.(*value.TaskResult)
	if !ok || res.Status != value.StatusFailed || res.Notes == nil {
		return ""
	}
	errNote, _ := res.Notes.Get("error")
	d, ok := errNote.(*value.Dict)
	if !ok {
		return ""
	}
	if reason, ok := d.Get("reason"); ok {
		return value.Text(reason)
	}
	return ""
}
