package tasksystem

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fakeMemory answers every lookup with a fixed result and records queries.
type fakeMemory struct {
	mu      sync.Mutex
	queries []memory.Query
	res     memory.Result
	err     error
}

func (m *fakeMemory) Lookup(ctx context.Context, q memory.Query) (memory.Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries = append(m.queries, q)
	return m.res, m.err
}

func matches(paths ...string) []memory.Match {
	var ms []memory.Match
	for _, p := range paths {
		ms = append(ms, memory.Match{ID: p, Content: "ignored", RelevanceScore: 1, ContentType: "file_content", SourcePath: p})
	}
	return ms
}

// task builds and infers a template.
func task(t *testing.T, tm *templates.Template) *templates.Template {
	t.Helper()
	if tm.Type == "" {
		tm.Type = "atomic"
	}
	if tm.Name == "" {
		tm.Name = "t"
	}
	if err := templates.Infer(tm); err != nil {
		t.Fatal(err)
	}
	return tm
}

// outcome is what a test checks of one Execute: the status, the failure
// reason, the content, the notes of SPEC §13 and the system prompt sent.
type outcome struct {
	Status, Reason, Content string
	Source                  string
	FileCount               int64
	Warnings, Skipped       []string
	System                  string
}

func outcomeOf(res *value.TaskResult, rec *recorder) outcome {
	o := outcome{Status: res.Status, Content: res.Content}
	n := res.NotesOrEmpty()
	if e, ok := n.Get("error"); ok {
		r, _ := e.(*value.Dict).Get("reason")
		o.Reason = value.Text(r)
	}
	s, _ := n.Get("context_source")
	o.Source = value.Text(s)
	if c, ok := n.Get("file_count"); ok {
		o.FileCount = int64(c.(value.Int))
	}
	strs := func(key string) []string {
		v, ok := n.Get(key)
		if !ok {
			return nil
		}
		var out []string
		for _, x := range v.(value.List) {
			out = append(out, value.Text(x))
		}
		return out
	}
	o.Warnings, o.Skipped = strs("warnings"), strs("skipped_files")
	if rec != nil && res.Status == value.StatusComplete {
		o.System = rec.last().System
	}
	return o
}

// sys is the system prompt with a context block of the given body lines.
func sys(lines ...string) string {
	return DefaultBasePrompt + "\n\n<context>\n" + strings.Join(lines, "\n") + "\n</context>"
}

func TestOwnFiles(t *testing.T) {
	root, outside := project(t, map[string]string{
		"a.go": "package a\n", "b.go": "package b", "docs/c.md": "# C\n", "bin.dat": "\x00\x01",
		"/outside/secret.txt": "secret\n",
	})
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "sneaky.txt"))
	t.Chdir(root)

	mem := &fakeMemory{res: memory.Result{ContextSummary: `2 matches for "q" (content strategy, 4 files indexed)`, Matches: matches("docs/c.md", "a.go")}}
	fp := func(source string, paths ...string) *templates.FilePaths {
		return &templates.FilePaths{Source: source, Paths: paths}
	}
	sub := func(tm *templates.Template) *templates.Template { tm.Subtype = "subtask"; return tm }
	tests := []struct {
		name string
		tmpl *templates.Template
		req  Request
		mem  Memory
		want outcome
	}{
		{"none", &templates.Template{Instructions: "hi"}, Request{}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "none", System: DefaultBasePrompt}},
		{"explicit", &templates.Template{Instructions: "hi"}, Request{Files: []string{"a.go", "./docs/c.md"}, FilesGiven: true}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "explicit_request", FileCount: 2, System: sys(
				`<file path="a.go" origin="explicit">`, "package a", "</file>",
				`<file path="docs/c.md" origin="explicit">`, "# C", "</file>")}},
		{"explicit wins over template and fresh", sub(&templates.Template{Instructions: "hi", FilePaths: fp("literal", "b.go")}),
			Request{Files: []string{"a.go"}}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "explicit_request", FileCount: 1, System: sys(
				`<file path="a.go" origin="explicit">`, "package a", "</file>")}},
		{"explicit missing fails", &templates.Template{Instructions: "hi"}, Request{Files: []string{"a.go", "nope.go"}}, mem,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "file not found: nope.go", Source: "explicit_request"}},
		{"explicit outside fails", &templates.Template{Instructions: "hi"}, Request{Files: []string{"../outside/secret.txt"}}, mem,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: ../outside/secret.txt", Source: "explicit_request"}},
		{"explicit symlink escape fails", &templates.Template{Instructions: "hi"}, Request{Files: []string{"sneaky.txt"}}, mem,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: sneaky.txt", Source: "explicit_request"}},
		{"explicit absolute outside fails", &templates.Template{Instructions: "hi"}, Request{Files: []string{filepath.Join(outside, "secret.txt")}}, mem,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: " + filepath.Join(outside, "secret.txt"), Source: "explicit_request"}},
		{"explicit binary skipped", &templates.Template{Instructions: "hi"}, Request{Files: []string{"bin.dat", "b.go"}}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "explicit_request", FileCount: 1, Skipped: []string{"bin.dat"}, System: sys(
				`<file path="b.go" origin="explicit">`, "package b", "</file>")}},
		{"explicit duplicates delivered once", &templates.Template{Instructions: "hi"}, Request{Files: []string{"a.go", "../proj/a.go"}}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "explicit_request", FileCount: 1, System: sys(
				`<file path="a.go" origin="explicit">`, "package a", "</file>")}},
		{"empty files argument falls through", &templates.Template{Instructions: "hi"}, Request{Files: nil, FilesGiven: true}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "none", System: DefaultBasePrompt}},

		{"template literal", &templates.Template{Instructions: "{{f}}", FilePaths: fp("literal", "{{f}}", "missing.go")},
			Request{Named: []NamedArg{{"f", value.String("b.go")}}}, mem,
			outcome{Status: "COMPLETE", Content: "b.go", Source: "template_literal", FileCount: 1, Skipped: []string{"missing.go"}, System: sys(
				`<file path="b.go" origin="template">`, "package b", "</file>")}},
		{"template literal outside fails", &templates.Template{Instructions: "hi", FilePaths: fp("", "../outside/secret.txt")}, Request{}, mem,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: ../outside/secret.txt", Source: "template_literal"}},
		{"template command", &templates.Template{Instructions: "hi", FilePaths: &templates.FilePaths{Source: "command", Command: "printf 'a.go\\n\\n  docs/c.md  \\n'"}}, Request{}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "template_command", FileCount: 2, System: sys(
				`<file path="a.go" origin="template">`, "package a", "</file>",
				`<file path="docs/c.md" origin="template">`, "# C", "</file>")}},
		{"template command with a quoted input", &templates.Template{Instructions: "hi", FilePaths: &templates.FilePaths{Source: "command", Command: "printf '%s\\n' {{f}} a.go"}},
			Request{Named: []NamedArg{{"f", value.String("b.go; echo sneaky.txt")}}}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "template_command", FileCount: 1, Skipped: []string{"b.go; echo sneaky.txt"}, System: sys(
				`<file path="a.go" origin="template">`, "package a", "</file>")}},
		{"template command outside fails", &templates.Template{Instructions: "hi", FilePaths: &templates.FilePaths{Source: "command", Command: "echo sneaky.txt"}}, Request{}, mem,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: sneaky.txt", Source: "template_command"}},
		{"template command failure", &templates.Template{Instructions: "hi", FilePaths: &templates.FilePaths{Source: "command", Command: "echo oops; exit 1"}}, Request{}, mem,
			outcome{Status: "FAILED", Reason: "context_retrieval_failure", Content: "command exited with status 1: oops", Source: "template_command"}},
		{"template description", &templates.Template{Description: "find docs", Instructions: "hi", FilePaths: fp("description")}, Request{}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "template_description", FileCount: 2, System: sys(
				`<summary>2 matches for "q" (content strategy, 4 files indexed)</summary>`,
				`<file path="docs/c.md" origin="template">`, "# C", "</file>",
				`<file path="a.go" origin="template">`, "package a", "</file>")}},
		{"template context_description", &templates.Template{Description: "d", Instructions: "hi",
			FilePaths: &templates.FilePaths{Source: "context_description", ContextQuery: "about {{topic}}"}},
			Request{Named: []NamedArg{{"topic", value.String("retries")}}}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "template_context_description", FileCount: 2, System: sys(
				`<summary>2 matches for "q" (content strategy, 4 files indexed)</summary>`,
				`<file path="docs/c.md" origin="template">`, "# C", "</file>",
				`<file path="a.go" origin="template">`, "package a", "</file>")}},
		{"fresh", sub(&templates.Template{Description: "Summarise", Instructions: "{{path}}"}),
			Request{Named: []NamedArg{{"path", value.String("x")}}}, mem,
			outcome{Status: "COMPLETE", Content: "x", Source: "fresh", FileCount: 2, System: sys(
				`<summary>2 matches for "q" (content strategy, 4 files indexed)</summary>`,
				`<file path="docs/c.md" origin="fresh">`, "# C", "</file>",
				`<file path="a.go" origin="fresh">`, "package a", "</file>")}},
		{"fresh when the template source finds nothing", sub(&templates.Template{Description: "d", Instructions: "hi",
			FilePaths: &templates.FilePaths{Source: "command", Command: "true"}}), Request{}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "fresh", FileCount: 2, System: sys(
				`<summary>2 matches for "q" (content strategy, 4 files indexed)</summary>`,
				`<file path="docs/c.md" origin="fresh">`, "# C", "</file>",
				`<file path="a.go" origin="fresh">`, "package a", "</file>")}},
		{"fresh without memory", sub(&templates.Template{Description: "d", Instructions: "hi"}), Request{}, nil,
			outcome{Status: "COMPLETE", Content: "hi", Source: "none", Warnings: []string{"no memory index is available"}, System: DefaultBasePrompt}},
		{"description without memory", &templates.Template{Description: "d", Instructions: "hi", FilePaths: fp("description")}, Request{}, nil,
			outcome{Status: "COMPLETE", Content: "hi", Source: "none", Warnings: []string{"no memory index is available"}, System: DefaultBasePrompt}},
		{"fresh disabled by default", &templates.Template{Description: "d", Instructions: "hi"}, Request{}, mem,
			outcome{Status: "COMPLETE", Content: "hi", Source: "none", System: DefaultBasePrompt}},
		{"memory error", sub(&templates.Template{Description: "d", Instructions: "hi"}), Request{}, &fakeMemory{err: errors.New("index is corrupt")},
			outcome{Status: "FAILED", Reason: "context_retrieval_failure", Content: "index is corrupt", Source: "fresh"}},
		{"memory result error without matches", sub(&templates.Template{Description: "d", Instructions: "hi"}), Request{},
			&fakeMemory{res: memory.Result{Error: "5 of 5 shards failed: timeout"}},
			outcome{Status: "FAILED", Reason: "context_retrieval_failure", Content: "5 of 5 shards failed: timeout", Source: "fresh"}},
		{"memory partial error warns; outside and missing matches skipped", sub(&templates.Template{Description: "d", Instructions: "hi"}), Request{},
			&fakeMemory{res: memory.Result{ContextSummary: "s", Error: "1 of 2 shards failed: x", Matches: matches("b.go", "../outside/secret.txt", "gone.go", "sneaky.txt")}},
			outcome{Status: "COMPLETE", Content: "hi", Source: "fresh", FileCount: 1, Warnings: []string{"1 of 2 shards failed: x"},
				Skipped: []string{"../outside/secret.txt", "gone.go", "sneaky.txt"}, System: sys(
					"<summary>s</summary>", `<file path="b.go" origin="fresh">`, "package b", "</file>")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{name: "rec", answer: ""}
			echoRec := &echoRecorder{rec: rec}
			var stderr bytes.Buffer
			ex := NewExecutor(Options{DefaultProvider: echoRec, Memory: tt.mem, Stderr: &stderr})
			tt.req.Template = task(t, tt.tmpl)
			got := outcomeOf(ex.Execute(context.Background(), tt.req), rec)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, w := range tt.want.Warnings {
				if !strings.Contains(stderr.String(), "warning: task 't': "+w+"\n") {
					t.Errorf("stderr %q lacks warning %q", stderr.String(), w)
				}
			}
		})
	}
}

// echoRecorder records requests and answers like the echo provider.
type echoRecorder struct{ rec *recorder }

func (e *echoRecorder) Name() string { return "rec" }

func (e *echoRecorder) Complete(ctx context.Context, req *handler.Request) (*handler.Response, error) {
	e.rec.Complete(ctx, req)
	return handler.Echo{}.Complete(ctx, req)
}

func TestMemoryQueries(t *testing.T) {
	root, _ := project(t, map[string]string{"a.go": "a"})
	t.Chdir(root)
	mem := &fakeMemory{res: memory.Result{Matches: matches("a.go")}}
	ex := NewExecutor(Options{Memory: mem, FreshTopK: 3})
	fresh := task(t, &templates.Template{Subtype: "subtask", Description: "Summarise one file",
		Instructions: "{{path}} {{n}}", Inputs: []templates.Input{{Name: "path", Type: "string", Required: true}, {Name: "n", Type: "any"}},
		InputsDeclared: true})
	ex.Execute(context.Background(), Request{Template: fresh, Named: []NamedArg{{"n", value.List{value.Int(1)}}, {"path", value.String("x.go")}}})
	desc := task(t, &templates.Template{Description: "Template description", Instructions: "hi", FilePaths: &templates.FilePaths{Source: "description"}})
	ex.Execute(context.Background(), Request{Template: desc})
	own := task(t, &templates.Template{Description: "d", Instructions: "hi", FilePaths: &templates.FilePaths{Source: "description", Description: "own words"}})
	ex.Execute(context.Background(), Request{Template: own})
	want := []memory.Query{
		{Query: "Summarise one file\npath: x.go\nn: [1]", Strategy: "content", TopK: 3},
		{Query: "Template description", Strategy: "content", TopK: 3},
		{Query: "own words", Strategy: "content", TopK: 3},
	}
	if diff := cmp.Diff(want, mem.queries); diff != "" {
		t.Errorf("queries (-want +got):\n%s", diff)
	}
}

func TestTemplateFile(t *testing.T) {
	root, outside := project(t, map[string]string{
		"notes.txt": "line 1\nline 2\n", "big.txt": strings.Repeat("b", MaxTemplateFileBytes+5), "/outside/x.txt": "x",
	})
	t.Chdir(root)
	tests := []struct {
		file, instr string
		args        []NamedArg
		want        outcome
	}{
		{"notes.txt", "[{{file}}] [{{file_contents}}]", nil,
			outcome{Status: "COMPLETE", Content: "[" + filepath.Join(root, "notes.txt") + "] [line 1\nline 2\n]", Source: "none"}},
		{"{{name}}.txt", "{{file_contents}}", []NamedArg{{"name", value.String("notes")}},
			outcome{Status: "COMPLETE", Content: "line 1\nline 2\n", Source: "none"}},
		{"missing.txt", "{{file_contents}}", nil,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "file not found: missing.txt", Source: "none"}},
		{"missing.txt", "not used", nil, outcome{Status: "COMPLETE", Content: "not used", Source: "none"}},
		{"big.txt", "{{file_contents}}", nil,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "file too large: big.txt (1048581 bytes)", Source: "none"}},
		{"../outside/x.txt", "{{file}}", nil,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: ../outside/x.txt", Source: "none"}},
		{filepath.Join(outside, "x.txt"), "{{file_contents}}", nil,
			outcome{Status: "FAILED", Reason: "input_validation_failure", Content: "path outside the project root: " + filepath.Join(outside, "x.txt"), Source: "none"}},
	}
	for _, tt := range tests {
		tm := task(t, &templates.Template{Instructions: tt.instr, File: tt.file})
		got := outcomeOf(NewExecutor(Options{}).Execute(context.Background(), Request{Template: tm, Named: tt.args}), nil)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %q (-want +got):\n%s", tt.file, tt.instr, diff)
		}
	}
	// The command sees {{file}} quoted.
	tm := task(t, &templates.Template{Instructions: "{{command_output}}", File: "notes.txt",
		Command: &templates.Command{Text: "wc -l < {{file}}", FailOnError: true}})
	if res := NewExecutor(Options{}).Execute(context.Background(), Request{Template: tm}); strings.TrimSpace(res.Content) != "2" {
		t.Errorf("command with {{file}}: %v", res)
	}
}

func TestInherit(t *testing.T) {
	root, outside := project(t, map[string]string{
		"retry.go":           "package http\n// retry with exponential backoff\n",
		"auth.go":            "package auth\n// token checks\n",
		"readme.md":          "# Project\n",
		"docs/x.md":          "backoff backoff backoff retry policy\n",
		"bin.dat":            "\x00",
		"sub/rel.go":         "package sub\n",
		"/outside/notes.txt": "outside notes about retry\n",
	})
	symlink(t, filepath.Join(outside, "notes.txt"), filepath.Join(root, "sneaky.txt"))
	t.Chdir(filepath.Join(root, "sub"))

	match := func(id string) *value.Dict {
		return memory.Match{ID: id, Content: "stale", RelevanceScore: 0.5, ContentType: "file_content", SourcePath: id}.Value()
	}
	ambient := []value.Value{
		match("retry.go"),      // root-relative
		value.String("rel.go"), // relative to the working directory
		match("auth.go"),
		value.String("../retry.go"), // another id for a file already present
		match("retry.go"),           // repeated id
		match("../outside/notes.txt"),
		value.String("sneaky.txt"), // missing in sub/
		value.String("../sneaky.txt"),
		match("bin.dat"),
	}
	runFiles := []string{filepath.Join(outside, "notes.txt"), "../readme.md"}
	tests := []struct {
		name    string
		ctx     templates.ContextSettings
		subsetK int
		instr   string
		want    []string // delivered paths in order
		skipped []string
	}{
		{"full", templates.ContextSettings{}, 0, "hi",
			[]string{filepath.Join(outside, "notes.txt"), "readme.md", "retry.go", "sub/rel.go", "auth.go"},
			[]string{"../outside/notes.txt", "sneaky.txt", "../sneaky.txt", "bin.dat"}},
		{"none", templates.ContextSettings{InheritContext: "none"}, 0, "hi", nil, nil},
		{"subset ranks by BM25", templates.ContextSettings{InheritContext: "subset"}, 2, "Explain the retryPolicy and its backoff",
			[]string{"retry.go", filepath.Join(outside, "notes.txt")}, []string{"../outside/notes.txt", "sneaky.txt", "../sneaky.txt", "bin.dat"}},
		{"subset drops zero scores", templates.ContextSettings{InheritContext: "subset"}, 5, "token",
			[]string{"auth.go"}, []string{"../outside/notes.txt", "sneaky.txt", "../sneaky.txt", "bin.dat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{name: "rec"}
			ex := NewExecutor(Options{Root: root, DefaultProvider: rec, RunFiles: runFiles, SubsetK: tt.subsetK})
			tm := task(t, &templates.Template{Instructions: tt.instr, Context: tt.ctx})
			res := ex.Execute(context.Background(), Request{Template: tm, Ambient: ambient, AmbientSummary: "3 matches"})
			o := outcomeOf(res, rec)
			var got []string
			for _, line := range strings.Split(o.System, "\n") {
				if strings.HasPrefix(line, "<file ") {
					if !strings.HasSuffix(line, `origin="inherited">`) {
						t.Errorf("origin: %s", line)
					}
					got = append(got, strings.TrimSuffix(strings.TrimPrefix(line, `<file path="`), `" origin="inherited">`))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, o.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if o.FileCount != int64(len(tt.want)) || o.Source != "none" {
				t.Errorf("file_count %d, context_source %s", o.FileCount, o.Source)
			}
			if hasSummary := strings.Contains(o.System, "<summary>3 matches</summary>"); hasSummary != (len(tt.want) > 0) {
				t.Errorf("summary shown: %v", hasSummary)
			}
			if strings.Contains(o.System, "stale") {
				t.Errorf("a match's stale content was delivered instead of the file")
			}
		})
	}
}

func TestBM25(t *testing.T) {
	if diff := cmp.Diff([]string{"retry", "policy", "v2", "httpserver", "x", "élan", "42"},
		bm25Tokens("retryPolicy_v2 HTTPServer  x-Élan 42")); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	docs := []string{"retry retry backoff", "token auth", "retry", "nothing here"}
	scores := bm25Scores("retry backoff", docs)
	if !(scores[0] > scores[2] && scores[2] > 0 && scores[1] == 0 && scores[3] == 0) {
		t.Errorf("scores = %v", scores)
	}
	// One-term checks against the formula: N=4; "token" is in one document
	// of average length, "retry" in two.
	got := bm25Scores("token", docs)[1]
	avg := (3.0 + 2 + 1 + 2) / 4
	want := math.Log(1+(4-1+0.5)/(1+0.5)) * 1 * 2.2 / (1 + 1.2*(1-0.75+0.75*2/avg))
	if fmt.Sprintf("%.12f", got) != fmt.Sprintf("%.12f", want) {
		t.Errorf("score = %v, want %v", got, want)
	}
	got = bm25Scores("retry", docs)[0]
	want = math.Log(1+(4-2+0.5)/(2+0.5)) * 2 * 2.2 / (2 + 1.2*(1-0.75+0.75*3/avg))
	if fmt.Sprintf("%.12f", got) != fmt.Sprintf("%.12f", want) {
		t.Errorf("score = %v, want %v", got, want)
	}
	if diff := cmp.Diff([]int{0, 2}, topByBM25("retry backoff", docs, 5)); diff != "" {
		t.Errorf("top (-want +got):\n%s", diff)
	}
	if got := topByBM25("", docs, 5); len(got) != 0 {
		t.Errorf("empty query: %v", got)
	}
}

func TestAccumulate(t *testing.T) {
	long := strings.Repeat("é", 250)
	rec := &recorder{name: "rec"}
	ex := NewExecutor(Options{DefaultProvider: &echoRecorder{rec: rec}})
	run := func(tm *templates.Template, args ...NamedArg) *value.TaskResult {
		return ex.Execute(context.Background(), Request{Template: tm, Named: args})
	}
	say := task(t, &templates.Template{Name: "say", Instructions: "{{x}}"})
	run(say, NamedArg{"x", value.String("first line\nsecond line")})                                         // #1
	run(say)                                                                                                 // #2 FAILED
	run(task(t, &templates.Template{Name: "internal:associative_matching_content", Instructions: "memory"})) // #3 internal
	run(say, NamedArg{"x", value.String(long)})                                                              // #4
	run(say, NamedArg{"x", value.String("")})                                                                // #5

	notes := task(t, &templates.Template{Name: "n", Instructions: "go", Context: templates.ContextSettings{AccumulateData: "true"}})
	run(notes) // #6
	want := sys(`<previous_outputs format="notes_only">`,
		"- say#1: first line",
		"- say#4: "+strings.Repeat("é", 200)+"…",
		"- say#5: ",
		"</previous_outputs>")
	if got := rec.last().System; got != want {
		t.Errorf("notes_only:\n%s\nwant:\n%s", got, want)
	}
	full := task(t, &templates.Template{Name: "f", Instructions: "go",
		Context: templates.ContextSettings{AccumulateData: "true", AccumulationFormat: "full_output"}})
	run(full) // #7
	want = sys(`<previous_outputs format="full_output">`,
		"## say#1", "first line", "second line", "",
		"## say#4", long, "",
		"## say#5", "",
		"", "## n#6", "go",
		"</previous_outputs>")
	if got := rec.last().System; got != want {
		t.Errorf("full_output:\n%s\nwant:\n%s", got, want)
	}
	// Off by default.
	run(task(t, &templates.Template{Name: "plain", Instructions: "go"}))
	if got := rec.last().System; got != DefaultBasePrompt {
		t.Errorf("default: %q", got)
	}
	// A call override turns it on.
	ex.Execute(context.Background(), Request{Template: say, Named: []NamedArg{{"x", value.String("y")}},
		Context: templates.ContextSettings{AccumulateData: "true"}})
	if got := rec.last().System; !strings.Contains(got, "- plain#8: go\n</previous_outputs>") {
		t.Errorf("call override: %q", got)
	}
}

func TestAccumulateSeqFromRequest(t *testing.T) {
	rec := &recorder{name: "rec"}
	ex := NewExecutor(Options{DefaultProvider: &echoRecorder{rec: rec}})
	say := task(t, &templates.Template{Name: "say", Instructions: "hi"})
	ex.Execute(context.Background(), Request{Template: say, Seq: 41})
	acc := task(t, &templates.Template{Name: "acc", Instructions: "x", Context: templates.ContextSettings{AccumulateData: "true"}})
	ex.Execute(context.Background(), Request{Template: acc})
	if got := rec.last().System; !strings.Contains(got, "- say#41: hi\n") {
		t.Errorf("system = %q", got)
	}
}

func TestSessionHistory(t *testing.T) {
	rec := &recorder{name: "rec"}
	ex := NewExecutor(Options{DefaultProvider: &echoRecorder{rec: rec}})
	yes, no, two := true, false, 2
	say := task(t, &templates.Template{Name: "say", Instructions: "{{x}}"})
	run := func(tm *templates.Template, x string, h templates.HistoryConfig) []string {
		ex.Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"x", value.String(x)}}, History: h})
		var out []string
		for _, m := range rec.last().Messages {
			out = append(out, m.Role+":"+m.Content)
		}
		return out
	}
	check := func(name string, got []string, want ...string) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	check("no history by default", run(say, "q1", templates.HistoryConfig{}), "user:q1")
	check("uses history", run(say, "q2", templates.HistoryConfig{UseSessionHistory: &yes}),
		"user:q1", "assistant:q1", "user:q2")
	check("not recorded", run(say, "q3", templates.HistoryConfig{RecordInSessionHistory: &no}), "user:q3")
	check("last N turns", run(say, "q4", templates.HistoryConfig{UseSessionHistory: &yes, HistoryTurnsToInclude: &two}),
		"user:q1", "assistant:q1", "user:q2", "assistant:q2", "user:q4")
	check("after q4", run(say, "q5", templates.HistoryConfig{UseSessionHistory: &yes, HistoryTurnsToInclude: &two}),
		"user:q2", "assistant:q2", "user:q4", "assistant:q4", "user:q5")

	// The template's history_config, overridden by the call's.
	tmplHist := task(t, &templates.Template{Name: "h", Instructions: "{{x}}", History: templates.HistoryConfig{UseSessionHistory: &yes, HistoryTurnsToInclude: &two}})
	one := 1
	check("template config", run(tmplHist, "q6", templates.HistoryConfig{}),
		"user:q4", "assistant:q4", "user:q5", "assistant:q5", "user:q6")
	check("call overrides", run(tmplHist, "q7", templates.HistoryConfig{HistoryTurnsToInclude: &one}),
		"user:q6", "assistant:q6", "user:q7")
	check("call disables", run(tmplHist, "q8", templates.HistoryConfig{UseSessionHistory: &no}), "user:q8")

	// Failed calls and internal calls are not recorded.
	ex.Execute(context.Background(), Request{Template: say})
	ex.Execute(context.Background(), Request{Template: task(t, &templates.Template{Name: "internal:associative_matching_metadata", Instructions: "mem"})})
	check("after failures", run(say, "q9", templates.HistoryConfig{UseSessionHistory: &yes, HistoryTurnsToInclude: &one}),
		"user:q8", "assistant:q8", "user:q9")
}

// TestDeliveryGolden checks the exact system prompt of SPEC §13.5 with every
// part: base prompt, <system>, summary, own and inherited files (one
// without a final line feed) and previous outputs.
func TestDeliveryGolden(t *testing.T) {
	root, _ := project(t, map[string]string{
		"internal/http/retry.go": "package http\n\n// Retry retries with backoff.\nfunc Retry() {}\n",
		"notes.md":               "no final line feed",
		"go.mod":                 "module example.com/x\n",
	})
	t.Chdir(root)
	rec := &recorder{name: "rec", answer: "Plan with 4 steps: add backoff, honour Retry-After\nmore"}
	ex := NewExecutor(Options{DefaultProvider: rec, Roles: map[string]string{"reviewer": "You review."}, RunFiles: []string{"go.mod"}})
	ex.Execute(context.Background(), Request{Template: task(t, &templates.Template{Name: "plan/generate", Instructions: "plan"})})
	ex.Execute(context.Background(), Request{Template: task(t, &templates.Template{Name: "plan/generate", Instructions: "plan"})})
	tm := task(t, &templates.Template{Name: "review", Role: "reviewer", System: "Focus on {{focus}}.", Instructions: "Review it.",
		Context: templates.ContextSettings{AccumulateData: "true"}})
	res := ex.Execute(context.Background(), Request{Template: tm, Named: []NamedArg{{"focus", value.String("retries")}},
		Files: []string{"internal/http/retry.go"}, Ambient: []value.Value{value.String("notes.md")},
		AmbientSummary: `2 matches for "retry policy" (content strategy, 412 files indexed)`})
	if res.Status != "COMPLETE" {
		t.Fatal(res)
	}
	got := rec.last().System
	golden := filepath.Join(testdataDir, "delivery.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("system prompt differs from %s (run with -update to accept):\n%s", golden, cmp.Diff(string(want), got))
	}
	if n, _ := res.Notes.Get("file_count"); n != value.Int(3) {
		t.Errorf("file_count = %v", n)
	}
}

// testdataDir is the package's testdata directory, found before a test
// changes the working directory.
var testdataDir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Join(wd, "testdata")
}()

func TestContextBlockParts(t *testing.T) {
	if got := (contextBlock{}).String(); got != "" {
		t.Errorf("empty block = %q", got)
	}
	got := contextBlock{files: []deliveredFile{{path: `a"<&.go`, origin: "explicit", text: ""}}}.String()
	if want := "<context>\n<file path=\"a&quot;&lt;&amp;.go\" origin=\"explicit\">\n</file>\n</context>"; got != want {
		t.Errorf("block = %q, want %q", got, want)
	}
	got = contextBlock{summary: "s"}.String()
	if want := "<context>\n<summary>s</summary>\n</context>"; got != want {
		t.Errorf("summary only = %q", got)
	}
}

// TestExecuteConcurrentRunState runs many calls that accumulate and record
// history at once, for the race detector, and checks the numbering.
func TestExecuteConcurrentRunState(t *testing.T) {
	root, _ := project(t, map[string]string{"a.go": "package a\n"})
	t.Chdir(root)
	yes := true
	ex := NewExecutor(Options{RunFiles: []string{"a.go"}, Memory: &fakeMemory{res: memory.Result{Matches: matches("a.go")}}})
	tm := task(t, &templates.Template{Name: "c", Instructions: "{{i}}", Context: templates.ContextSettings{AccumulateData: "true"},
		History: templates.HistoryConfig{UseSessionHistory: &yes}})
	fresh := task(t, &templates.Template{Name: "f", Subtype: "subtask", Description: "d", Instructions: "{{i}}"})
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			x := tm
			if i%3 == 0 {
				x = fresh
			}
			res := ex.Execute(context.Background(), Request{Template: x, Named: []NamedArg{{"i", value.Int(i)}}})
			if res.Status != "COMPLETE" {
				t.Errorf("%d: %v", i, res)
			}
		})
	}
	wg.Wait()
	calls := ex.state.completed()
	seqs := map[int]bool{}
	for _, c := range calls {
		seqs[c.seq] = true
	}
	if len(calls) != 24 || len(seqs) != 24 {
		t.Errorf("%d calls, %d distinct numbers", len(calls), len(seqs))
	}
}
