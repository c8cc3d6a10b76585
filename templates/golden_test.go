package templates

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestDiagnosticsGolden checks the display of template diagnostics (SPEC
// §4.7, §9.4) against testdata/invalid/*.golden; run with -update to
// rewrite them.
func TestDiagnosticsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatal("no test files", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, diags := ParseFile(filepath.ToSlash(file), data, ScopeLocal,
				WithKnownTools(func(n string) bool { return n == "system_read_files" }),
				WithKnownRoles(func(string) bool { return false }))
			var b strings.Builder
			for _, d := range diags {
				b.WriteString(d.Display())
			}
			b.WriteString("-- check --\n")
			for _, d := range diags {
				b.WriteString(d.DisplaySeverity())
			}
			golden := strings.TrimSuffix(file, ".xml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("diagnostics of %s:\n--- got ---\n%s--- want ---\n%s", file, got, want)
			}
		})
	}
}

func TestDiagnosticForms(t *testing.T) {
	tests := []struct {
		d                          Diagnostic
		err, display, withSeverity string
	}{
		{Diagnostic{Severity: SeverityWarning, Msg: "template 'x' from local (a.xml:1) shadows global (b.xml:1)"},
			"warning: template 'x' from local (a.xml:1) shadows global (b.xml:1)",
			"warning: template 'x' from local (a.xml:1) shadows global (b.xml:1)\n",
			"warning: template 'x' from local (a.xml:1) shadows global (b.xml:1)\n"},
		{Diagnostic{Severity: SeverityError, Msg: "cannot read x.xml: permission denied"},
			"cannot read x.xml: permission denied",
			"evalrun: cannot read x.xml: permission denied\n",
			"error: cannot read x.xml: permission denied\n"},
	}
	for _, tt := range tests {
		if got := tt.d.Error(); got != tt.err {
			t.Errorf("Error() = %q, want %q", got, tt.err)
		}
		if got := tt.d.Display(); got != tt.display {
			t.Errorf("Display() = %q, want %q", got, tt.display)
		}
		if got := tt.d.DisplaySeverity(); got != tt.withSeverity {
			t.Errorf("DisplaySeverity() = %q, want %q", got, tt.withSeverity)
		}
	}
	if HasErrors([]Diagnostic{{Severity: SeverityWarning}}) || !HasErrors([]Diagnostic{{Severity: SeverityWarning}, {Severity: SeverityError}}) {
		t.Error("HasErrors")
	}
}
