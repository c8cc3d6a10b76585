package journal_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/value"
)

func Example() {
	dir, err := os.MkdirTemp("", "journal")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	s, err := journal.Open(filepath.Join(dir, journal.DefaultPath))
	if err != nil {
		panic(err)
	}
	defer s.Close()

	run, _ := s.StartRun(journal.RunInfo{WorkflowPath: "release.sexp"})
	run.AddPendingSteps([]string{"plan", "lint"})
	step, _ := run.Begin(nil, journal.KindStep, "plan", "", nil)
	task, _ := run.Begin(step, journal.KindTask, "plan/generate", "hash", value.DictOf("goal", value.String("g")))
	task.Running()
	res := &value.TaskResult{Status: value.StatusComplete, Content: "{}"}
	task.End(journal.StatusCompleted, res, "", journal.Usage{InputTokens: 900, OutputTokens: 120, Turns: 1}, 0, false)
	step.End(journal.StatusCompleted, value.String("{}"), "", journal.Usage{}, 1, false)
	fmt.Println("task id seq:", task.Seq())

	tree, _ := s.Tree(run.ID())
	journal.RenderMarkdown(os.Stdout, tree)

	rp, _ := s.NewReplayer(run.ID())
	v, _, ok := rp.Next("plan/generate", "hash")
	fmt.Println(ok, v)
	// Output:
	// task id seq: 3
	// - [x] step plan
	//   - [x] task plan/generate
	// - [ ] step lint  <-- current
	// true #<TaskResult COMPLETE "{}">
}
