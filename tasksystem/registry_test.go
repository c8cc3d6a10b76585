package tasksystem

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/templates"
)

func tmpl(name, alias, subtype, desc string, scope templates.Scope) *templates.Template {
	return &templates.Template{Name: name, Alias: alias, Type: "atomic", Subtype: subtype, Description: desc, Scope: scope,
		Instructions: "x"}
}

func names(ts []*templates.Template) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestRegistryLookup(t *testing.T) {
	r := NewRegistry()
	review := tmpl("review/git-diff", "gdr", "standard", "Review the diff", templates.ScopeLocal)
	plan := tmpl("plan", "", "director", "Plan", templates.ScopeGlobal)
	sub := tmpl("sum", "", "", "Summarise", templates.ScopeDefatom) // subtype "" is standard
	for _, x := range []*templates.Template{review, plan, sub} {
		r.Add(x)
	}
	tests := []struct {
		name string
		want *templates.Template
	}{
		{"review/git-diff", review},
		{"gdr", review},
		{"plan", plan},
		{"atomic:director", plan},
		{"atomic:standard", sub}, // last registration of the subtype wins
		{"atomic:subtask", nil},
		{"unknown", nil},
		{"GDR", nil}, // lookup is exact
	}
	for _, tt := range tests {
		got, ok := r.Lookup(tt.name)
		if got != tt.want || ok != (tt.want != nil) {
			t.Errorf("Lookup(%q) = %v, %v; want %v", tt.name, got, ok, tt.want)
		}
	}
	if diff := cmp.Diff([]string{"review/git-diff", "plan", "sum"}, names(r.All())); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	if r.Len() != 3 {
		t.Errorf("Len = %d", r.Len())
	}
}

func TestRegistryPrecedence(t *testing.T) {
	r := NewRegistry()
	// A template named like another's alias, and one named like a
	// type:subtype key: exact names win.
	a := tmpl("a", "b", "standard", "", templates.ScopeLocal)
	b := tmpl("b", "", "standard", "", templates.ScopeLocal)
	odd := tmpl("atomic:standard", "", "other", "", templates.ScopeLocal)
	r.Add(a)
	r.Add(b)
	r.Add(odd)
	for name, want := range map[string]*templates.Template{"b": b, "atomic:standard": odd, "atomic:other": odd} {
		if got, _ := r.Lookup(name); got != want {
			t.Errorf("Lookup(%q) = %v, want %v", name, got.Name, want.Name)
		}
	}
}

func TestRegistryReplace(t *testing.T) {
	r := NewRegistry()
	old := tmpl("review", "rv", "evaluator", "ancient words", templates.ScopeGlobal)
	other := tmpl("other", "", "evaluator", "other", templates.ScopeGlobal)
	r.Add(other)
	r.Add(old)
	if got, _ := r.Lookup("atomic:evaluator"); got != old {
		t.Fatalf("atomic:evaluator = %v", got)
	}
	repl := tmpl("review", "", "standard", "new one", templates.ScopeLocal)
	res := r.Add(repl)
	if res.Replaced != old || res.AliasTakenFrom != nil {
		t.Errorf("AddResult = %+v", res)
	}
	if got, ok := r.Lookup("rv"); ok {
		t.Errorf("the replaced template's alias survived: %v", got.Name)
	}
	if got, _ := r.Lookup("review"); got != repl {
		t.Errorf("review = %v", got)
	}
	// atomic:evaluator falls back to the last evaluator still registered.
	if got, _ := r.Lookup("atomic:evaluator"); got != other {
		t.Errorf("atomic:evaluator after replacement = %v", got)
	}
	if got, _ := r.Lookup("atomic:standard"); got != repl {
		t.Errorf("atomic:standard = %v", got)
	}
	// The old description no longer matches.
	if m := r.Match("ancient words"); len(m) != 0 {
		t.Errorf("Match(ancient words) = %v", m)
	}
	if diff := cmp.Diff([]string{"other", "review"}, names(r.All())); diff != "" {
		t.Errorf("All (-want +got):\n%s", diff)
	}
	// Replacing the only template of a subtype removes the index entry.
	r.Add(tmpl("other", "", "standard", "", templates.ScopeDefatom))
	if got, ok := r.Lookup("atomic:evaluator"); ok {
		t.Errorf("atomic:evaluator = %v, want none", got.Name)
	}
}

func TestRegistryAliasTakeover(t *testing.T) {
	r := NewRegistry()
	old := tmpl("review/old", "gdr", "", "", templates.ScopeGlobal)
	r.Add(old)
	nw := tmpl("review/diff", "gdr", "", "", templates.ScopeLocal)
	res := r.Add(nw)
	if res.AliasTakenFrom != old || res.Replaced != nil {
		t.Errorf("AddResult = %+v", res)
	}
	if got, _ := r.Lookup("gdr"); got != nw {
		t.Errorf("gdr = %v", got.Name)
	}
	if m := r.Match("gdr"); len(m) != 1 || m[0].Name != "review/diff" {
		t.Errorf("Match(gdr) = %v", m)
	}
	// Replacing the old template by name does not take the alias back.
	r.Add(tmpl("review/old", "", "", "", templates.ScopeLocal))
	if got, _ := r.Lookup("gdr"); got != nw {
		t.Errorf("gdr after replacing review/old = %v", got.Name)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				name := fmt.Sprintf("t%d", i%20)
				r.Add(tmpl(name, fmt.Sprintf("a%d", w), "standard", "analyze python code "+name, templates.ScopeDefatom))
				r.Lookup(name)
				r.Lookup("atomic:standard")
				r.Match("analyze python")
				r.All()
			}
		})
	}
	wg.Wait()
	if r.Len() != 20 {
		t.Errorf("Len = %d, want 20", r.Len())
	}
}
