// Package templates is evalrun's model of atomic-task templates (SPEC §9,
// §10, §12): the Template type shared by XML files and defatom forms, the
// XML template files with their validation, output schemas, the built-in
// templates embedded in the binary, loading from the built-in, global, local
// and --templates scopes with provenance, and the {{placeholder | filter}}
// expressions of SPEC §12 with their substitution. The package knows nothing
// of the evaluator or of how templates are looked up and run; that is the
// task system's job.
//
// # XML files
//
// ParseFile reads one file whose root is <task> or <tasks> and validates
// every rule of SPEC §9.4, reporting all problems of the file (not only the
// first) as Diagnostics positioned at the offending element, attribute or
// character. Positions are sexp.Pos values, so a template error prints
// exactly like a syntax error (FILE:LINE:COL: MESSAGE, the source line and a
// caret; Diagnostic.Display).
//
// The XML model is an etree document. etree records no positions, so the
// document is not read with etree's own reader: one pass of encoding/xml's
// tokenizer (Decoder.RawToken, strict) records Decoder.InputOffset before and
// after every token and builds the etree tree from the tokens, keeping the
// byte offset of every element, of every attribute name (found by scanning
// the start tag) and the raw byte range of every piece of character data.
// An offset inside an element's text (a malformed placeholder, a JSON error
// in an inline schema) is mapped back through entity decoding, CDATA, line
// ending normalisation, trimming and dedenting to the exact file position.
// Element nesting is checked by the reader itself, so that prefixes stay as
// written.
//
// Files are XML 1.0 with one leniency (decided here, required by the
// example of SPEC §20.2): a '<' that starts no markup — "<0-10>", "a < b",
// "<what to improve>" (words where attributes would be) — and an '&' that
// starts no entity or character reference ("R&D") are read as literal text.
// Anything that looks like a tag is a tag: <b>bold</b> inside <instructions>
// is the error "unknown element <b> in <instructions>"; write &lt;b&gt; or
// use CDATA.
//
// Texts of description, system, instructions, criteria, command and
// context_query are dedented (Dedent), other texts trimmed. Defaults are
// kept as text for string inputs and read as JSON otherwise. Placeholders are
// validated and inputs inferred by Infer; every returned template has been
// through Infer.
//
// # Schemas
//
// An output_format schema is an inline <schema>, a NAME.schema.json file of a
// template directory (Schemas, later scopes win), a built-in schema
// (AssociativeMatchResult, DevelopmentPlan, FeedbackResult,
// CombinedAnalysisResult, StructuredAnalysisResult, ControllerAnalysisResult,
// written as JSON Schema 2020-12 under builtin/schemas with their conditional
// requirements) or a shorthand (object, array, string[], number, boolean). A
// dotted name uses its last segment. Schemas are compiled by the
// subpackage jsonschema (draft 2020-12, every violation reported, nothing
// computed at program start); a schema may not $ref another document. Schema.Validate returns "JSON-POINTER: message" strings for
// notes.schemaError (SPEC §14.8).
//
// # Loading
//
// Load reads the built-in templates (builtin/*.xml, SPEC §10.6) and the
// directories of Sources in scope order, each searched recursively in
// lexical path order, and returns a Set: every template with its scope,
// path and line, ShadowedBy for replaced ones, and the templates to register
// in order. Shadowing produces the warnings of SPEC §10.1; paths are shown
// relative to the working directory when below it, else with ~ for the home
// directory (DisplayPath). ProjectRoot finds the project root of SPEC §2,
// never looking at or above a directory of $EVALRUN_CEILING_DIRECTORIES.
//
// # Placeholders
//
// A template text is compiled once with Parse into a Text, a list of literal
// chunks and placeholders, so that rendering is a single fast walk. The
// placeholder expression between the braces is read with a small participle
// grammar; everything around it is scanned by hand. Errors carry the byte
// offset, line and column inside the text so that the loader can point into
// the XML file.
//
//	set, diags := templates.Load(templates.LoadOptions{Sources: templates.DefaultSources(wd, flagDirs)})
//	for _, d := range diags {
//		os.Stderr.WriteString(d.Display()) // errors and shadowing warnings
//	}
//	if templates.HasErrors(diags) {
//		os.Exit(3)
//	}
//	for _, t := range set.Templates() {
//		registry.Add(t)
//	}
//
//	txt, err := templates.Parse(`Review {{ files | join(", ") }} for {{ focus | default("bugs") }}.`)
//	if err != nil {
//		return err // invalid placeholder {{ … }}: …
//	}
//	text, missing := txt.Render(func(root string) (value.Value, bool) {
//		if root == "files" {
//			return value.List{value.String("a.go"), value.String("b.go")}, true
//		}
//		return nil, false
//	})
//	// text == "Review a.go, b.go for bugs.", missing == nil
package templates
