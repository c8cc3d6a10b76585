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
		})
	}
}
