package templates

import (
	"embed"
	"io/fs"
	"slices"
	"sync"
)

//go:embed builtin/*.xml
var builtinFS embed.FS

// builtinFile is one embedded template file.
type builtinFile struct {
	name string // "<builtin>/NAME.xml", the name used in positions
	data []byte
}

// builtinFiles returns the embedded template files in lexical order.
func builtinFiles() []builtinFile {
	names, _ := fs.Glob(builtinFS, "builtin/*.xml")
	slices.Sort(names)
	files := make([]builtinFile, 0, len(names))
	for _, n := range names {
		data, _ := builtinFS.ReadFile(n)
		files = append(files, builtinFile{name: "<builtin>/" + n[len("builtin/"):], data: data})
	}
	return files
}

// Builtin returns the built-in templates of SPEC §10.6,
// internal:associative_matching_content and
// internal:associative_matching_metadata, parsed from the XML embedded in the
// binary, in scope builtin. They are shared: callers must not change them.
func Builtin() []*Template { return slices.Clone(builtinTemplates()) }

var builtinTemplates = sync.OnceValue(func() []*Template {
	var ts []*Template
	for _, f := range builtinFiles() {
		parsed, diags := ParseFile(f.name, f.data, ScopeBuiltin)
		if HasErrors(diags) {
			panic("templates: invalid built-in template " + f.name + ": " + diags[0].Error())
		}
		ts = append(ts, parsed...)
	}
	return ts
})

// BuiltinXML returns the XML text of the embedded template files, keyed by
// file name ("associative_matching.xml"), for `templates show` and for
// copying a built-in template into a project to tune it.
func BuiltinXML() map[string]string {
	m := map[string]string{}
	for _, f := range builtinFiles() {
		m[f.name[len("<builtin>/"):]] = string(f.data)
	}
	return m
}
