package memory

import "testing"

// Paths in an .evalrun directory at any depth are never indexed, in git
// mode as in the walk.
func TestInEvalrunDir(t *testing.T) {
	for p, want := range map[string]bool{
		".evalrun/index.db": true, "sub/.evalrun/templates/x.xml": true, "a/b/.evalrun/dry-run/1/001.md": true,
		"evalrun/x.go": false, "sub/my.evalrun/x": false, "x.evalrun": false,
	} {
		if got := inEvalrunDir(p); got != want {
			t.Errorf("inEvalrunDir(%q) = %v, want %v", p, got, want)
		}
	}
}
