package templates

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/sexp"
)

// Sources are the template directories of SPEC §10.1 besides the built-in
// templates. An empty Global or Local is not searched. Relative paths are
// resolved against LoadOptions.WorkDir.
type Sources struct {
	// Global is the global directory: $EVALRUN_HOME/templates, else
	// ~/.config/evalrun/templates.
	Global string
	// Local is .evalrun/templates under the project root.
	Local string
	// Dirs are the --templates directories, in the order given.
	Dirs []string
}

// DefaultSources returns the directories of SPEC §10.1 for the working
// directory wd: the global directory from EVALRUN_HOME or the home
// directory, the local directory under ProjectRoot(wd), and dirs.
func DefaultSources(wd string, dirs []string) Sources {
	s := Sources{Dirs: slices.Clone(dirs)}
	if dir := GlobalDir(); dir != "" {
		s.Global = filepath.Join(dir, "templates")
	}
	if wd != "" {
		s.Local = filepath.Join(ProjectRoot(wd), ".evalrun", "templates")
	}
	return s
}

// GlobalDir returns evalrun's global configuration directory (SPEC §17.8,
// §18): $EVALRUN_HOME when set, else ~/.config/evalrun, or "" when neither
// is known.
func GlobalDir() string {
	if h := os.Getenv("EVALRUN_HOME"); h != "" {
		return h
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".config", "evalrun")
	}
	return ""
}

// CeilingEnv is the environment variable that bounds project-root
// discovery, in the manner of git's GIT_CEILING_DIRECTORIES: a list of
// absolute directories separated by the path-list separator (':' on Unix).
// Discovery never looks at a ceiling directory or above it; relative and
// empty entries are ignored. Tests set it to their temporary root so that
// an .evalrun/ or .git above it plays no part.
const CeilingEnv = "EVALRUN_CEILING_DIRECTORIES"

// ProjectRoot returns the project root of the glossary of SPEC §2: the
// nearest ancestor of wd (wd itself included) that contains a directory
// .evalrun or an entry .git (a directory, or the file of a git worktree);
// otherwise wd. The search stops below the directories of
// $EVALRUN_CEILING_DIRECTORIES (CeilingEnv). wd should be absolute; it is
// cleaned.
func ProjectRoot(wd string) string {
	return ProjectRootBelow(wd, Ceilings(os.Getenv(CeilingEnv)))
}

// Ceilings parses a value of CeilingEnv: the absolute entries of the
// path list, cleaned, each also with its symbolic links resolved when
// that gives another path.
func Ceilings(list string) []string {
	var out []string
	for _, d := range filepath.SplitList(list) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		out = append(out, d)
		if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
			out = append(out, r)
		}
	}
	return out
}

// ProjectRootBelow is ProjectRoot with the ceiling directories given:
// walking up from wd, it stops before it reaches a directory of ceilings,
// so neither that directory nor any above it is looked at. When wd itself
// is a ceiling only wd is looked at; without a marker the root is wd.
func ProjectRootBelow(wd string, ceilings []string) string {
	wd = filepath.Clean(wd)
	for dir := wd; ; {
		if fi, err := os.Stat(filepath.Join(dir, ".evalrun")); err == nil && fi.IsDir() {
			return dir
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir || slices.Contains(ceilings, dir) || slices.Contains(ceilings, parent) {
			return wd
		}
		dir = parent
	}
}

// DisplayPath returns path as evalrun shows it (SPEC §10.1): relative to the
// working directory wd when it lies below it, else with "~" for the home
// directory home when below that, else absolute; always with "/"
// separators. An empty wd or home is not used.
func DisplayPath(path, wd, home string) string {
	abs := path
	if !filepath.IsAbs(abs) && wd != "" {
		abs = filepath.Join(wd, abs)
	}
	abs = filepath.Clean(abs)
	if wd != "" {
		if rel, ok := below(abs, wd); ok {
			return filepath.ToSlash(rel)
		}
	}
	if home != "" {
		if rel, ok := below(abs, home); ok {
			if rel == "." {
				return "~"
			}
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// below returns path relative to dir when path is dir or lies inside it.
func below(path, dir string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(dir), path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// LoadOptions configures Load.
type LoadOptions struct {
	// Sources are the directories to search after the built-in templates;
	// use DefaultSources for the standard ones.
	Sources Sources
	// WorkDir is the working directory, for relative source paths and for
	// showing paths; "" means os.Getwd.
	WorkDir string
	// Home is the home directory shown as "~"; "" means os.UserHomeDir.
	Home string
	// NoBuiltin leaves out the built-in templates (for tests and tools).
	NoBuiltin bool
	// KnownTools and KnownRoles, when not nil, check <allowed_tools> and
	// role (SPEC §9.4) as WithKnownTools and WithKnownRoles do. They may be
	// called from several goroutines at once.
	KnownTools func(name string) bool
	KnownRoles func(name string) bool
	// ConfigTasks are the templates of the configuration's [tasks.NAME]
	// tables (FromConfigTask), registered after the XML templates of their
	// scope (SPEC §22.6).
	ConfigTasks []*Template
}

// Dir is one template directory searched by Load.
type Dir struct {
	// Scope is the directory's scope: global, local or dir (builtin for the
	// built-in templates, which have no directory).
	Scope Scope
	// Path is the absolute path; "" for the built-in templates.
	Path string
	// Display is the path as shown (DisplayPath); "" for the built-in
	// templates.
	Display string
	// Exists is false for a missing directory, which is skipped silently.
	Exists bool
}

// Entry is one template found by Load, including the ones a later scope
// shadowed, for `templates list` (SPEC §10.4).
type Entry struct {
	// Template is the template; its Scope, Path (shown as DisplayPath),
	// Line and Col are its provenance.
	Template *Template
	// Dir is the directory it was found in.
	Dir *Dir
	// RelPath is the file's path relative to Dir with "/" separators, or
	// "<builtin>" for a built-in template.
	RelPath string
	// ShadowedBy is the template of a later scope that replaced this one
	// (SPEC §10.1), or nil.
	ShadowedBy *Template
}

// Set is the result of Load: every template found with its provenance, in
// load order (scope order, then lexical file order, then document order).
type Set struct {
	// Entries lists every valid template found, shadowed ones included.
	Entries []*Entry
	// Dirs lists the searched directories in scope order, the built-in
	// pseudo-directory first.
	Dirs []*Dir
	// Schemas resolves output schema names: the NAME.schema.json files of
	// all directories (later scopes win), then the built-ins.
	Schemas *Schemas
}

// Templates returns the templates to register, in load order: every entry
// that no later scope shadowed. Registering them in this order (or all
// entries in order, since a registration replaces a template of the same
// name) gives the registry of SPEC §10.2.
func (s *Set) Templates() []*Template {
	var ts []*Template
	for _, e := range s.Entries {
		if e.ShadowedBy == nil {
			ts = append(ts, e.Template)
		}
	}
	return ts
}

// Lookup returns the template called name, by name and then alias, among
// the templates that are not shadowed.
func (s *Set) Lookup(name string) (*Template, bool) {
	var byAlias *Template
	for _, e := range s.Entries {
		if e.ShadowedBy != nil {
			continue
		}
		if e.Template.Name == name {
			return e.Template, true
		}
		if e.Template.Alias == name {
			byAlias = e.Template
		}
	}
	return byAlias, byAlias != nil
}

// ListItem is one line of `templates list --json` (SPEC §10.4).
type ListItem struct {
	Name        string  `json:"name"`
	Alias       *string `json:"alias"`
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	Description string  `json:"description"`
	Scope       string  `json:"scope"`
	// Path is the file as shown in the text listing: relative to the
	// group's directory, "<builtin>" for built-in templates.
	Path string `json:"path"`
	Line int    `json:"line"`
	// ShadowedBy is the scope of the template that replaced this one.
	ShadowedBy *string `json:"shadowed_by"`
	// Dir is the group's directory as shown in the text listing's heading
	// ("" for builtin); not part of the JSON form.
	Dir string `json:"-"`
}

// List returns the listing of SPEC §10.4: every entry in load order, which
// is grouped by scope.
func (s *Set) List() []ListItem {
	items := make([]ListItem, 0, len(s.Entries))
	for _, e := range s.Entries {
		t := e.Template
		it := ListItem{
			Name: t.Name, Type: t.Type, Subtype: t.Subtype, Description: t.Description,
			Scope: t.Scope.String(), Path: e.RelPath, Line: t.Line, Dir: e.Dir.Display,
		}
		if t.Alias != "" {
			a := t.Alias
			it.Alias = &a
		}
		if e.ShadowedBy != nil {
			sc := e.ShadowedBy.Scope.String()
			it.ShadowedBy = &sc
		}
		items = append(items, it)
	}
	return items
}

// Load loads the built-in templates and the templates of opts.Sources
// (SPEC §10.1): builtin < global < local < each --templates directory in
// order; a later one replaces a template of the same name whole. Each
// directory is searched recursively in lexical path order for *.xml
// template files and NAME.schema.json schema files, skipping entries whose
// names start with "."; missing directories are skipped silently, a
// directory given twice is searched once. Templates are validated as by
// ParseFile; two templates with the same name or alias in one directory
// are an error. The diagnostics hold every error and warning, in load
// order, including the shadowing warnings of SPEC §10.1 (without position).
// The Set holds the valid templates; the caller must treat any error as a
// validation failure (exit 3).
func Load(opts LoadOptions) (*Set, []Diagnostic) {
	wd := opts.WorkDir
	if wd == "" {
		wd, _ = os.Getwd()
	}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	l := &loader{wd: wd, home: home, set: &Set{Schemas: NewSchemas()}}

	// The directories, in scope order.
	builtinDir := &Dir{Scope: ScopeBuiltin, Exists: true}
	l.set.Dirs = append(l.set.Dirs, builtinDir)
	seen := map[string]bool{}
	addDir := func(scope Scope, path string) {
		if path == "" {
			return
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join(wd, path)
		}
		path = filepath.Clean(path)
		if seen[path] {
			return
		}
		seen[path] = true
		d := &Dir{Scope: scope, Path: path, Display: DisplayPath(path, wd, home)}
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			if !os.IsNotExist(err) {
				l.diags = append(l.diags, Diagnostic{Severity: SeverityError, Msg: "cannot read template directory " + d.Display + ": " + errText(err)})
			}
		case !fi.IsDir():
			l.diags = append(l.diags, Diagnostic{Severity: SeverityError, Msg: "template directory " + d.Display + " is not a directory"})
		default:
			d.Exists = true
		}
		l.set.Dirs = append(l.set.Dirs, d)
	}
	addDir(ScopeGlobal, opts.Sources.Global)
	addDir(ScopeLocal, opts.Sources.Local)
	for _, d := range opts.Sources.Dirs {
		addDir(ScopeDir, d)
	}

	// Find the files of every directory, then load the schemas, which all
	// templates may name, then the templates.
	type dirFiles struct {
		dir     *Dir
		xml     []string // relative paths with "/" separators
		schemas []string
	}
	var all []dirFiles
	for _, d := range l.set.Dirs[1:] {
		if !d.Exists {
			continue
		}
		xmlFiles, schemaFiles := l.walk(d)
		all = append(all, dirFiles{d, xmlFiles, schemaFiles})
	}
	for _, df := range all {
		first := map[string]string{}
		for _, rel := range df.schemas {
			path := filepath.Join(df.dir.Path, filepath.FromSlash(rel))
			display := DisplayPath(path, wd, home)
			data, err := os.ReadFile(path)
			if err != nil {
				l.diags = append(l.diags, Diagnostic{Severity: SeverityError, Msg: "cannot read " + display + ": " + errText(err)})
				continue
			}
			sch, diags := ParseSchemaFile(display, data)
			l.diags = append(l.diags, diags...)
			if sch == nil {
				continue
			}
			if prev, dup := first[sch.Name]; dup {
				l.diags = append(l.diags, Diagnostic{Pos: sexp.Pos{Src: sexp.NewSource(display, string(data))}, Severity: SeverityError,
					Msg: "duplicate schema name '" + sch.Name + "' (first defined in " + prev + ")"})
				continue
			}
			first[sch.Name] = display
			l.set.Schemas.Add(sch)
		}
	}

	cfg := &parseConfig{knownTools: opts.KnownTools, knownRoles: opts.KnownRoles, schemas: l.set.Schemas}
	if !opts.NoBuiltin {
		for _, f := range builtinFiles() {
			fr := parseFile(f.name, f.data, ScopeBuiltin, cfg)
			fr.diags = append(fr.diags, checkDuplicates(map[string]*parsedTemplate{}, fr.templates)...)
			sortDiagnostics(fr.diags)
			l.diags = append(l.diags, fr.diags...)
			for _, t := range fr.valid() {
				l.add(&Entry{Template: t, Dir: builtinDir, RelPath: "<builtin>"})
			}
		}
	}
	configTasks := configTaskAdder(l, opts.ConfigTasks)
	for _, df := range all {
		configTasks(df.dir.Scope - 1)
		paths := make([]string, len(df.xml))
		displays := make([]string, len(df.xml))
		for i, rel := range df.xml {
			paths[i] = filepath.Join(df.dir.Path, filepath.FromSlash(rel))
			displays[i] = DisplayPath(paths[i], wd, home)
		}
		results := parseFiles(paths, displays, df.dir.Scope, cfg)
		idx := map[string]*parsedTemplate{}
		for i, fr := range results {
			fr.diags = append(fr.diags, checkDuplicates(idx, fr.templates)...)
			sortDiagnostics(fr.diags)
			l.diags = append(l.diags, fr.diags...)
			for _, t := range fr.valid() {
				l.add(&Entry{Template: t, Dir: df.dir, RelPath: df.xml[i]})
			}
		}
		configTasks(df.dir.Scope)
	}
	configTasks(ScopeDefatom)
	return l.set, l.diags
}

// loader is the state of one Load.
type loader struct {
	wd, home string
	set      *Set
	diags    []Diagnostic
	byName   map[string]*Entry // live templates by name
	byAlias  map[string]*Entry // live templates by alias
}

// walk lists the template and schema files below d in lexical order of
// their relative paths, skipping entries whose names start with ".".
func (l *loader) walk(d *Dir) (xmlFiles, schemaFiles []string) {
	err := filepath.WalkDir(d.Path, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			l.diags = append(l.diags, Diagnostic{Severity: SeverityError,
				Msg: "cannot read " + DisplayPath(path, l.wd, l.home) + ": " + errText(err)})
			if e != nil && e.IsDir() && path != d.Path {
				return fs.SkipDir
			}
			return nil
		}
		if path == d.Path {
			return nil
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		isSchema := strings.HasSuffix(name, SchemaSuffix)
		if !isSchema && !strings.HasSuffix(name, ".xml") {
			return nil
		}
		if !e.Type().IsRegular() {
			// A symbolic link is followed when it names a regular file.
			if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		}
		rel, err := filepath.Rel(d.Path, path)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if isSchema {
			schemaFiles = append(schemaFiles, rel)
		} else {
			xmlFiles = append(xmlFiles, rel)
		}
		return nil
	})
	if err != nil {
		l.diags = append(l.diags, Diagnostic{Severity: SeverityError, Msg: "cannot read " + d.Display + ": " + errText(err)})
	}
	slices.Sort(xmlFiles)
	slices.Sort(schemaFiles)
	return xmlFiles, schemaFiles
}

// parseFiles reads and parses the files concurrently; the results are in
// the order of paths. A file that cannot be read gives an error.
func parseFiles(paths, displays []string, scope Scope, cfg *parseConfig) []*fileResult {
	results := make([]*fileResult, len(paths))
	work := func(i int) {
		data, err := os.ReadFile(paths[i])
		if err != nil {
			results[i] = &fileResult{diags: []Diagnostic{{Severity: SeverityError, Msg: "cannot read " + displays[i] + ": " + errText(err)}}}
			return
		}
		results[i] = parseFile(displays[i], data, scope, cfg)
	}
	workers := min(runtime.GOMAXPROCS(0), len(paths))
	if workers <= 1 {
		for i := range paths {
			work(i)
		}
		return results
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				work(i)
			}
		})
	}
	for i := range paths {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// add records a template in load order, replacing a live template of the
// same name and warning about it and about aliases taken over (SPEC §10.1).
func (l *loader) add(e *Entry) {
	if l.byName == nil {
		l.byName = map[string]*Entry{}
		l.byAlias = map[string]*Entry{}
	}
	t := e.Template
	warn := func(msg string) {
		l.diags = append(l.diags, Diagnostic{Severity: SeverityWarning, Msg: msg})
	}
	if old := l.byName[t.Name]; old != nil {
		warn("template '" + t.Name + "' from " + fromText(t) + " shadows " + fromText(old.Template))
		old.ShadowedBy = t
		delete(l.byName, t.Name)
		if a := old.Template.Alias; a != "" && l.byAlias[a] == old {
			delete(l.byAlias, a)
		}
	}
	if old := l.byAlias[t.Name]; old != nil {
		warn("template '" + t.Name + "' from " + fromText(t) + " shadows the alias of " + old.Template.Name + " " + originText(old.Template))
	}
	if a := t.Alias; a != "" {
		if old := l.byAlias[a]; old != nil {
			warn("alias '" + a + "' of " + t.Name + " " + originText(t) + " shadows the alias of " + old.Template.Name + " " + originText(old.Template))
		}
		if old := l.byName[a]; old != nil {
			warn("alias '" + a + "' of " + t.Name + " " + originText(t) + " is hidden by the template named " + a + " " + originText(old.Template))
		}
		l.byAlias[a] = e
	}
	l.byName[t.Name] = e
	l.set.Entries = append(l.set.Entries, e)
}

// fromText describes where t came from as the shadowing warning does:
// "local (.evalrun/templates/review.xml:1)", or "builtin".
func fromText(t *Template) string {
	if t.Path == "" {
		return t.Scope.String()
	}
	return t.Scope.String() + " (" + t.Path + ":" + strconv.Itoa(t.Line) + ")"
}

// originText describes where t came from as the alias warning does:
// "(local .evalrun/templates/review.xml:1)", or "(builtin)".
func originText(t *Template) string { return "(" + t.Source() + ")" }

// errText returns the message of a file system error without the path,
// which the caller writes itself.
func errText(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
