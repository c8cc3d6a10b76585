package plan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBOMAndCRLFFiles runs a plan whose files were written on Windows:
// a UTF-8 byte order mark, CRLF line ends and four-space indentation.
// They load, and the run's writes keep the mark, the line ends and the
// indentation, the progress member it adds included.
func TestBOMAndCRLFFiles(t *testing.T) {
	crlf := func(s string) string { return "\xef\xbb\xbf" + strings.ReplaceAll(s, "\n", "\r\n") }
	task := crlf(`{
    "id": "IMPL-1",
    "title": "Ünïcode ✓ task",
    "status": "pending",
    "x_unknown": {"a": [1, 2.50, 1e3]},
    "meta": {"type": "feature"},
    "context": {"requirements": ["r"]},
    "flow_control": {"implementation_approach": [{"step": 1, "title": "do"}]}
}
`)
	session := crlf(`{
    "session_id": "WFS-t",
    "status": "active"
}
`)
	p, diags := writePlan(t, map[string]string{"IMPL-1": task}, Options{})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %s", diags)
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "workflow-session.json"), []byte(session), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags, err := Load(p.Dir, Options{})
	if err != nil || len(diags) > 0 {
		t.Fatalf("load: %v %s", err, diags)
	}
	if p.Session == nil {
		t.Fatal("the session file was not read")
	}
	var stderr bytes.Buffer
	if _, err := Run(context.Background(), p, &fakeExec{}, RunOptions{Now: fixedNow, Stderr: &stderr}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if got, want := readFile2(t, filepath.Join(p.Dir, ".task", "IMPL-1.json")), strings.Replace(task, `"pending"`, `"completed"`, 1); got != want {
		t.Errorf("task file:\n%q\nwant\n%q", got, want)
	}
	want := crlf(`{
    "session_id": "WFS-t",
    "status": "active",
    "progress": {
        "total": 1,
        "pending": 0,
        "active": 0,
        "completed": 1,
        "blocked": 0,
        "container": 0,
        "updated_at": "2025-01-06T14:03:00Z"
    }
}
`)
	if got := readFile2(t, filepath.Join(p.Dir, "workflow-session.json")); got != want {
		t.Errorf("session file:\n%q\nwant\n%q", got, want)
	}
}

// TestWriteSessionKeepsCCWProgress sets evalrun's counts among the
// members CCW keeps in the session's progress, which stay as they are.
func TestWriteSessionKeepsCCWProgress(t *testing.T) {
	p, diags := writePlan(t, map[string]string{"IMPL-1": stepTask("IMPL-1", "", `"go"`)}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	orig := `{
  "session_id": "WFS-t",
  "progress": {
    "completed_phases": ["PLAN"],
    "current_tasks": ["IMPL-1"],
    "total": 9,
    "last_checkpoint": "2025-09-07T10:00:00Z"
  },
  "stats": {"total_tasks": 1}
}
`
	path := filepath.Join(p.Dir, "workflow-session.json")
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags, err := Load(p.Dir, Options{})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if err := p.WriteSession(fixedNow()); err != nil {
		t.Fatal(err)
	}
	want := `{
  "session_id": "WFS-t",
  "progress": {
    "completed_phases": ["PLAN"],
    "current_tasks": ["IMPL-1"],
    "total": 1,
    "last_checkpoint": "2025-09-07T10:00:00Z",
    "pending": 1,
    "active": 0,
    "completed": 0,
    "blocked": 0,
    "container": 0,
    "updated_at": "2025-01-06T14:03:00Z"
  },
  "stats": {"total_tasks": 1}
}
`
	if got := readFile2(t, path); got != want {
		t.Errorf("got:\n%s", got)
	}
}
