package docs_test

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureImports keeps the import table of architecture.md true:
// every package of the module is a row, and each row names exactly the
// project packages that `go list` says the package imports ("all of the
// above" for engine, which wires everything).
func TestArchitectureImports(t *testing.T) {
	const module = "github.com/evalrun/evalrun/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	actual := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		if pkg == "docs" || pkg == "editors" || strings.Contains(pkg, "/internal/") {
			continue // test-only packages and generators
		}
		var deps []string
		for _, d := range f[1:] {
			if strings.HasPrefix(d, module) {
				deps = append(deps, strings.TrimPrefix(d, module))
			}
		}
		slices.Sort(deps)
		actual[pkg] = deps
	}
	page, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([a-z/]+)` \\| (.*) \\|$")
	table := regexp.MustCompile(`(?s)\| package \| imports \(project packages\) \|\n\|---\|---\|\n(.*?)\n\n`).FindSubmatch(page)
	if table == nil {
		t.Fatal("architecture.md has no import table")
	}
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(table[1]), -1) {
		pkg, cell := m[1], m[2]
		documented[pkg] = true
		want, ok := actual[pkg]
		if !ok {
			t.Errorf("architecture.md lists %s, which is not a package of the module", pkg)
			continue
		}
		if pkg == "engine" {
			if cell != "all of the above" {
				t.Errorf("engine's row is %q", cell)
			}
			continue
		}
		var got []string
		if cell != "—" {
			for _, d := range strings.Split(cell, ", ") {
				got = append(got, strings.Trim(d, "`"))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("architecture.md: %s imports %v, the code imports %v", pkg, got, want)
		}
	}
	for pkg := range actual {
		if !documented[pkg] {
			t.Errorf("architecture.md's import table lacks %s", pkg)
		}
	}
}
