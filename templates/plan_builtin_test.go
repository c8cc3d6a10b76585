package templates

import (
	"strings"
	"testing"

	"github.com/evalrun/evalrun/value"
)

func TestPlanRolesRenderTheirSlice(t *testing.T) {
	byName := map[string]*Template{}
	for _, tp := range PlanRoles() {
		byName[tp.Name] = tp
	}
	task := value.NewDict(0)
	task.Set("id", value.String("IMPL-1"))
	task.Set("title", value.String("Token generation"))
	task.Set("requirements", value.List{value.String("Sign tokens"), value.String("Use HS256")})
	task.Set("acceptance", value.List{value.String("Tests pass")})
	task.Set("implementation", value.String("1. Add signing"))
	task.Set("target_files", value.List{value.String("src/auth/login.ts:handleLogin")})
	task.Set("focus_paths", value.List{value.String("src/auth")})
	task.Set("shared_context", value.String(`{"auth_strategy": "JWT"}`))
	task.Set("test_commands", value.List{value.String("npm test")})
	session := value.NewDict(0)
	session.Set("plan_document", value.String("# The plan"))
	inputs := map[string]value.Value{"task": task, "session": session, "parent": value.NewDict(0), "analysis": value.NewDict(0), "dependency_summaries": value.String("")}
	lookup := func(name string) (value.Value, bool) { v, ok := inputs[name]; return v, ok }
	for name, c := range map[string]struct{ has, hasNot []string }{
		"plan/code-developer":        {[]string{"- Sign tokens\n- Use HS256", "1. Add signing", "src/auth/login.ts:handleLogin", "- src/auth"}, []string{"# The plan", "npm test"}},
		"plan/action-planning-agent": {[]string{"- Sign tokens", `{"auth_strategy": "JWT"}`, "# The plan"}, []string{"Tests pass", "src/auth/login.ts"}},
		"plan/test-fix-agent":        {[]string{"- Tests pass", "- npm test", "- src/auth"}, []string{"Sign tokens", "# The plan"}},
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
		for _, s := range c.has {
			if !strings.Contains(text, s) {
				t.Errorf("%s lacks %q:\n%s", name, s, text)
			}
		}
		for _, s := range c.hasNot {
			if strings.Contains(text, s) {
				t.Errorf("%s shows %q, outside its slice:\n%s", name, s, text)
			}
		}
	}
}
