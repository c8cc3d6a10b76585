package templates

import (
	"testing"

	"github.com/evalrun/evalrun/value"
)

// TestPlanRolesRenderTheirSlice renders each built-in role template with
// every section present: each shows its slice (CCW's agent context
// filtering), in order, and nothing else.
func TestPlanRolesRenderTheirSlice(t *testing.T) {
	byName := map[string]*Template{}
	for _, tp := range PlanRoles() {
		byName[tp.Name] = tp
	}
	all := []string{"parent", "requirements", "acceptance", "shared_context", "implementation", "target_files",
		"focus_paths", "test_commands", "analysis", "dependencies", "plan_document"}
	task := value.NewDict(0)
	task.Set("id", value.String("IMPL-1"))
	task.Set("title", value.String("Token generation"))
	sections := value.NewDict(0)
	for _, k := range all {
		sections.Set(k, value.String("\n\n## "+k+"\ntext of "+k))
	}
	inputs := map[string]value.Value{"task": task, "session": value.NewDict(0), "parent": value.NewDict(0),
		"analysis": value.NewDict(0), "dependency_summaries": value.String(""), "sections": sections}
	lookup := func(name string) (value.Value, bool) { v, ok := inputs[name]; return v, ok }
	for name, slice := range map[string][]string{
		"plan/code-developer":        {"requirements", "acceptance", "implementation", "target_files", "focus_paths", "analysis", "dependencies"},
		"plan/action-planning-agent": {"requirements", "shared_context", "analysis", "plan_document"},
		"plan/test-fix-agent":        {"acceptance", "test_commands", "focus_paths", "analysis"},
		"plan/universal-executor":    {"requirements", "acceptance", "implementation", "analysis", "dependencies"},
	} {
		tp := byName[name]
		if tp == nil {
			t.Fatalf("%s missing", name)
		}
		parsed, err := Parse(tp.Instructions)
		if err != nil {
			t.Fatal(err)
		}
		text, missing := parsed.Render(lookup)
		if len(missing) > 0 {
			t.Fatalf("%s: missing %v", name, missing)
		}
		want := "# IMPL-1: Token generation"
		for _, k := range slice {
			want += "\n\n## " + k + "\ntext of " + k
		}
		if text != want {
			t.Errorf("%s renders\n%s\nwant\n%s", name, text, want)
		}
	}
}
