package tasksystem

import "strings"

// The origins of a delivered file (SPEC §13.5).
const (
	OriginExplicit  = "explicit"
	OriginTemplate  = "template"
	OriginFresh     = "fresh"
	OriginInherited = "inherited"
)

// The context sources of SPEC §13.4, the values of notes.context_source.
const (
	SourceExplicitRequest            = "explicit_request"
	SourceTemplateLiteral            = "template_literal"
	SourceTemplateCommand            = "template_command"
	SourceTemplateDescription        = "template_description"
	SourceTemplateContextDescription = "template_context_description"
	SourceFresh                      = "fresh"
	SourceNone                       = "none"
)

// deliveredFile is one file of the context block.
type deliveredFile struct {
	path   string // relative to the project root when inside it, else absolute
	origin string
	text   string // as read, possibly truncated
}

// contextBlock is the context a task sees, in the delivery format of SPEC
// §13.5.
type contextBlock struct {
	summary    string
	files      []deliveredFile
	prevFormat string // notes_only or full_output
	prev       string // the formatted previous outputs
}

// String renders the block, or "" when it has no part:
//
//	<context>
//	<summary>SUMMARY</summary>
//	<file path="PATH" origin="ORIGIN">
//	TEXT
//	</file>
//	<previous_outputs format="FORMAT">
//	OUTPUTS
//	</previous_outputs>
//	</context>
//
// Each part appears only when non-empty (a file always does, even when it is
// empty). Contents are not escaped; a line feed is added after a text that
// does not end with one. Attribute values have &, < and " escaped.
func (c contextBlock) String() string {
	if c.summary == "" && len(c.files) == 0 && c.prev == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("<context>\n")
	if c.summary != "" {
		b.WriteString("<summary>" + c.summary + "</summary>\n")
	}
	for _, f := range c.files {
		b.WriteString(`<file path="` + attrEscape(f.path) + `" origin="` + f.origin + "\">\n")
		writeBody(&b, f.text)
		b.WriteString("</file>\n")
	}
	if c.prev != "" {
		b.WriteString(`<previous_outputs format="` + c.prevFormat + "\">\n")
		writeBody(&b, c.prev)
		b.WriteString("</previous_outputs>\n")
	}
	b.WriteString("</context>")
	return b.String()
}

// writeBody writes text followed by a line feed unless it is empty or
// already ends with one.
func writeBody(b *strings.Builder, text string) {
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
}

var attrReplacer = strings.NewReplacer("&", "&amp;", "<", "&lt;", `"`, "&quot;")

func attrEscape(s string) string { return attrReplacer.Replace(s) }
