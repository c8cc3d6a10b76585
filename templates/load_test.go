package templates

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// env is a temporary home directory and project for the scope tests: HOME
// is set to home, EVALRUN_HOME is unset and the working directory is the
// project, which has a .git directory.
type env struct {
	home, proj string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{home: filepath.Join(root, "home"), proj: filepath.Join(root, "work", "proj")}
	for _, d := range []string{e.home, filepath.Join(e.proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", e.home)
	t.Setenv("EVALRUN_HOME", "")
	os.Unsetenv("EVALRUN_HOME")
	t.Chdir(e.proj)
	return e
}

func (e *env) global(t *testing.T, rel, text string) {
	write(t, e.home, ".config/evalrun/templates/"+rel, text)
}
func (e *env) local(t *testing.T, rel, text string) {
	write(t, e.proj, ".evalrun/templates/"+rel, text)
}

// load loads with the default sources and the given --templates dirs.
func (e *env) load(t *testing.T, dirs ...string) (*Set, []string) {
	t.Helper()
	set, diags := Load(LoadOptions{Sources: DefaultSources(mustGetwd(t), dirs), NoBuiltin: true})
	var lines []string
	for _, d := range diags {
		lines = append(lines, strings.TrimSuffix(d.Display(), "\n"))
	}
	return set, lines
}

func tmpl(name, alias, desc string) string {
	a := ""
	if alias != "" {
		a = ` alias="` + alias + `"`
	}
	return `<task name="` + name + `"` + a + ` type="atomic"><description>` + desc + `</description><instructions>Do it.</instructions></task>`
}

func names(ts []*Template) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Scope.String()+" "+t.Name)
	}
	return out
}

// TestLoadShadowing is the example of SPEC §10.1 and §10.4.
func TestLoadShadowing(t *testing.T) {
	e := newEnv(t)
	e.global(t, "review.xml", tmpl("review/git-diff", "gdr", "Security review of the diff"))
	e.local(t, "review.xml", tmpl("review/git-diff", "gdr", "Review the staged git diff for bugs and risky changes"))
	set, diags := e.load(t)
	want := []string{"warning: template 'review/git-diff' from local (.evalrun/templates/review.xml:1) shadows global (~/.config/evalrun/templates/review.xml:1)"}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"local review/git-diff"}, names(set.Templates())); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	if got, _ := set.Lookup("gdr"); got == nil || got.Scope != ScopeLocal {
		t.Errorf("Lookup(gdr) = %+v", got)
	}
	if got := set.Entries[1].Template.Source(); got != "local .evalrun/templates/review.xml:1" {
		t.Errorf("Source() = %q", got)
	}
	data, err := json.Marshal(set.List())
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `[{"name":"review/git-diff","alias":"gdr","type":"atomic","subtype":"standard","description":"Security review of the diff","scope":"global","path":"review.xml","line":1,"shadowed_by":"local"},` +
		`{"name":"review/git-diff","alias":"gdr","type":"atomic","subtype":"standard","description":"Review the staged git diff for bugs and risky changes","scope":"local","path":"review.xml","line":1,"shadowed_by":null}]`
	if string(data) != wantJSON {
		t.Errorf("List JSON:\n got %s\nwant %s", data, wantJSON)
	}
	var dirs []string
	for _, d := range set.Dirs {
		dirs = append(dirs, d.Scope.String()+" "+d.Display)
	}
	if diff := cmp.Diff([]string{"builtin ", "global ~/.config/evalrun/templates", "local .evalrun/templates"}, dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
	if it := set.List()[0]; it.Dir != "~/.config/evalrun/templates" {
		t.Errorf("List()[0].Dir = %q", it.Dir)
	}
}

// TestLoadAliases checks the alias rules of SPEC §10.1.
func TestLoadAliases(t *testing.T) {
	e := newEnv(t)
	e.global(t, "old.xml", "\n"+tmpl("review/old", "gdr", "old"))
	e.global(t, "other.xml", tmpl("other", "oth", "other"))
	e.global(t, "named.xml", tmpl("short", "", "named"))
	e.local(t, "diff.xml", tmpl("review/diff", "gdr", "new"))
	e.local(t, "oth.xml", tmpl("oth", "", "takes an alias as name"))
	e.local(t, "hidden.xml", tmpl("long-name", "short", "alias is an older name"))
	set, diags := e.load(t)
	want := []string{
		"warning: alias 'gdr' of review/diff (local .evalrun/templates/diff.xml:1) shadows the alias of review/old (global ~/.config/evalrun/templates/old.xml:2)",
		"warning: alias 'short' of long-name (local .evalrun/templates/hidden.xml:1) is hidden by the template named short (global ~/.config/evalrun/templates/named.xml:1)",
		"warning: template 'oth' from local (.evalrun/templates/oth.xml:1) shadows the alias of other (global ~/.config/evalrun/templates/other.xml:1)",
	}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if got, _ := set.Lookup("gdr"); got == nil || got.Name != "review/diff" {
		t.Errorf("Lookup(gdr) = %+v", got)
	}
	if got, _ := set.Lookup("short"); got == nil || got.Name != "short" {
		t.Errorf("Lookup(short) = %+v", got)
	}
	// No template is replaced by name: none is shadowed.
	if n := len(set.Templates()); n != 6 {
		t.Errorf("%d templates, want 6", n)
	}
}

// TestLoadReplacedAliasDisappears checks that a template replaced by name
// loses its alias (SPEC §10.1).
func TestLoadReplacedAliasDisappears(t *testing.T) {
	e := newEnv(t)
	e.global(t, "a.xml", tmpl("review", "rv", "old"))
	e.local(t, "a.xml", tmpl("review", "", "new"))
	set, _ := e.load(t)
	if got, ok := set.Lookup("rv"); ok {
		t.Errorf("Lookup(rv) = %+v, want nothing", got)
	}
}

// TestLoadEvalrunHome checks $EVALRUN_HOME/templates and the display of
// paths outside the working and home directories.
func TestLoadEvalrunHome(t *testing.T) {
	e := newEnv(t)
	e.global(t, "a.xml", tmpl("from-config", "", "ignored when EVALRUN_HOME is set"))
	evh := filepath.Join(filepath.Dir(e.home), "evalrun-home")
	t.Setenv("EVALRUN_HOME", evh)
	write(t, evh, "templates/a.xml", tmpl("x", "", "global"))
	e.local(t, "a.xml", tmpl("x", "", "local"))
	set, diags := e.load(t)
	abs := filepath.ToSlash(filepath.Join(evh, "templates", "a.xml"))
	want := []string{"warning: template 'x' from local (.evalrun/templates/a.xml:1) shadows global (" + abs + ":1)"}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"local x"}, names(set.Templates())); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

// TestLoadFromSubdirectory runs from a subdirectory of the project: the
// local directory lies above the working directory and is shown under ~
// when below home, else absolute.
func TestLoadFromSubdirectory(t *testing.T) {
	e := newEnv(t)
	e.local(t, "a.xml", tmpl("x", "", "local"))
	write(t, e.proj, "sub/tpl/b.xml", tmpl("x", "", "dir"))
	t.Chdir(filepath.Join(e.proj, "sub"))
	set, diags := e.load(t, "tpl")
	localAbs := filepath.ToSlash(filepath.Join(e.proj, ".evalrun", "templates", "a.xml"))
	want := []string{"warning: template 'x' from dir (tpl/b.xml:1) shadows local (" + localAbs + ":1)"}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dir x"}, names(set.Templates())); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

// TestLoadProjectUnderHome shows paths of a project below the home
// directory, run from outside the project.
func TestLoadProjectUnderHome(t *testing.T) {
	e := newEnv(t)
	proj := filepath.Join(e.home, "code", "app")
	write(t, proj, ".evalrun/templates/a.xml", tmpl("x", "", "local"))
	e.global(t, "a.xml", tmpl("x", "", "global"))
	t.Chdir(e.home)
	set, diags := Load(LoadOptions{Sources: DefaultSources(proj, nil), NoBuiltin: true})
	want := "warning: template 'x' from local (code/app/.evalrun/templates/a.xml:1) shadows global (.config/evalrun/templates/a.xml:1)\n"
	if len(diags) != 1 || diags[0].Display() != want {
		t.Errorf("diagnostics = %q, want %q", diagLines(diags), want)
	}
	if set.Dirs[2].Display != "code/app/.evalrun/templates" {
		t.Errorf("local dir shown as %q", set.Dirs[2].Display)
	}
}

// TestLoadDirsInOrder checks --templates directories: later ones win, each
// directory is its own level, a directory given twice is read once, missing
// ones are skipped silently and a file is an error.
func TestLoadDirsInOrder(t *testing.T) {
	e := newEnv(t)
	write(t, e.proj, "a/x.xml", tmpl("x", "", "a"))
	write(t, e.proj, "b/x.xml", tmpl("x", "", "b"))
	write(t, e.proj, "file.xml", tmpl("f", "", "f"))
	set, diags := e.load(t, "a", "missing", "b", "./a", filepath.Join(e.proj, "b"), "file.xml")
	want := []string{
		"evalrun: template directory file.xml is not a directory",
		"warning: template 'x' from dir (b/x.xml:1) shadows dir (a/x.xml:1)",
	}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if got, _ := set.Lookup("x"); got == nil || got.Description != "b" {
		t.Errorf("Lookup(x) = %+v", got)
	}
	var dirs []string
	for _, d := range set.Dirs[1:] {
		dirs = append(dirs, d.Display+" "+map[bool]string{true: "exists", false: "missing"}[d.Exists])
	}
	wantDirs := []string{
		"~/.config/evalrun/templates missing", ".evalrun/templates missing",
		"a exists", "missing missing", "b exists", "file.xml missing",
	}
	if diff := cmp.Diff(wantDirs, dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
}

// TestLoadFileOrder checks the recursive search in lexical path order and
// the skipping of entries whose names start with '.'.
func TestLoadFileOrder(t *testing.T) {
	e := newEnv(t)
	for _, rel := range []string{"b.xml", "a/z.xml", "a.xml", "a/b/c.xml", "a-b.xml", "A.xml"} {
		name := strings.NewReplacer("/", "-", ".xml", "").Replace(rel) + "-t"
		e.local(t, rel, tmpl(name, "", rel))
	}
	for _, rel := range []string{".hidden.xml", ".git/x.xml", "a/.x.xml", "notes.txt", "x.xml.bak", "x.XML"} {
		e.local(t, rel, "not a template")
	}
	if err := os.Symlink(filepath.Join(e.proj, ".evalrun", "templates", "b.xml"), filepath.Join(e.proj, ".evalrun", "templates", "link.xml")); err != nil {
		t.Fatal(err)
	}
	set, diags := e.load(t)
	var got []string
	for _, en := range set.Entries {
		got = append(got, en.RelPath)
	}
	// link.xml is a second definition of b-t in the same directory.
	want := []string{"A.xml", "a-b.xml", "a.xml", "a/b/c.xml", "a/z.xml", "b.xml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("file order (-want +got):\n%s", diff)
	}
	wantD := []string{"" +
		".evalrun/templates/link.xml:1:1: duplicate template name 'b-t' (first defined at .evalrun/templates/b.xml:1:1)\n" +
		tmpl("b-t", "", "b.xml") + "\n^"}
	if diff := cmp.Diff(wantD, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

// TestLoadDuplicatesInOneDirectory checks duplicate names and aliases across
// the files of one scope (SPEC §9.4).
func TestLoadDuplicatesInOneDirectory(t *testing.T) {
	e := newEnv(t)
	e.local(t, "a.xml", "<tasks>\n  "+tmpl("x", "ex", "a")+"\n</tasks>")
	e.local(t, "b.xml", "\n\n"+tmpl("y", "x", "b"))
	e.local(t, "c.xml", tmpl("ex", "", "c"))
	set, diags := Load(LoadOptions{Sources: DefaultSources(mustGetwd(t), nil), NoBuiltin: true})
	want := []string{
		".evalrun/templates/b.xml:3:16: duplicate template name 'x' (first defined at .evalrun/templates/a.xml:2:3)",
		".evalrun/templates/c.xml:1:1: duplicate template name 'ex' (first defined at .evalrun/templates/a.xml:2:3)",
	}
	if diff := cmp.Diff(want, diagLines(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"local x"}, names(set.Templates())); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

// TestLoadBuiltinShadowed checks that a built-in template may be replaced by
// name (SPEC §10.6).
func TestLoadBuiltinShadowed(t *testing.T) {
	e := newEnv(t)
	e.local(t, "am.xml", `<task name="internal:associative_matching_content" type="atomic" subtype="associative_matching">
  <description>Tuned</description>
  <instructions>{{context_input.query}} {{file_contents}}</instructions>
  <output_format type="json" schema="AssociativeMatchResult"/>
</task>`)
	set, diags := Load(LoadOptions{Sources: DefaultSources(mustGetwd(t), nil)})
	want := []string{"warning: template 'internal:associative_matching_content' from local (.evalrun/templates/am.xml:1) shadows builtin"}
	if diff := cmp.Diff(want, diagLines(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	got := names(set.Templates())
	wantNames := []string{"builtin internal:associative_matching_metadata", "local internal:associative_matching_content"}
	if diff := cmp.Diff(wantNames, got); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	list := set.List()
	if list[0].Path != "<builtin>" || list[0].Scope != "builtin" || list[0].ShadowedBy == nil || *list[0].ShadowedBy != "local" {
		t.Errorf("List()[0] = %+v", list[0])
	}
}

// TestLoadSchemasAcrossScopes checks that NAME.schema.json files of any
// directory are visible to all templates and that later scopes win.
func TestLoadSchemasAcrossScopes(t *testing.T) {
	e := newEnv(t)
	e.global(t, "schemas/Review.schema.json", `{"type": "object"}`)
	e.global(t, "g.xml", `<task name="g" type="atomic"><description>d</description><instructions>i</instructions><output_format type="json" schema="Review"/></task>`)
	e.local(t, "Review.schema.json", `{"type": "array"}`)
	e.local(t, "Only.schema.json", `{"type": "string"}`)
	e.local(t, "sub/Only.schema.json", `{"type": "number"}`)
	e.local(t, "Bad.schema.json", `{"type": }`)
	set, diags := e.load(t)
	want := []string{
		".evalrun/templates/Bad.schema.json:1:10: invalid JSON: invalid character '}' looking for beginning of value\n{\"type\": }\n         ^",
		".evalrun/templates/sub/Only.schema.json:1:1: duplicate schema name 'Only' (first defined in .evalrun/templates/Only.schema.json)\n{\"type\": \"number\"}\n^",
	}
	if diff := cmp.Diff(want, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	g, _ := set.Lookup("g")
	if g == nil || g.OutputFormat.Compiled.Origin != ".evalrun/templates/Review.schema.json" {
		t.Errorf("g's schema: %+v", g)
	}
	var files []string
	for _, s := range set.Schemas.Files() {
		files = append(files, s.Name+" "+s.Origin)
	}
	wantFiles := []string{"Only .evalrun/templates/Only.schema.json", "Review .evalrun/templates/Review.schema.json"}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("schema files (-want +got):\n%s", diff)
	}
}

// TestLoadKnownToolsAndRoles passes the checks through Load.
func TestLoadKnownToolsAndRoles(t *testing.T) {
	e := newEnv(t)
	e.local(t, "a.xml", `<task name="a" type="atomic" role="boss"><description>d</description><instructions>i</instructions>
<allowed_tools><tool>grep</tool></allowed_tools></task>`)
	_, diags := Load(LoadOptions{
		Sources:    DefaultSources(mustGetwd(t), nil),
		KnownTools: func(string) bool { return false },
		KnownRoles: func(string) bool { return false },
		NoBuiltin:  true,
	})
	want := []string{
		".evalrun/templates/a.xml:1:30: unknown role 'boss': no [roles.boss] in the configuration",
		".evalrun/templates/a.xml:2:16: unknown tool 'grep' in <allowed_tools>",
	}
	if diff := cmp.Diff(want, diagLines(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestProjectRoot(t *testing.T) {
	root := t.TempDir()
	write(t, root, "git/.git/HEAD", "ref")
	write(t, root, "git/a/b/file", "")
	write(t, root, "git/a/.evalrun/config.toml", "")
	write(t, root, "worktree/.git", "gitdir: elsewhere")
	write(t, root, "worktree/x/file", "")
	write(t, root, "plain/x/file", "")
	write(t, root, "fake/.evalrun", "a file, not a directory")
	write(t, root, "fake/y/file", "")
	tests := []struct{ wd, want string }{
		{"git", "git"},
		{"git/a", "git/a"},
		{"git/a/b", "git/a"},
		{"git/a/.evalrun", "git/a"},
		{"worktree/x", "worktree"},
		{"fake/y", "fake/y"},
	}
	for _, tt := range tests {
		got := ProjectRoot(filepath.Join(root, tt.wd) + "/")
		if want := filepath.Join(root, tt.want); got != want {
			t.Errorf("ProjectRoot(%s) = %s, want %s", tt.wd, got, want)
		}
	}
	// Without any marker up to the file system root, wd itself. (The
	// temporary directory may lie inside a repository, so use the root's
	// parent chain only when it has no marker.)
	if got := ProjectRoot(filepath.Join(root, "plain", "x")); !strings.HasPrefix(filepath.Join(root, "plain", "x"), got) {
		t.Errorf("ProjectRoot(plain/x) = %s", got)
	}
}

func TestDisplayPath(t *testing.T) {
	tests := []struct{ path, wd, home, want string }{
		{"/p/proj/.evalrun/templates/a.xml", "/p/proj", "/home/u", ".evalrun/templates/a.xml"},
		{"/home/u/.config/evalrun/templates/a.xml", "/p/proj", "/home/u", "~/.config/evalrun/templates/a.xml"},
		{"/home/u/proj/x.xml", "/home/u/proj", "/home/u", "x.xml"},
		{"/home/u/other/x.xml", "/home/u/proj", "/home/u", "~/other/x.xml"},
		{"/home/u", "/p", "/home/u", "~"},
		{"/p/proj", "/p/proj", "/home/u", "."},
		{"/p/project2/x.xml", "/p/proj", "/home/u", "/p/project2/x.xml"},
		{"/etc/x.xml", "/p/proj", "", "/etc/x.xml"},
		{"tpl/a.xml", "/p/proj", "/home/u", "tpl/a.xml"},
		{"../other/a.xml", "/p/proj", "/home/u", "/p/other/a.xml"},
	}
	for _, tt := range tests {
		if got := DisplayPath(tt.path, tt.wd, tt.home); got != tt.want {
			t.Errorf("DisplayPath(%q, %q, %q) = %q, want %q", tt.path, tt.wd, tt.home, got, tt.want)
		}
	}
}

func TestDefaultSources(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.proj, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	got := DefaultSources(sub, []string{"x", "y"})
	want := Sources{
		Global: filepath.Join(e.home, ".config", "evalrun", "templates"),
		Local:  filepath.Join(e.proj, ".evalrun", "templates"),
		Dirs:   []string{"x", "y"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefaultSources (-want +got):\n%s", diff)
	}
	t.Setenv("EVALRUN_HOME", "/opt/evalrun")
	if got := DefaultSources(sub, nil); got.Global != "/opt/evalrun/templates" {
		t.Errorf("Global = %q", got.Global)
	}
}

// TestLoadEmpty loads nothing but the built-in templates.
func TestLoadEmpty(t *testing.T) {
	newEnv(t)
	set, diags := Load(LoadOptions{Sources: DefaultSources(mustGetwd(t), nil)})
	if len(diags) > 0 {
		t.Fatal(diagLines(diags))
	}
	want := []string{"builtin internal:associative_matching_content", "builtin internal:associative_matching_metadata"}
	if diff := cmp.Diff(want, names(set.Templates()), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

func TestProjectRootCeiling(t *testing.T) {
	root := t.TempDir()
	write(t, root, "outer/.evalrun/config.toml", "")
	write(t, root, "outer/mid/.git", "gitdir: elsewhere")
	write(t, root, "outer/mid/in/deep/file", "")
	deep := filepath.Join(root, "outer", "mid", "in", "deep")
	tests := []struct {
		name, ceilings, want string
	}{
		{"none", "", "outer/mid"},
		{"above the markers", filepath.Join(root, "outer") + ":", "outer/mid"},
		{"at the nearest marker", filepath.Join(root, "outer", "mid"), "outer/mid/in/deep"},
		{"between", filepath.Join(root, "outer", "mid", "in"), "outer/mid/in/deep"},
		{"relative entries are ignored", "outer/mid/in", "outer/mid"},
		{"the second entry counts", "/nowhere:" + filepath.Join(root, "outer", "mid", "in"), "outer/mid/in/deep"},
		{"wd itself", deep, "outer/mid/in/deep"},
	}
	for _, tt := range tests {
		got := ProjectRootBelow(deep, Ceilings(tt.ceilings))
		if want := filepath.Join(root, tt.want); got != want {
			t.Errorf("%s: ProjectRootBelow(deep, %q) = %s, want %s", tt.name, tt.ceilings, got, want)
		}
	}
	// ProjectRoot reads the variable.
	t.Setenv(CeilingEnv, filepath.Join(root, "outer", "mid"))
	if got := ProjectRoot(deep); got != deep {
		t.Errorf("ProjectRoot with %s set = %s, want %s", CeilingEnv, got, deep)
	}
}
