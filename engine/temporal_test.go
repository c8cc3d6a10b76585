//go:build temporal

package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/progress"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/temporal"
	"github.com/evalrun/evalrun/value"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
)

// TestTemporalExamples runs examples of examples/ on the echo provider in
// this process and as the evalrun.Run workflow whose calls go through the
// engine's task system (the SDK's test environment, no server): the values
// are the same.
func TestTemporalExamples(t *testing.T) {
	for _, c := range []struct {
		dir, file string
		inputs    []Input
	}{
		{"", "greet.sexp", nil},
		{"", "fanout.sexp", nil},
		{"improve", "improve.sexp", []Input{{Name: "goal", Value: value.String("A Getting started section")}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			copyTree(t, filepath.Join("..", "examples", c.dir), dir, c.file)
			text, err := os.ReadFile(filepath.Join(dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			open := func() *Engine {
				e, err := Open(Options{WorkDir: dir, Provider: "echo", Inputs: c.inputs, Stderr: &stderr, Getenv: func(string) string { return "" }})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { e.Close() })
				return e
			}
			src := sexp.NewSource(c.file, string(text))
			prog, err := Compile(src)
			if err != nil {
				t.Fatal(err)
			}
			le := open()
			// The local run's display events, as its display would get
			// them.
			var rec eventRecorder
			le.sinks = append(le.sinks, progress.NewSink(&rec))
			local, err := le.Run(context.Background(), prog)
			if err != nil {
				t.Fatal(err)
			}
			localStderr := stderr.String()

			e := open()
			var s testsuite.WorkflowTestSuite
			s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
			env := s.NewTestWorkflowEnvironment()
			temporal.RegisterWorker(env, workerTasks{e, e.tasks}, e.runTasks, false)
			in := temporal.RunInput{Sources: []temporal.Source{{Name: c.file, Text: string(text)}}, Limits: e.limits}
			for _, i := range c.inputs {
				x, err := temporal.Encode(i.Value)
				if err != nil {
					t.Fatal(err)
				}
				in.Inputs = append(in.Inputs, temporal.NamedInput{Name: i.Name, Value: x})
			}
			env.ExecuteWorkflow(temporal.WorkflowName, in)
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var out temporal.RunOutput
			if err := env.GetWorkflowResult(&out); err != nil {
				t.Fatal(err)
			}
			got, err := temporal.Decode(out.Value)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != local.String() {
				t.Fatalf("workflow value:\n%s\nlocal value:\n%s", got, local)
			}
			if len(local.String()) < 20 {
				t.Fatalf("suspiciously short value %s", local)
			}
			// The usage line of the followed run is the local run's.
			if got, want := usageOf(out.Usage).Line(), le.Usage().Line(); got != want || !strings.HasPrefix(want, "usage: ") {
				t.Fatalf("workflow usage line %q, local %q", got, want)
			}
			// The display gets the same call events from the progress
			// query as from the local trace seam (the order of parallel
			// calls aside; the workflow knows a call's executor once a call
			// of its template has finished).
			qv, err := env.QueryWorkflow(temporal.ProgressQuery, 0)
			if err != nil {
				t.Fatal(err)
			}
			var page temporal.ProgressPage
			if err := qv.Get(&page); err != nil {
				t.Fatal(err)
			}
			if page.Usage != out.Usage || page.More {
				t.Fatalf("query usage %+v, result usage %+v, more %v", page.Usage, out.Usage, page.More)
			}
			var remote []progress.Event
			var printed strings.Builder
			for _, e := range page.Events {
				if e.Print != "" {
					printed.WriteString(e.Print)
					continue
				}
				remote = append(remote, e.Event)
			}
			// The lines the program printed (log-message) are the local
			// run's; the local stderr also has the templates' provenance
			// lines, which on Temporal the workers print.
			if c.file == "fanout.sexp" && printed.String() != "log: 4 of 4 summaries completed\n" {
				t.Fatalf("printed %q", printed.String())
			}
			if p := printed.String(); !strings.Contains(localStderr, p) {
				t.Fatalf("printed %q, local stderr %q", p, localStderr)
			}
			if g, w := eventSet(remote), eventSet(rec.events); g != w {
				t.Fatalf("workflow display events:\n%s\nlocal:\n%s", g, w)
			}
		})
	}
}

// eventRecorder records display events.
type eventRecorder struct {
	mu     sync.Mutex
	events []progress.Event
}

func (r *eventRecorder) Event(e progress.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// eventSet prints events one a line, sorted, without what differs between
// two runs of the same program: times, numbers (parallel calls are
// numbered in the order they happen to start) and executors.
func eventSet(evs []progress.Event) string {
	kinds := map[uint64]string{}
	var lines []string
	for _, e := range evs {
		if e.Kind != "" {
			kinds[e.ID] = e.Kind + " " + e.Name
		}
		lines = append(lines, fmt.Sprintf("%d %s in [%s] total=%d done=%d status=%s tokens=%d+%d cost=%g/%v",
			e.Phase, kinds[e.ID], kinds[e.Parent], e.Total, e.Done, e.Status, e.InputTokens, e.OutputTokens, e.Cost, e.CostKnown))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// copyTree copies file and the .evalrun directory of from into to.
func copyTree(t *testing.T, from, to, file string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if rel == "." {
			return nil
		}
		first := rel
		if i := bytes.IndexByte([]byte(rel), filepath.Separator); i >= 0 {
			first = rel[:i]
		}
		if first != ".evalrun" && rel != file {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
