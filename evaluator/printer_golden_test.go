package evaluator_test

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
	"github.com/google/go-cmp/cmp"
)

var updatePrinter = flag.Bool("update-printer", false, "rewrite testdata/printer.golden")

// TestPrinterGolden evaluates each expression of testdata/printer.txt and
// compares its canonical and JSON forms with testdata/printer.golden.
func TestPrinterGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/printer.txt")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	in := evaluator.New(evaluator.Options{})
	for _, line := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, ";") {
			continue
		}
		v, err := in.EvalString(context.Background(), "<golden>", line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		b.WriteString(line + "\n=> " + v.String() + "\n" + value.JSONIndent(v, "  ") + "\n\n")
	}
	got := b.String()
	if *updatePrinter {
		if err := os.WriteFile("testdata/printer.golden", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/printer.golden")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("printer output differs (-golden +got):\n%s", diff)
	}
}
