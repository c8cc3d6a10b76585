package sexp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrorDisplayGolden reads each testdata/errors/*.sexp, which holds a
// syntax error, and compares the error display with the .golden file beside
// it.
func TestErrorDisplayGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "errors", "*.sexp"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no error inputs: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(NewSource(filepath.Base(file), string(data)))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("Parse: error %v, want a syntax error", err)
			}
			checkGolden(t, strings.TrimSuffix(file, ".sexp")+".golden", []byte(se.Display()))
		})
	}
}

func TestFormatDiagnostic(t *testing.T) {
	src := NewSource("f.sexp", "(a\n\n\t\tb\xff c)\r\n(é \"x\")\r\nlast")
	at := func(off int) Pos { return Pos{Src: src, Off: off} }
	tests := []struct {
		name     string
		pos      Pos
		severity string
		msg      string
		want     string
	}{
		{"first column", at(0), "", "m", "f.sexp:1:1: m\n(a\n^\n"},
		{"end of line", at(2), "", "m", "f.sexp:1:3: m\n(a\n  ^\n"},
		{"empty line", at(3), "", "m", "f.sexp:2:1: m\n\n^\n"},
		{"after tabs", at(6), "error", "m", "f.sexp:3:3: error: m\n\t\tb\uFFFD c)\n\t\t^\n"},
		{"after invalid byte", at(8), "", "m", "f.sexp:3:5: m\n\t\tb\uFFFD c)\n\t\t  ^\n"},
		{"at CR of CRLF", at(11), "", "m", "f.sexp:3:8: m\n\t\tb\uFFFD c)\n\t\t     ^\n"},
		{"at LF of CRLF", at(12), "", "m", "f.sexp:3:9: m\n\t\tb\uFFFD c)\n\t\t      ^\n"},
		{"after multi-byte", at(17), "warning", "m", "f.sexp:4:4: warning: m\n(é \"x\")\n   ^\n"},
		{"end of text", at(len(src.Text)), "", "m", "f.sexp:5:5: m\nlast\n    ^\n"},
		{"no position", Pos{}, "", "bad --set value", "evalrun: bad --set value\n"},
		{"no position with severity", Pos{}, "error", "m", "evalrun: error: m\n"},
		{"offset past the end", at(1000), "", "m", "f.sexp:5:5: m\nlast\n    ^\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FormatDiagnostic(tt.pos, tt.severity, tt.msg)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("FormatDiagnostic mismatch (-want +got):\n%s", diff)
			}
			var buf bytes.Buffer
			if err := WriteDiagnostic(&buf, tt.pos, tt.severity, tt.msg); err != nil || buf.String() != got {
				t.Errorf("WriteDiagnostic wrote %q, %v", buf.String(), err)
			}
			if tt.severity == "" && FormatError(tt.pos, tt.msg) != got {
				t.Errorf("FormatError differs from FormatDiagnostic without severity")
			}
		})
	}
}

func TestErrorMethods(t *testing.T) {
	src := NewSource("<eval>", `(list 1 "two)`)
	e := &Error{Pos: Pos{Src: src, Off: 8}, Msg: "unterminated string"}
	if got, want := e.Error(), "<eval>:1:9: unterminated string"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	// The example of SPEC §4.7.
	if got, want := e.Display(), "<eval>:1:9: unterminated string\n(list 1 \"two)\n        ^\n"; got != want {
		t.Errorf("Display() = %q, want %q", got, want)
	}
	if got := (&Error{Msg: "no position"}).Error(); got != "no position" {
		t.Errorf("Error() without position = %q", got)
	}
}

func TestByteOrderMarkPositions(t *testing.T) {
	src := NewSource("b", "\uFEFF(a\n b)")
	if got := src.Position(3).String(); got != "b:1:1" {
		t.Errorf("Position after the mark = %s, want b:1:1", got)
	}
	if got := src.Position(0).String(); got != "b:1:1" {
		t.Errorf("Position of the mark = %s, want b:1:1", got)
	}
	if got := src.LineText(4); got != "(a" {
		t.Errorf("LineText = %q, want (a", got)
	}
	if got := src.Position(7).String(); got != "b:2:2" {
		t.Errorf("Position on line 2 = %s, want b:2:2", got)
	}
}
