package plan

import "strings"

// The sections of a task's prompt (the input "sections" of the plan/ROLE
// templates), in the order the built-in templates show them. Each is
// "\n\n## HEADING\nBODY", or "" when the task has nothing for it, so that
// a template written as
//
//	# {{task.id}}: {{task.title}}{{sections.requirements}}{{sections.acceptance}}
//
// shows no empty heading: the template language has no conditionals.
const (
	sectionParent         = "parent"
	sectionRequirements   = "requirements"
	sectionAcceptance     = "acceptance"
	sectionSharedContext  = "shared_context"
	sectionImplementation = "implementation"
	sectionTargetFiles    = "target_files"
	sectionFocusPaths     = "focus_paths"
	sectionTestCommands   = "test_commands"
	sectionAnalysis       = "analysis"
	sectionDependencies   = "dependencies"
	sectionPlanDocument   = "plan_document"
)

// promptSections builds the sections of a task's prompt from the values
// the other inputs hold.
func promptSections(t *Task, implementation, sharedCtx string, testCmds []string, analysis []KV, deps, planDoc string) []KV {
	var parent string
	if t.Parent != nil {
		parent = t.Parent.ID
		if t.Parent.Title != "" {
			parent += ": " + t.Parent.Title
		}
		if reqs := bullets(t.Parent.Requirements); reqs != "" {
			parent += "\n" + reqs
		}
	}
	var an []string
	for _, kv := range analysis {
		if s, _ := kv.Value.(string); strings.TrimSpace(s) != "" {
			an = append(an, "### "+kv.Key+"\n"+strings.TrimRight(s, "\n"))
		}
	}
	return []KV{
		{sectionParent, section("Parent task", parent)},
		{sectionRequirements, section("Requirements", bullets(t.Requirements))},
		{sectionAcceptance, section("Acceptance criteria", bullets(t.Acceptance))},
		{sectionSharedContext, section("Shared context", sharedCtx)},
		{sectionImplementation, section("Implementation steps", implementation)},
		{sectionTargetFiles, section("Target files", bullets(t.TargetFiles))},
		{sectionFocusPaths, section("Focus paths", bullets(t.FocusPaths))},
		{sectionTestCommands, section("Test commands", bullets(testCmds))},
		{sectionAnalysis, section("Analysis", strings.Join(an, "\n\n"))},
		{sectionDependencies, section("Work this task builds on", deps)},
		{sectionPlanDocument, section("Plan document", planDoc)},
	}
}

// section is "\n\n## HEADING\nBODY", or "" when BODY is blank.
func section(heading, body string) string {
	body = strings.Trim(body, "\n")
	if strings.TrimSpace(body) == "" {
		return ""
	}
	return "\n\n## " + heading + "\n" + body
}

// bullets lists the non-blank items as "- ITEM" lines.
func bullets(items []string) string {
	var b strings.Builder
	for _, it := range items {
		if it = strings.TrimSpace(it); it == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + it)
	}
	return b.String()
}
