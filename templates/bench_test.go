package templates

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad1000 loads 1,000 template files (one template each, with
// inputs, placeholders, a command and an output schema) from a temporary
// directory, plus the built-in templates. It reports ms/op.
func BenchmarkLoad1000(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		text := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<task name="bench/task-%04d" alias="b%04d" type="atomic" subtype="standard">
  <description>Review the staged git diff number %d for bugs and risky changes</description>
  <inputs>
    <input name="focus" type="string" default="correctness">What to concentrate on</input>
    <input name="limit" type="int" required="false" default="10">How many issues at most</input>
  </inputs>
  <command timeout="30">git diff --staged -- {{focus}}</command>
  <instructions>
    Review the diff below. Focus on {{ focus | upper }}; report at most {{limit}} issues.
    Extra instructions: {{instructions}}
    Answer with JSON: {"verdict": "approve" or "changes", "issues": [{"file", "line", "comment"}]}

    {{command_output}}
  </instructions>
  <output_format type="json" schema="DevelopmentPlan"/>
  <context_management><inherit_context>none</inherit_context></context_management>
  <limits max_turns="2"/>
</task>
`, i, i, i)
		path := filepath.Join(dir, fmt.Sprintf("d%02d", i/100), fmt.Sprintf("t%04d.xml", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	opts := LoadOptions{Sources: Sources{Local: dir}}
	b.ReportAllocs()
	for b.Loop() {
		set, diags := Load(opts)
		if len(diags) > 0 || len(set.Entries) != 1002 {
			b.Fatalf("%d entries, diagnostics %v", len(set.Entries), diags)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}
