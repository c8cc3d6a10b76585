package templates

import (
	"embed"
	"sync"
)

//go:embed plan/roles.xml
var planFS embed.FS

// PlanRoles returns the templates of plan runs (SPEC §23.3):
// plan/code-developer, plan/action-planning-agent, plan/test-fix-agent,
// plan/universal-executor and plan/agent-step, parsed from XML embedded
// in the binary, in scope builtin. They are kept apart from Builtin so
// that only plan runs register them, under every template a scope
// defines with the same name (which shadows them). They are shared:
// callers must not change them.
func PlanRoles() []*Template { return append([]*Template(nil), planRoles()...) }

var planRoles = sync.OnceValue(func() []*Template {
	data, _ := planFS.ReadFile("plan/roles.xml")
	parsed, diags := ParseFile("<builtin>/plan/roles.xml", data, ScopeBuiltin)
	if HasErrors(diags) {
		panic("templates: invalid built-in template plan/roles.xml: " + diags[0].Error())
	}
	return parsed
})

// PlanRolesXML returns the XML text of the plan templates, for copying one
// into a project to tune it.
func PlanRolesXML() string {
	data, _ := planFS.ReadFile("plan/roles.xml")
	return string(data)
}
