package jsonschema

import (
	"fmt"
	"os"
	"testing"

	"github.com/evalrun/evalrun/value"
)

// developmentPlan is a DevelopmentPlan-like answer: instructions, 20 files
// and a test command, inside a ControllerAnalysisResult.
func developmentPlan() value.Value {
	files := make(value.List, 20)
	for i := range files {
		files[i] = value.String(fmt.Sprintf("internal/pkg%02d/file%02d.go", i, i))
	}
	plan := value.DictOf(
		"instructions", value.String("Refactor the retry policy into its own type, keep the public API, and add table-driven tests for the backoff."),
		"files", files,
		"test_command", value.String("go test ./internal/..."),
	)
	return value.DictOf("decision", value.String("CONTINUE"), "analysis", value.String("The tests pass; one step remains."), "next_plan", plan)
}

func loadSchema(b *testing.B, name string) *Schema {
	data, err := os.ReadFile("../builtin/schemas/" + name + ".schema.json")
	if err != nil {
		b.Fatal(err)
	}
	s, err := CompileJSON(string(data))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkValidateDevelopmentPlan validates a valid DevelopmentPlan-like
// value against the ControllerAnalysisResult built-in schema.
func BenchmarkValidateDevelopmentPlan(b *testing.B) {
	s := loadSchema(b, "ControllerAnalysisResult")
	v := developmentPlan()
	b.ReportAllocs()
	for b.Loop() {
		if vs := s.Validate(v); vs != nil {
			b.Fatal(vs)
		}
	}
}

// BenchmarkValidateDevelopmentPlanInvalid validates the value with every
// file name replaced by a number: 20 violations.
func BenchmarkValidateDevelopmentPlanInvalid(b *testing.B) {
	s := loadSchema(b, "ControllerAnalysisResult")
	v := developmentPlan().(*value.Dict)
	plan, _ := v.Get("next_plan")
	files := make(value.List, 20)
	for i := range files {
		files[i] = value.Int(i)
	}
	v = v.With("next_plan", plan.(*value.Dict).With("files", files))
	b.ReportAllocs()
	for b.Loop() {
		if vs := s.Validate(v); len(vs) != 20 {
			b.Fatal(vs)
		}
	}
}

// BenchmarkCompileControllerAnalysisResult compiles the largest built-in
// schema from its text.
func BenchmarkCompileControllerAnalysisResult(b *testing.B) {
	data, err := os.ReadFile("../builtin/schemas/ControllerAnalysisResult.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileJSON(string(data)); err != nil {
			b.Fatal(err)
		}
	}
}
