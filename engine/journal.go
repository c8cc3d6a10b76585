package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/value"
)

// JournalInfo asks Open to record the run in the project's journal,
// .evalrun/journal.db under the project root (SPEC §16). Dry runs are never
// journaled.
type JournalInfo struct {
	// WorkflowPath is the workflow file as given on the command line
	// ("<eval>" for an expression).
	WorkflowPath string
	// WorkflowText is the workflow's text, whose SHA-256 is recorded.
	WorkflowText string
	// Files are the workflow files of a run of files, as given; they are
	// recorded so that --resume finds them again whatever their names
	// hold (spaces included). nil records WorkflowPath as the one file,
	// unless it is "<eval>" or "task NAME".
	Files []string
	// Args holds the run's arguments as a dict, or nil; nil records
	// the run's arguments as --resume reads them again (runArgs): the
	// --set values (Options.Inputs), Files and the flags --provider,
	// --model, --agent, --role and --context.
	Args value.Value
	// OmitWithoutCalls leaves the run out of the journal when it completes
	// without a step, task or tool call: `evalrun eval` of an expression
	// (docs/runs.md). Every other run is recorded.
	OmitWithoutCalls bool
}

// runArgs is the arguments dict of a journaled run: "set" (the inputs
// by name), "files", and "provider", "model", "agent", "role" and
// "contexts" when given. FindResume reads it back.
func runArgs(opts *Options, files []string) value.Value {
	d := value.NewDict(4)
	set := value.NewDict(len(opts.Inputs))
	for _, in := range opts.Inputs {
		set.Set(in.Name, in.Value)
	}
	d.Set("set", set)
	if len(files) > 0 {
		d.Set("files", stringsList(files))
	}
	for _, kv := range [][2]string{{"provider", opts.Provider}, {"model", opts.Model}, {"agent", opts.Agent}, {"role", opts.Role}} {
		if kv[1] != "" {
			d.Set(kv[0], value.String(kv[1]))
		}
	}
	if len(opts.Contexts) > 0 {
		d.Set("contexts", stringsList(opts.Contexts))
	}
	return d
}

func stringsList(ss []string) value.List {
	l := make(value.List, len(ss))
	for i, s := range ss {
		l[i] = value.String(s)
	}
	return l
}

// runJournal is the run's journal: the store, the run, and the trace sink
// that records the run's spans and replays a resumed run's calls
// (journal.Sink). A failed write is reported once on stderr and does not
// stop the run.
type runJournal struct {
	store  *journal.Store
	run    *journal.Run
	sink   *journal.Sink
	stderr *lockedWriter
	// start is the time of {{date}}: the run's, or the first resumed
	// run's.
	start time.Time
	// prior is what the resumed runs spent (their calls that were not
	// replayed), counted by the run's budget (SPEC §14.9).
	prior journal.Spent

	warnOnce sync.Once
	finished sync.Once
	planOnce sync.Once
}

// openJournal opens the journal of the project at root and starts a run,
// resuming the run resumedFrom when it is not "" (SPEC §16.4): completed
// task calls and workflow-level tool calls of that run (and of the runs it
// resumed from) are replayed, and {{date}} is the start time of the first
// run of that chain; the budgets given for the run (maxCost, maxTokens)
// are recorded, for a run that resumes it. The database is opened lazily,
// on the first call the run records or when the run finishes, so that
// starting a run costs no database work.
func openJournal(root string, info *JournalInfo, resumedFrom string, start time.Time, stderr *lockedWriter, maxCost float64, maxTokens int64) (*runJournal, error) {
	s := journal.OpenLazy(filepath.Join(root, journal.DefaultPath))
	j := &runJournal{store: s, stderr: stderr, start: start}
	var replay *journal.Replayer
	var err error
	if resumedFrom != "" {
		if replay, err = s.NewReplayer(resumedFrom); err != nil {
			s.Close()
			return nil, errorf(KindUsage, "--resume %s: %v", resumedFrom, err)
		}
		chain := replay.Chain()
		first, err := s.GetRun(chain[len(chain)-1])
		if err != nil {
			s.Close()
			return nil, errorf(KindUsage, "--resume %s: %v", resumedFrom, err)
		}
		j.start = first.StartedAt
		if j.prior, err = s.Spending(chain); err != nil {
			s.Close()
			return nil, errorf(KindUsage, "--resume %s: %v", resumedFrom, err)
		}
	}
	j.run, err = s.StartRun(journal.RunInfo{
		WorkflowPath:   info.WorkflowPath,
		WorkflowSHA256: hashWorkflowText(info.WorkflowText),
		Args:           info.Args,
		ResumedFrom:    resumedFrom,
		StartedAt:      start,
		MaxCostUSD:     maxCost,
		MaxTokens:      maxTokens,

		OmitWithoutCalls: info.OmitWithoutCalls,
	})
	if err != nil {
		s.Close()
		return nil, errorf(KindConfig, "%v", err)
	}
	j.sink = journal.NewSink(j.run, replay, j.warn)
	return j, nil
}

// warn reports the first failed journal write.
func (j *runJournal) warn(err error) {
	if err == nil {
		return
	}
	j.warnOnce.Do(func() { j.stderr.printf("warning: %v\n", err) })
}

// finish records the end of the run, once.
func (j *runJournal) finish(final value.Value, err error) {
	j.finished.Do(func() {
		status := journal.StatusCompleted
		if err != nil {
			status = journal.StatusFailed
		} else if r, ok := final.(*value.TaskResult); ok && r.Status == value.StatusFailed {
			status = journal.StatusFailed
		}
		j.warn(j.run.Finish(status, final, err))
	})
}

// abort records the run as failed with the error msg and its unfinished
// calls as failed execution_halted (journal.Run.Abort), unless the run's
// end was recorded already, waiting at most within: the process exits
// next, whether the journal answered or not. It reports whether the end
// is recorded.
func (j *runJournal) abort(msg string, within time.Duration) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		j.finished.Do(func() { j.warn(j.run.Abort(msg)) })
	}()
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// close finishes the run if nothing did (as failed) and closes the store.
func (j *runJournal) close() error {
	j.finish(nil, errors.New("the run ended without a result"))
	return j.store.Close()
}

// plan creates the pending steps of a program once per run (SPEC §16.2).
func (j *runJournal) plan(names []string) {
	j.planOnce.Do(func() {
		if len(names) > 0 {
			_, err := j.run.AddPendingSteps(names)
			j.warn(err)
		}
	})
}

// hashWorkflowText is journal.HashWorkflow of a workflow's text, hashed
// through a small buffer rather than from a copy of the whole text as
// bytes: a workflow may hold megabytes of data.
func hashWorkflowText(text string) string {
	h := sha256.New()
	var buf [32 << 10]byte
	for len(text) > 0 {
		n := copy(buf[:], text)
		h.Write(buf[:n]) // a hash.Hash never fails to write
		text = text[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}
