package handler

import (
	"github.com/evalrun/evalrun/value"
)

// SchemaValidator validates a parsed value against the task's output
// schema and returns the violations as "JSON-POINTER: message" texts, none
// when the value is valid. The templates package owns schemas and supplies
// it.
type SchemaValidator func(v value.Value) []string

// StructuredOutput is the outcome of ParseOutput (SPEC §14.8).
type StructuredOutput struct {
	// Parsed is the parsed content, nil when it is not valid JSON.
	Parsed value.Value
	// ParseError is "invalid JSON: DETAIL" when the content is not JSON.
	ParseError string
	// SchemaErrors are the schema violations, in the validator's order.
	SchemaErrors []string
}

// ParseOutput parses the content of an output_format type="json" task
// (SPEC §14.8): white space and one enclosing code fence are removed (as
// json-parse does) and the rest is read with value.ParseJSON. When validate
// is not nil and the content parsed, the value is validated.
func ParseOutput(content string, validate SchemaValidator) StructuredOutput {
	v, err := value.ParseJSON(value.StripCodeFence(content))
	if err != nil {
		return StructuredOutput{ParseError: "invalid JSON: " + err.Error()}
	}
	out := StructuredOutput{Parsed: v}
	if validate != nil {
		out.SchemaErrors = validate(v)
	}
	return out
}

// Apply stores the outcome in a COMPLETE result: parsedContent, and
// notes.parseError or notes.schemaError (a list of strings). Status and
// content are never changed; notes are copied before they are changed.
func (o StructuredOutput) Apply(r *value.TaskResult) {
	r.Parsed = o.Parsed
	if o.ParseError == "" && len(o.SchemaErrors) == 0 {
		return
	}
	notes := r.Notes.Clone()
	if o.ParseError != "" {
		notes.Set("parseError", value.String(o.ParseError))
	}
	if len(o.SchemaErrors) > 0 {
		l := make(value.List, len(o.SchemaErrors))
		for i, e := range o.SchemaErrors {
			l[i] = value.String(e)
		}
		notes.Set("schemaError", l)
	}
	r.Notes = notes
}
