package templates

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalrun/evalrun/value"
)

// diagLines returns the one-line forms of diags without the file name:
// "LINE:COL: MSG" (or "MSG" without a position).
func diagLines(diags []Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, strings.TrimPrefix(d.Error(), "t.xml:"))
	}
	return out
}

func parseT(t *testing.T, src string, opts ...Option) ([]*Template, []string) {
	t.Helper()
	ts, diags := ParseFile("t.xml", []byte(src), ScopeLocal, opts...)
	return ts, diagLines(diags)
}

// TestValidationMessages checks every validation message of SPEC §9.4 and
// its position.
func TestValidationMessages(t *testing.T) {
	known := func(names ...string) func(string) bool {
		return func(s string) bool {
			for _, n := range names {
				if n == s {
					return true
				}
			}
			return false
		}
	}
	opts := []Option{WithKnownTools(known("system_read_files")), WithKnownRoles(known("reviewer"))}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		// Not well-formed XML and wrong roots.
		{"mismatched end tag", `<task name="a" type="atomic">
  <description>d</description>
</tasks>`, []string{`3:1: element <task> closed by </tasks>`}},
		{"unclosed element", "<task name=\"a\" type=\"atomic\">\n  <description>d", []string{`2:3: unexpected end of file: element <description> is not closed`}},
		{"unquoted attribute", `<task name=a type="atomic"/>`, []string{`1:12: unquoted or missing attribute value in element`}},
		{"unknown entity", "<task name=\"a\" type=\"atomic\">\n<description>a &nbsp; b</description></task>", []string{`2:21: invalid character entity &nbsp;`}},
		{"invalid UTF-8", "<task name=\"a\" type=\"atomic\">\xff</task>", []string{`1:30: invalid UTF-8`}},
		{"text after root", "<task name=\"a\" type=\"atomic\"/>\n  junk", []string{`2:3: unexpected text "junk" after the root element`}},
		{"second root", "<task name=\"a\" type=\"atomic\"/>\n<task/>", []string{`2:1: unexpected element <task> after the root element`}},
		{"empty file", "", []string{`1:1: no root element: expected <task> or <tasks>`}},
		{"only a comment", "<!-- nothing -->\n", []string{`1:1: no root element: expected <task> or <tasks>`}},
		{"unsupported encoding", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<task/>", []string{`1:43: opening charset "ISO-8859-1": template files must be UTF-8`}},
		{"namespace declarations and ASCII", `<?xml version="1.0" encoding="US-ASCII"?>
<task xmlns="urn:evalrun" xmlns:x="urn:x" name="a" type="atomic"><description>d</description><instructions>i</instructions></task>`, nil},
		{"byte-order mark and CRLF", "\uFEFF<task name=\"a\" type=\"atomic\">\r\n<description>d</description>\r\n<instructions>{{ x | nope }}</instructions></task>",
			[]string{`3:22: invalid placeholder {{ x | nope }}: unknown filter 'nope'`}},
		{"unterminated comment", "<task name=\"a\" type=\"atomic\">\n  <!-- open\n</task>", []string{`2:3: unexpected end of file`}},
		{"wrong root", "<?xml version=\"1.0\"?>\n<template name=\"a\"/>", []string{`2:1: expected root element <task> or <tasks>, got <template>`}},
		{"empty tasks", "<tasks>\n</tasks>", []string{`1:1: <tasks> has no <task> element`}},
		{"tasks with other content", "<tasks kind=\"x\">\n  text\n  <tsk/>\n</tasks>", []string{
			`1:1: <tasks> has no <task> element`,
			`1:8: unknown attribute 'kind' on <tasks>`,
			`2:3: unexpected text "text" in <tasks>`,
			`3:3: unknown element <tsk> in <tasks> (did you mean <task>?)`,
		}},

		// <task> attributes.
		{"invalid name", `<task name="Review Diff" type="atomic"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:7: invalid template name 'Review Diff': must match ^[a-z0-9]+([-_:/.][a-z0-9]+)*$`}},
		{"invalid alias", `<task name="a" alias="g dr" type="atomic"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:16: invalid template alias 'g dr': must match ^[a-z0-9]+([-_:/.][a-z0-9]+)*$`}},
		{"name pattern ignores case", `<task name="User:Generate-Plan" type="atomic"><description>d</description><instructions>i</instructions></task>`, nil},
		{"type composite", `<task name="a" type="composite"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:16: type must be "atomic", got "composite"`}},
		{"missing name and type", `<task><description>d</description><instructions>i</instructions></task>`, []string{
			`1:1: <task> is missing required attribute 'name'`,
			`1:1: <task> is missing required attribute 'type'`,
		}},
		{"invalid subtype", `<task name="a" type="atomic" subtype="my type"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:30: invalid subtype 'my type': must match ^[a-z0-9]+([-_][a-z0-9]+)*$`}},
		{"unknown attribute", `<task name="a" type="atomic" colour="red"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:30: unknown attribute 'colour' on <task>`}},
		{"unknown attribute with hint", `<task name="a" type="atomic" subtyp="x"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:30: unknown attribute 'subtyp' on <task> (did you mean 'subtype'?)`}},
		{"duplicate attribute", `<task name="a" name="b" type="atomic"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:16: duplicate attribute 'name' on <task>`}},
		{"unknown role", `<task name="a" type="atomic" role="critic"><description>d</description><instructions>i</instructions></task>`,
			[]string{`1:30: unknown role 'critic': no [roles.critic] in the configuration`}},
		{"known role", `<task name="a" type="atomic" role="reviewer"><description>d</description><instructions>i</instructions></task>`, nil},

		// Required, unknown and repeated elements.
		{"missing description and instructions", `<task name="a" type="atomic">
  <system>s</system>
</task>`, []string{
			`1:1: <task> is missing required element <description>`,
			`1:1: <task> is missing required element <instructions>`,
		}},
		{"unknown element with hint", `<task name="a" type="atomic">
  <description>d</description>
  <instruction>x</instruction>
</task>`, []string{
			`1:1: <task> is missing required element <instructions>`,
			`3:3: unknown element <instruction> in <task> (did you mean <instructions>?)`,
		}},
		{"unknown element without hint", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <colour>red</colour>
</task>`, []string{`3:3: unknown element <colour> in <task>`}},
		{"duplicate element", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <system>one</system>
  <system>two</system>
</task>`, []string{`4:3: duplicate element <system>`}},
		{"text directly in task", `<task name="a" type="atomic">
  <description>d</description>stray<instructions>i</instructions>
</task>`, []string{`2:31: unexpected text "stray" in <task>`}},
		{"element inside a text element", `<task name="a" type="atomic">
  <description>d</description>
  <instructions>Wrap it in <b>bold</b>.</instructions>
</task>`, []string{`3:28: unknown element <b> in <instructions>`}},
		{"attribute on a text element", `<task name="a" type="atomic">
  <description lang="en">d</description><instructions>i</instructions>
</task>`, []string{`2:16: unknown attribute 'lang' on <description>`}},
		{"empty description", `<task name="a" type="atomic">
  <description>
  </description>
  <instructions>i</instructions>
</task>`, []string{`2:3: invalid value "" for <description>: expected non-empty text`}},

		// Values of booleans, enumerations and numbers.
		{"context management values", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <context_management>
    <inherit_context>all</inherit_context>
    <accumulate_data>maybe</accumulate_data>
    <accumulation_format>short</accumulation_format>
    <fresh_context>on</fresh_context>
    <fresh>x</fresh>
  </context_management>
</task>`, []string{
			`4:5: invalid value "all" for <inherit_context>: expected full, subset or none`,
			`5:5: invalid value "maybe" for <accumulate_data>: expected true or false`,
			`6:5: invalid value "short" for <accumulation_format>: expected full_output or notes_only`,
			`7:5: invalid value "on" for <fresh_context>: expected enabled or disabled`,
			`8:5: unknown element <fresh> in <context_management>`,
		}},
		{"fresh context with inherit full", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <context_management><inherit_context>subset</inherit_context><fresh_context>enabled</fresh_context></context_management>
</task>`, []string{`3:64: fresh_context enabled requires inherit_context none`}},
		{"fresh context with inherit none", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <context_management><inherit_context>none</inherit_context><fresh_context>enabled</fresh_context></context_management>
</task>`, nil},
		{"limits", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <limits max_turns="3.5" max_context_fraction="0"/>
</task>`, []string{
			`3:11: invalid value "3.5" for attribute max_turns of <limits>: expected an integer >= 1`,
			`3:27: invalid value "0" for attribute max_context_fraction of <limits>: expected a number > 0 and <= 1`,
		}},
		{"limits fraction too large and turns zero", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <limits max_turns="0" max_context_fraction="1.5" max_tokens="9"/>
</task>`, []string{
			`3:11: invalid value "0" for attribute max_turns of <limits>: expected an integer >= 1`,
			`3:25: invalid value "1.5" for attribute max_context_fraction of <limits>: expected a number > 0 and <= 1`,
			`3:52: unknown attribute 'max_tokens' on <limits>`,
		}},
		{"temperature", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <temperature>2.5</temperature>
</task>`, []string{`3:3: invalid value "2.5" for <temperature>: expected a number from 0 to 2`}},
		{"history config", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <history_config>
    <use_session_history>yes</use_session_history>
    <history_turns_to_include>0</history_turns_to_include>
    <record_in_session_history>false</record_in_session_history>
  </history_config>
</task>`, []string{
			`4:5: invalid value "yes" for <use_session_history>: expected true or false`,
			`5:5: invalid value "0" for <history_turns_to_include>: expected an integer >= 1`,
		}},
		{"command attributes", `<task name="a" type="atomic">
  <description>d</description><instructions>{{command_output}}</instructions>
  <command timeout="0" fail_on_error="no" shell="">ls</command>
</task>`, []string{
			`3:12: invalid value "0" for attribute timeout of <command>: expected an integer from 1 to 3600`,
			`3:24: invalid value "no" for attribute fail_on_error of <command>: expected true or false`,
			`3:43: invalid value "" for attribute shell of <command>: expected a shell program`,
		}},
		{"command timeout too large", `<task name="a" type="atomic">
  <description>d</description><instructions>{{command_output}}</instructions>
  <command timeout="3601">ls</command>
</task>`, []string{`3:12: invalid value "3601" for attribute timeout of <command>: expected an integer from 1 to 3600`}},
		{"command output unused", `<task name="a" type="atomic">
  <description>d</description><instructions>Look at {{command}}</instructions>
  <command>git diff</command>
</task>`, []string{`3:3: warning: the output of <command> is never used: {{command_output}} appears in neither <instructions> nor <system>`}},
		{"command output used in system", `<task name="a" type="atomic">
  <description>d</description><instructions>Review.</instructions>
  <system>{{command_output}}</system>
  <command>git diff</command>
</task>`, nil},

		// Inputs.
		{"input names", `<task name="a" type="atomic">
  <description>d</description><instructions>{{x}}</instructions>
  <inputs>
    <input name="x"/>
    <input name="x" type="int"/>
    <input name="2fast"/>
    <input type="string"/>
    <param name="y"/>
  </inputs>
</task>`, []string{
			`5:12: duplicate input 'x'`,
			`6:12: invalid input name '2fast': must match ^[A-Za-z_][A-Za-z0-9_-]*$`,
			`7:5: <input> is missing required attribute 'name'`,
			`8:5: unknown element <param> in <inputs>`,
		}},
		{"input attributes", `<task name="a" type="atomic">
  <description>d</description><instructions>{{x}}</instructions>
  <inputs><input name="x" type="text" required="yes" optional="true"/></inputs>
</task>`, []string{
			`3:27: invalid value "text" for attribute type of <input>: expected string, int, float, number, bool, list, dict or any`,
			`3:39: invalid value "yes" for attribute required of <input>: expected true or false`,
			`3:54: unknown attribute 'optional' on <input>`,
		}},
		{"input defaults", `<task name="a" type="atomic">
  <description>d</description><instructions>{{a}} {{b}} {{c}} {{d}} {{e}}</instructions>
  <inputs>
    <input name="a" type="int" default="[1,"/>
    <input name="b" type="int" default="1.5"/>
    <input name="c" type="list" default="{}"/>
    <input name="d" type="int" default="null"/>
    <input name="e" type="dict" default='"x"'/>
  </inputs>
</task>`, []string{
			`4:32: invalid value "[1," for attribute default of <input>: expected JSON (unexpected end of JSON input)`,
			`5:32: invalid value "1.5" for attribute default of <input>: expected int, got float`,
			`6:33: invalid value "{}" for attribute default of <input>: expected list, got dict`,
			`7:32: invalid value "null" for attribute default of <input>: expected int, got null`,
			`8:33: invalid value "\"x\"" for attribute default of <input>: expected dict, got string`,
		}},
		{"text in inputs", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <inputs>x</inputs>
</task>`, []string{`3:11: unexpected text "x" in <inputs>`}},

		// Placeholders.
		{"unknown placeholder", `<task name="a" type="atomic">
  <description>d</description>
  <inputs><input name="who"/></inputs>
  <instructions>
    Hello {{who}},
      meet {{ foo }} and {{instructions}}.
  </instructions>
</task>`, []string{`6:12: unknown placeholder {{ foo }}: not a declared input or built-in`}},
		{"misspelt placeholder", `<task name="a" type="atomic">
  <description>d</description>
  <inputs><input name="topic"/></inputs>
  <instructions>About {{topc}}</instructions>
</task>`, []string{`4:23: unknown placeholder {{topc}}: not a declared input or built-in (did you mean 'topic'?)`}},
		{"malformed placeholders in every text", `<task name="a" type="atomic">
  <description>d</description>
  <instructions>A {{ x | uper }}</instructions>
  <system>
	Tab {{ y | truncate("a") }}
  </system>
  <command>git log {{ 1x }}
  </command>
  <file>  {{ z | join }}</file>
  <file_paths><path>a.go</path><path>{{ p | lines }}</path></file_paths>
</task>`, []string{
			`3:26: invalid placeholder {{ x | uper }}: unknown filter 'uper' (did you mean 'upper'?)`,
			`5:22: invalid placeholder {{ y | truncate("a") }}: filter 'truncate' expects a non-negative int, got string`,
			`7:23: invalid placeholder {{ 1x }}: expected a reference, got '1'`,
			`9:18: invalid placeholder {{ z | join }}: filter 'join' takes 1 argument, got 0`,
			`10:45: invalid placeholder {{ p | lines }}: filter 'lines' takes 1 argument, got 0`,
		}},
		{"placeholder position with entities and CDATA", `<task name="a" type="atomic">
  <description>d</description>
  <inputs><input name="x"/></inputs>
  <instructions>a &amp; b <![CDATA[<c>]]> {{y}}</instructions>
</task>`, []string{`4:43: unknown placeholder {{y}}: not a declared input or built-in`}},
		{"context query placeholder", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <inputs/>
  <file_paths source="context_description"><context_query>about {{topic}}</context_query></file_paths>
</task>`, []string{`4:65: unknown placeholder {{topic}}: not a declared input or built-in`}},

		// Tools.
		{"tools", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <allowed_tools>
    <tool>system_read_files</tool>
    <tool>system_read_files</tool>
    <tool>rm_rf</tool>
    <tool></tool>
  </allowed_tools>
</task>`, []string{
			`5:5: duplicate tool 'system_read_files' in <allowed_tools>`,
			`6:5: unknown tool 'rm_rf' in <allowed_tools>`,
			`7:5: invalid value "" for <tool>: expected non-empty text`,
		}},

		// file_paths.
		{"file paths without path", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <file_paths><command>ls</command></file_paths>
</task>`, []string{
			`3:3: <file_paths source="literal"> is missing required element <path>`,
			`3:15: element <command> requires source="command" in <file_paths>`,
		}},
		{"file paths bad source", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <file_paths source="glob"><path>*.go</path></file_paths>
</task>`, []string{`3:15: invalid value "glob" for attribute source of <file_paths>: expected literal, command, description or context_description`}},
		{"file paths command", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <file_paths source="command"></file_paths>
</task>`, []string{`3:3: <file_paths source="command"> is missing required element <command>`}},

		// Output schemas.
		{"unknown schema", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format type="json" schema="pkg.ReviewResult"/>
</task>`, []string{`3:30: unknown schema 'pkg.ReviewResult': no ReviewResult.schema.json in a template directory, built-in schema or shorthand`}},
		{"schema attribute and element", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format type="json" schema="object">
    <schema>{"type": "object"}</schema>
  </output_format>
</task>`, []string{`4:5: <output_format> has both a schema attribute and a <schema> element`}},
		{"inline schema not JSON", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format type="json">
    <schema>
      {"type": "object",}
    </schema>
  </output_format>
</task>`, []string{`5:25: invalid JSON in <schema>: invalid character '}' looking for beginning of object key string`}},
		{"inline schema invalid", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format type="json"><schema>{"type": "thing"}</schema></output_format>
</task>`, []string{`3:30: invalid JSON Schema in <schema>: /type: unknown type "thing" (want array, boolean, integer, null, number, object or string)`}},
		{"output format type", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format type="yaml"/>
  <output_format schema="object"/>
</task>`, []string{
			`3:18: invalid value "yaml" for attribute type of <output_format>: expected json or text`,
			`4:3: duplicate element <output_format>`,
		}},
		{"output format without type", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format/>
</task>`, []string{`3:3: <output_format> is missing required attribute 'type'`}},
		{"schema with text output", `<task name="a" type="atomic">
  <description>d</description><instructions>i</instructions>
  <output_format type="text" schema="object"/>
</task>`, []string{`3:18: invalid value "text" for attribute type of <output_format>: expected json (a schema is given)`}},

		// Duplicates in one file.
		{"duplicate names", `<tasks>
  <task name="a" type="atomic"><description>d</description><instructions>i</instructions></task>
  <task name="b" alias="a" type="atomic"><description>d</description><instructions>i</instructions></task>
  <task name="a" type="atomic"><description>d</description><instructions>i</instructions></task>
</tasks>`, []string{
			`3:18: duplicate template name 'a' (first defined at t.xml:2:3)`,
			`4:3: duplicate template name 'a' (first defined at t.xml:2:3)`,
		}},

		// Leniency: '<' and '&' that start no markup are text.
		{"stray angle brackets and ampersands", `<task name="a" type="atomic">
  <description>R&D notes</description>
  <instructions>Reply {"score": <0-10>, "advice": "<what to improve>"} if a < b &amp; c.</instructions>
  <inputs><input name="x" type="string" default="a<b&c"/></inputs>
</task>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := parseT(t, tt.src, opts...)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFields checks the template built from a complete file.
func TestParseFields(t *testing.T) {
	src := `<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment -->
<task name="review/diff" alias="rd" type="atomic" subtype="director" role="reviewer">
  <description>
    Review a diff
  </description>
  <inputs>
    <input name="focus" type="str" required="false" default="bugs">  What to look at  </input>
    <input name="n" type="float" default="3"/>
    <input name="opts" type="object" default='{"a": [1, true]}'/>
  </inputs>
  <system>
    You are careful.
  </system>
  <instructions>
    Focus on {{focus}}.
      Indented {{n}}.

    {{command_output}} {{opts.a.0}}
  </instructions>
  <model>openai:gpt-4o</model>
  <provider>local</provider>
  <temperature>0.2</temperature>
  <output_format type="json" schema="string[]"/>
  <context_management>
    <inherit_context>none</inherit_context>
    <accumulate_data>true</accumulate_data>
    <accumulation_format>full_output</accumulation_format>
    <fresh_context>enabled</fresh_context>
  </context_management>
  <file_paths source="description"/>
  <command shell="bash" timeout="5" fail_on_error="false">
    git diff
      --staged
  </command>
  <file> notes/{{focus}}.md </file>
  <allowed_tools><tool>a</tool><tool>b</tool></allowed_tools>
  <history_config>
    <use_session_history>true</use_session_history>
    <history_turns_to_include>2</history_turns_to_include>
    <record_in_session_history>false</record_in_session_history>
  </history_config>
  <limits max_turns="4" max_context_fraction="0.5"/>
  <criteria>
    Must be short.
  </criteria>
</task>
`
	ts, diags := parseT(t, src)
	if len(diags) > 0 || len(ts) != 1 {
		t.Fatalf("got %d templates, diagnostics %v", len(ts), diags)
	}
	tr, fa := true, false
	two, temp := 2, 0.2
	want := &Template{
		Name: "review/diff", Alias: "rd", Type: "atomic", Subtype: "director", Role: "reviewer",
		Description:  "Review a diff",
		System:       "You are careful.",
		Instructions: "Focus on {{focus}}.\n  Indented {{n}}.\n\n{{command_output}} {{opts.a.0}}",
		Inputs: []Input{
			{Name: "focus", Type: "string", Description: "What to look at", Required: false, Default: value.String("bugs")},
			{Name: "n", Type: "float", Required: true, Default: value.Float(3)},
			{Name: "opts", Type: "dict", Required: true, Default: value.DictOf("a", value.List{value.Int(1), value.Bool(true)})},
		},
		InputsDeclared: true,
		Model:          "openai:gpt-4o", Provider: "local", Temperature: &temp,
		OutputFormat: &OutputFormat{Type: "json", Schema: "string[]"},
		Context:      ContextSettings{InheritContext: "none", AccumulateData: "true", AccumulationFormat: "full_output", FreshContext: "enabled"},
		FilePaths:    &FilePaths{Source: "description", Description: "Review a diff"},
		Command:      &Command{Text: "git diff\n  --staged", Shell: "bash", Timeout: 5 * time.Second, FailOnError: false},
		File:         "notes/{{focus}}.md",
		AllowedTools: []string{"a", "b"},
		History:      HistoryConfig{UseSessionHistory: &tr, HistoryTurnsToInclude: &two, RecordInSessionHistory: &fa},
		Limits:       Limits{MaxTurns: 4, MaxContextFraction: 0.5},
		Criteria:     "Must be short.",
		Scope:        ScopeLocal, Path: "t.xml", Line: 3, Col: 1,
	}
	got := ts[0]
	if got.OutputFormat == nil || got.OutputFormat.Compiled == nil || got.OutputFormat.Compiled.Name != "string[]" {
		t.Errorf("schema not resolved: %+v", got.OutputFormat)
	}
	if !strings.HasPrefix(got.XML, `<task name="review/diff"`) || !strings.HasSuffix(got.XML, "</task>") {
		t.Errorf("XML = %q", got.XML)
	}
	if diff := cmp.Diff(want, got,
		cmpopts.IgnoreUnexported(Template{}, value.Dict{}),
		cmpopts.IgnoreFields(Template{}, "XML"),
		cmpopts.IgnoreFields(OutputFormat{}, "Compiled"),
		cmp.Comparer(func(a, b *value.Dict) bool { return value.Equal(a, b) }),
	); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
	if _, err := got.Parts(); err != nil {
		t.Errorf("Parts: %v", err)
	}
}

// TestParseDefaults checks defaults parsed per type (SPEC §9.2).
func TestParseDefaults(t *testing.T) {
	tests := []struct {
		typ, required, def string
		want               value.Value
	}{
		{"string", "true", " spaced, [not JSON] ", value.String(" spaced, [not JSON] ")},
		{"string", "true", "", value.String("")},
		{"str", "true", "007", value.String("007")},
		{"int", "true", "42", value.Int(42)},
		{"integer", "true", "-7", value.Int(-7)},
		{"float", "true", "1", value.Float(1)},
		{"float", "true", "2.5", value.Float(2.5)},
		{"number", "true", "3", value.Int(3)},
		{"number", "true", "1e3", value.Float(1000)},
		{"bool", "true", "false", value.Bool(false)},
		{"boolean", "true", "true", value.Bool(true)},
		{"list", "true", `[1, "a"]`, value.List{value.Int(1), value.String("a")}},
		{"array", "true", `[]`, value.List(nil)},
		{"dict", "true", `{"k": null}`, value.DictOf("k", value.Null{})},
		{"any", "true", `"text"`, value.String("text")},
		{"any", "true", `null`, value.Null{}},
		{"int", "false", `null`, value.Null{}},
		{"any", "true", ` {"a": 1} `, value.DictOf("a", value.Int(1))},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"="+tt.def, func(t *testing.T) {
			src := `<task name="a" type="atomic"><description>d</description><instructions>{{x}}</instructions>` +
				`<inputs><input name="x" type="` + tt.typ + `" required="` + tt.required + `" default="` + strings.ReplaceAll(tt.def, `"`, "&quot;") + `"/></inputs></task>`
			ts, diags := parseT(t, src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			got := ts[0].Inputs[0].Default
			if !value.Equal(got, tt.want) || got.Type() != tt.want.Type() {
				t.Errorf("default = %v (%s), want %v (%s)", got, got.Type(), tt.want, tt.want.Type())
			}
		})
	}
}

// TestInferredInputs checks that templates without <inputs> get inferred
// inputs (SPEC §9.3) and that an empty <inputs/> declares none.
func TestInferredInputs(t *testing.T) {
	ts, diags := parseT(t, `<task name="a" type="atomic"><description>d</description>
<system>{{b}}</system><instructions>{{a}} {{c | default("x")}} {{date}}</instructions><file>{{f}}</file></task>`)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	want := []Input{
		{Name: "a", Type: "any", Required: true},
		{Name: "c", Type: "any", Required: false},
		{Name: "b", Type: "any", Required: true},
		{Name: "f", Type: "any", Required: true},
	}
	if diff := cmp.Diff(want, ts[0].Inputs); diff != "" || ts[0].InputsDeclared {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	ts, diags = parseT(t, `<task name="a" type="atomic"><description>d</description><inputs/><instructions>hi {{date}}</instructions></task>`)
	if len(diags) > 0 || !ts[0].InputsDeclared || len(ts[0].Inputs) != 0 {
		t.Errorf("empty inputs: %v %+v", diags, ts)
	}
}

// TestParseReturnsOnlyValidTemplates checks that a file's valid templates
// are returned when another one has errors.
func TestParseReturnsOnlyValidTemplates(t *testing.T) {
	ts, diags := parseT(t, `<tasks>
  <task name="good" type="atomic"><description>d</description><instructions>i</instructions></task>
  <task name="bad" type="atomic"><description>d</description></task>
  <task name="also-good" type="atomic"><description>d</description><instructions>i</instructions></task>
</tasks>`)
	var names []string
	for _, tm := range ts {
		names = append(names, tm.Name)
	}
	if diff := cmp.Diff([]string{"good", "also-good"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if len(diags) != 1 {
		t.Errorf("diags = %v", diags)
	}
}

func TestDedent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"   \n \t \n", ""},
		{"one line", "one line"},
		{"  padded  ", "padded  "},
		{"\n    a\n      b\n    c\n  ", "a\n  b\nc"},
		{"\n\n    a\n\n    b\n\n\n", "a\n\nb"},
		{"\n    a\n   \n    b", "a\n\nb"},
		{"\n\ta\n\t\tb\n", "a\n\tb"},
		{"\n  \ta\n  b\n", "\ta\nb"},
		{"\n\t a\n \tb\n", "\t a\n \tb"},
		{"first\n    second", "first\n    second"},
		{"  x\n y", " x\ny"},
	}
	for _, tt := range tests {
		if got := Dedent(tt.in); got != tt.want {
			t.Errorf("Dedent(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDedentedTextsInTemplate(t *testing.T) {
	ts, diags := parseT(t, "<task name=\"a\" type=\"atomic\">\r\n  <description>\r\n    Line one\r\n      line two\r\n  </description>\r\n"+
		"  <instructions>  <![CDATA[\n    <x>\n  ]]>  </instructions>\r\n  <model>  m  </model>\r\n</task>")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if got := ts[0].Description; got != "Line one\n  line two" {
		t.Errorf("description = %q", got)
	}
	if got := ts[0].Instructions; got != "<x>" {
		t.Errorf("instructions = %q", got)
	}
	if got := ts[0].Model; got != "m" {
		t.Errorf("model = %q", got)
	}
}

// TestSpecExamples loads the template files of SPEC §20.1–§20.4.
func TestSpecExamples(t *testing.T) {
	set, diags := Load(LoadOptions{
		Sources:    Sources{Local: "testdata/spec20"},
		KnownTools: func(n string) bool { return n == "system_read_files" || n == "system_list_directory" },
		KnownRoles: func(n string) bool { return n == "reviewer" },
	})
	if len(diags) > 0 {
		for _, d := range diags {
			t.Error(d.Display())
		}
	}
	var names []string
	for _, tm := range set.Templates() {
		names = append(names, tm.Name)
	}
	want := []string{
		"internal:associative_matching_content", "internal:associative_matching_metadata",
		"plan/generate", "code/implement", "review/git-diff",
		"summarize-file", "combine-summaries", "writer:plan", "writer:draft", "writer:critique",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	review, _ := set.Lookup("gdr")
	if review == nil || review.OutputFormat.Compiled == nil || review.OutputFormat.Compiled.Origin != "testdata/spec20/ReviewResult.schema.json" {
		t.Fatalf("review/git-diff schema: %+v", review)
	}
	if got := review.Inputs; len(got) != 1 || got[0].Default != value.String("correctness") || got[0].Required != true {
		t.Errorf("review inputs: %+v", got)
	}
	critique, _ := set.Lookup("writer:critique")
	if !strings.Contains(critique.Instructions, `{"score": <0-10>, "advice": "<what to improve>"}`) {
		t.Errorf("critique instructions: %q", critique.Instructions)
	}
	if got := review.Source(); got != "local testdata/spec20/review.xml:1" {
		t.Errorf("Source() = %q", got)
	}
}
