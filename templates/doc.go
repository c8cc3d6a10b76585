// Package templates is evalrun's model of atomic-task templates (SPEC §9):
// the Template type shared by XML files and defatom forms, input inference
// and validation, the name and type rules, and the {{placeholder | filter}}
// expressions of SPEC §12 with their substitution.
//
// A template text is compiled once with Parse into a Text, a list of literal
// chunks and placeholders, so that rendering is a single fast walk. The
// placeholder expression between the braces is read with a small participle
// grammar; everything around it is scanned by hand. Errors carry the byte
// offset, line and column inside the text so that the loader can point into
// the XML file.
//
// Infer prepares a Template for execution: it compiles every text that may
// hold placeholders, checks them, infers the inputs when none are declared
// (SPEC §9.3) and caches the compiled Parts. The package knows nothing of
// the evaluator or of how templates are looked up and run; that is the task
// system's job.
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
