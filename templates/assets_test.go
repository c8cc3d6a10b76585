package templates

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAssets(t *testing.T) {
	var names []string
	for _, a := range Assets() {
		names = append(names, a.Name)
		if a.Description == "" || !strings.Contains(a.XML, `<task name="`+a.Name+`"`) {
			t.Errorf("asset %s: %+v", a.Name, a)
		}
	}
	want := []string{"code-review", "commit-message", "doc-review", "explain", "git-diff-review", "refactor-plan", "security-review", "test-gen"}
	if !slices.Equal(names, want) {
		t.Errorf("assets %q, want %q", names, want)
	}
	// Assets are not loaded at run time.
	for _, b := range Builtin() {
		if slices.Contains(want, b.Name) {
			t.Errorf("asset %s is a built-in template", b.Name)
		}
	}
}

func TestAddAsset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".evalrun", "templates")
	path, err := AddAsset(dir, "git-diff-review", "")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "git-diff-review.xml") {
		t.Errorf("path %s", path)
	}
	data, _ := os.ReadFile(path)
	a, _ := LookupAsset("git-diff-review")
	if string(data) != a.XML {
		t.Error("the copy differs from the asset")
	}
	_, err = AddAsset(dir, "git-diff-review", "")
	if !errors.Is(err, ErrExists) || err.Error() != path+": file exists; not overwritten" {
		t.Errorf("second add: %v", err)
	}
	path, err = AddAsset(dir, "git-diff-review", "review/staged")
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	ts, diags := ParseFile(path, data, ScopeLocal)
	if HasErrors(diags) || len(ts) != 1 || ts[0].Name != "review/staged" || ts[0].Command.Text != "git diff {{range}}" {
		t.Errorf("renamed copy: %v %+v", diags, ts)
	}
	if path != filepath.Join(dir, "review", "staged.xml") {
		t.Errorf("path %s", path)
	}
	if _, err := AddAsset(dir, "nope", ""); err == nil || !strings.HasPrefix(err.Error(), "unknown asset template 'nope' (assets: code-review, commit-message,") {
		t.Errorf("unknown: %v", err)
	}
	if _, err := AddAsset(dir, "code-reveiw", ""); err == nil || !strings.HasPrefix(err.Error(), "unknown asset template 'code-reveiw' (did you mean 'code-review'? assets: code-review,") {
		t.Errorf("misspelt: %v", err)
	}
}

func TestFromConfigTask(t *testing.T) {
	tm, err := FromConfigTask(ConfigTask{
		Name: "git-diff-review", Alias: "gdr", Description: "Review git diff changes", Role: "code-reviewer", Agent: "claude",
		Command: "git diff --staged", Shell: "bash", CommandTimeout: 45 * time.Second,
		Prompt: "Analyze {instructions}\n```diff\n{command_output}\n```\nLiteral {{braces}} and {Upper} and {}",
		Scope:  ScopeLocal, Path: ".evalrun/config.toml", Line: 14,
	})
	if err != nil {
		t.Fatal(err)
	}
	if tm.Instructions != "Analyze {{instructions}}\n```diff\n{{command_output}}\n```\nLiteral \\{{braces}} and {Upper} and {}" {
		t.Errorf("instructions %q", tm.Instructions)
	}
	if tm.Agent != "claude" || tm.Role != "code-reviewer" || tm.Alias != "gdr" || tm.Source() != "local .evalrun/config.toml:14" {
		t.Errorf("template %+v", tm)
	}
	if c := tm.Command; c == nil || c.Text != "git diff --staged" || c.Shell != "bash" || c.Timeout != 45*time.Second || !c.FailOnError {
		t.Errorf("command %+v", c)
	}
	if len(tm.Inputs) != 0 {
		t.Errorf("inputs %+v (all placeholders are built-ins)", tm.Inputs)
	}
	for _, tc := range []struct {
		ct   ConfigTask
		want string
	}{
		{ConfigTask{Name: "f", File: "NOTES.md"}, "{{file_contents}}"},
		{ConfigTask{Name: "c", Command: "date"}, "{{command_output}}"},
	} {
		tm, err := FromConfigTask(tc.ct)
		if err != nil || tm.Instructions != tc.want || tm.Description != tc.ct.Name {
			t.Errorf("%s: %q %v", tc.ct.Name, tm.Instructions, err)
		}
	}
}

// Configuration tasks come after the XML templates of their scope.
func TestLoadConfigTasks(t *testing.T) {
	e := newEnv(t)
	e.global(t, "g.xml", tmpl("shared", "", "global xml"))
	e.local(t, "l.xml", tmpl("explain", "", "local xml"))
	g, _ := FromConfigTask(ConfigTask{Name: "explain", Prompt: "global toml", Scope: ScopeGlobal, Path: "~/.config/evalrun/config.toml", Line: 3})
	g2, _ := FromConfigTask(ConfigTask{Name: "shared", Prompt: "global toml", Scope: ScopeGlobal, Path: "~/.config/evalrun/config.toml", Line: 7})
	l, _ := FromConfigTask(ConfigTask{Name: "gdr-task", Alias: "gdr", Prompt: "local toml", Scope: ScopeLocal, Path: ".evalrun/config.toml", Line: 1})
	set, diags := Load(LoadOptions{Sources: DefaultSources(mustGetwd(t), nil), NoBuiltin: true, ConfigTasks: []*Template{g, g2, l}})
	var got []string
	for _, it := range set.List() {
		s := it.Scope + " " + it.Name + " " + it.Path
		if it.ShadowedBy != nil {
			s += " shadowed by " + *it.ShadowedBy
		}
		got = append(got, s)
	}
	want := []string{
		"global shared g.xml shadowed by global",
		"global explain config.toml shadowed by local",
		"global shared config.toml",
		"local explain l.xml",
		"local gdr-task config.toml",
	}
	if !slices.Equal(got, want) {
		t.Errorf("list\n got %q\nwant %q\ndiags %v", got, want, diags)
	}
	var dirs []string
	for _, d := range set.Dirs {
		dirs = append(dirs, d.Scope.String()+" "+d.Display)
	}
	if want := []string{"builtin ", "global ~/.config/evalrun/templates", "global ~/.config/evalrun/config.toml", "local .evalrun/templates", "local .evalrun/config.toml"}; !slices.Equal(dirs, want) {
		t.Errorf("dirs %q, want %q", dirs, want)
	}
	if tm, ok := set.Lookup("gdr"); !ok || tm.Name != "gdr-task" {
		t.Errorf("lookup by alias: %v", tm)
	}
}
