package plan

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// checkFixture loads the session of a fixture project and returns its
// diagnostics with paths relative to the session directory.
func checkFixture(t *testing.T, root string, opts Options) (*Plan, string) {
	t.Helper()
	dir, err := FindSession(root)
	if err != nil {
		t.Fatal(err)
	}
	p, diags, err := Load(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.ReplaceAll(diags.String(), dir+string(filepath.Separator), "")
	out = strings.ReplaceAll(out, dir, "DIR")
	return p, out
}

// displayFixture is checkFixture's Display form: every diagnostic with
// its source line and caret line.
func displayFixture(t *testing.T, root string) string {
	t.Helper()
	dir, err := FindSession(root)
	if err != nil {
		t.Fatal(err)
	}
	_, diags, err := Load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(diags.Display(), dir+string(filepath.Separator), "")
}

// TestCheckFixtures runs every fixture under testdata/check: one rule
// each; want.txt holds the exact diagnostics, message and position.
func TestCheckFixtures(t *testing.T) {
	entries, err := os.ReadDir("testdata/check")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			root := filepath.Join("testdata/check", e.Name())
			_, got := checkFixture(t, root, Options{})
			wantPath := filepath.Join(root, "want.txt")
			if *update {
				if err := os.WriteFile(wantPath, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			// display.txt, where present, holds the display of plan check:
			// each diagnostic with its source line and caret.
			displayPath := filepath.Join(root, "display.txt")
			wantDisplay, err := os.ReadFile(displayPath)
			if os.IsNotExist(err) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gotDisplay := displayFixture(t, root)
			if *update {
				if err := os.WriteFile(displayPath, []byte(gotDisplay), 0o644); err != nil {
					t.Fatal(err)
				}
				wantDisplay = []byte(gotDisplay)
			}
			if diff := cmp.Diff(string(wantDisplay), gotDisplay); diff != "" {
				t.Errorf("display (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiagnosticDisplay covers the display cases the fixtures do not: no
// position, a CRLF line, a column past the end of the line and invalid
// UTF-8 in the source line.
func TestDiagnosticDisplay(t *testing.T) {
	src := []byte("{\r\n\t\"a\": \"x\xffy\", \r\n}")
	li := newLineIndex(src)
	for _, tt := range []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Path: "f.json", Severity: SevError, Msg: "m"}, "f.json: error: m\n"},
		{Diagnostic{Path: "f.json", Line: 1, Col: 2, Severity: SevError, Msg: "m", Source: li.text(1)}, "f.json:1:2: error: m\n{\n ^\n"},
		{Diagnostic{Path: "f.json", Line: 2, Col: 12, Severity: SevWarning, Msg: "w", Source: li.text(2)}, "f.json:2:12: warning: w\n\t\"a\": \"x\uFFFDy\", \n\t          ^\n"},
		{Diagnostic{Path: "f.json", Line: 3, Col: 3, Severity: SevError, Msg: "e", Source: li.text(3)}, "f.json:3:3: error: e\n}\n  ^\n"},
	} {
		if got := tt.d.Display(); got != tt.want {
			t.Errorf("Display() = %q, want %q", got, tt.want)
		}
	}
	if got := li.text(4); got != "" {
		t.Errorf("text(4) = %q", got)
	}
}

// TestLoadMissingDir: a plan directory that does not exist is named as such,
// with the session directories beside it to choose from.
func TestLoadMissingDir(t *testing.T) {
	active := filepath.Join(t.TempDir(), ".workflow", "active")
	for _, d := range []string{"WFS-jwt-auth", "WFS-docs", "notes"} {
		if err := os.MkdirAll(filepath.Join(active, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := Load(filepath.Join(active, "WFS-jwt"), Options{})
	want := "plan directory " + filepath.Join(active, "WFS-jwt") + " does not exist; the sessions beside it: " +
		filepath.Join(active, "WFS-docs") + ", " + filepath.Join(active, "WFS-jwt-auth")
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	_, _, err = Load(filepath.Join(active, "notes", "x"), Options{})
	if err == nil || err.Error() != "plan directory "+filepath.Join(active, "notes", "x")+" does not exist" {
		t.Errorf("err = %v", err)
	}
}
