package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Schedule is the scheduling state of one plan run, apart from the plan's
// files: which leaf tasks may start, which run, which finished. It is a
// pure value — no files, no goroutines, no clock — so that the choice of
// the next tasks is the same function wherever the run is driven: Run's
// goroutines here, and the workflow code of a run on Temporal (package
// temporal), which receives a Schedule from a worker and keeps it in
// workflow state. A Schedule encodes as JSON.
type Schedule struct {
	// Parallel is how many tasks run at once, at least 1.
	Parallel int
	// Chosen says that --task chose the tasks: a blocked (failed) task
	// it names runs again.
	Chosen bool
	// Tasks are the plan's tasks in id order, containers included.
	Tasks []ScheduledTask
}

// ScheduledTask is one task of a Schedule.
type ScheduledTask struct {
	// ID is the id as written; Key the canonical id.
	ID, Key string
	// Subtasks are the keys of a container's subtasks.
	Subtasks []string `json:",omitempty"`
	// Deps are the keys the task waits for: its depends_on, then its
	// container's.
	Deps []string `json:",omitempty"`
	// Focus are its focus_paths: two tasks whose paths overlap never run
	// at the same time.
	Focus []string `json:",omitempty"`
	// Status is its status: as read, then as the run changes it.
	Status string
	// Selected says that --task chose it (every task without --task);
	// Restart that --resume starts it again although it is active.
	Selected, Restart bool
	// Sums are the SHA-256 sums (hex) its file may have when a step of
	// it starts: as read, and with its status set to active (a step
	// started before, on a worker that was lost).
	Sums []string `json:",omitempty"`
	// Agents are the agents a step of the task runs: its executor and the
	// agents of its NAME(…) commands, sorted; filled by whoever knows the
	// configuration (nil for a local run).
	Agents []string `json:",omitempty"`

	// Running and Failed are the run's state of the task.
	Running, Failed bool
}

// NewSchedule returns the schedule of a run of p that starts the tasks
// sel chooses (nil: all) with up to parallel at once; restart holds the
// active tasks that --resume starts again.
func NewSchedule(p *Plan, sel func(*Task) bool, restart map[*Task]bool, parallel int) *Schedule {
	s := &Schedule{Parallel: max(parallel, 1), Chosen: sel != nil}
	for _, t := range p.Tasks {
		st := ScheduledTask{ID: t.ID, Key: t.Key, Status: t.Status, Focus: t.FocusPaths,
			Selected: sel == nil || sel(t), Restart: restart[t]}
		for _, c := range t.Subtasks {
			st.Subtasks = append(st.Subtasks, c.Key)
		}
		st.Deps = slices.Clone(t.DependsOn)
		if t.Parent != nil {
			st.Deps = append(st.Deps, t.Parent.DependsOn...)
		}
		s.Tasks = append(s.Tasks, st)
	}
	return s
}

// fileSums returns the sums a step of t accepts for its file: as read,
// and with the status active.
func fileSums(t *Task) []string {
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	out := []string{sum(t.File.Src)}
	if t.Status != StatusActive {
		if st := t.File.Root.Get("status"); st == nil {
			out = append(out, sum(setMember(t.File.Src, t.File.Root, "status", encodeString(StatusActive))))
		} else {
			out = append(out, sum(replaceSpan(t.File.Src, st.Start, st.End, encodeString(StatusActive))))
		}
	}
	return out
}

// task returns the scheduled task of key, or nil.
func (s *Schedule) task(key string) *ScheduledTask {
	for i := range s.Tasks {
		if s.Tasks[i].Key == key {
			return &s.Tasks[i]
		}
	}
	return nil
}

// Task returns the scheduled task whose written id is id, or nil.
func (s *Schedule) Task(id string) *ScheduledTask {
	for i := range s.Tasks {
		if s.Tasks[i].ID == id {
			return &s.Tasks[i]
		}
	}
	return nil
}

// done reports whether a task is completed: a leaf whose status is
// completed, a container whose subtasks all are.
func (s *Schedule) done(t *ScheduledTask) bool {
	if len(t.Subtasks) > 0 {
		for _, k := range t.Subtasks {
			if c := s.task(k); c == nil || !s.done(c) {
				return false
			}
		}
		return true
	}
	return t.Status == StatusCompleted
}

// unmet returns the written ids of the tasks t waits for that are not
// completed (a key the plan lacks as it is).
func (s *Schedule) unmet(t *ScheduledTask) []string {
	var out []string
	for _, d := range t.Deps {
		u := s.task(d)
		if u == nil {
			out = append(out, d)
			continue
		}
		if !s.done(u) && !slices.Contains(out, u.ID) {
			out = append(out, u.ID)
		}
	}
	return out
}

// runnable reports whether a leaf may start now (running or not).
func (s *Schedule) runnable(t *ScheduledTask) bool {
	if len(t.Subtasks) > 0 || !t.Selected || t.Failed {
		return false
	}
	// A blocked (failed) task runs again only when --task names it.
	retry := t.Status == StatusBlocked && s.Chosen
	if t.Status != StatusPending && !(t.Status == StatusActive && t.Restart) && !retry {
		return false
	}
	return len(s.unmet(t)) == 0
}

// Running returns the number of tasks running.
func (s *Schedule) Running() int {
	n := 0
	for i := range s.Tasks {
		if s.Tasks[i].Running {
			n++
		}
	}
	return n
}

// Next marks as running and returns the ids of the leaves that start
// now, in id order: ready ones (selected, pending or to restart, their
// dependencies completed), up to Parallel running at once, none whose
// focus_paths overlap those of a running task or of one started before it.
func (s *Schedule) Next() []string {
	var ids []string
	running := s.Running()
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if running >= s.Parallel {
			break
		}
		if t.Running || !s.runnable(t) {
			continue
		}
		if slices.ContainsFunc(s.Tasks, func(u ScheduledTask) bool { return u.Running && overlap(u.Focus, t.Focus) }) {
			continue
		}
		t.Running = true
		running++
		ids = append(ids, t.ID)
	}
	return ids
}

// Finish records the end of the step of task id: completed (its status
// is then completed), failed (it does not start again in this run), or
// neither (the run stops: the task stays as it is).
func (s *Schedule) Finish(id string, completed, failed bool) {
	t := s.Task(id)
	if t == nil {
		return
	}
	t.Running = false
	switch {
	case completed:
		t.Status = StatusCompleted
	case failed:
		t.Failed = true
	}
}

// NotStarted is a selected task a run leaves undone and why: "status S"
// or "waiting for IDS".
type NotStarted struct {
	ID, Why string
}

// NotStarted returns, in id order, the selected leaves that are neither
// completed nor failed at the end of a run, with why.
func (s *Schedule) NotStarted() []NotStarted {
	var out []NotStarted
	for i := range s.Tasks {
		t := &s.Tasks[i]
		if len(t.Subtasks) > 0 || !t.Selected || s.done(t) || t.Failed {
			continue
		}
		why := "status " + t.Status
		if un := s.unmet(t); len(un) > 0 {
			why = "waiting for " + strings.Join(un, ", ")
		}
		out = append(out, NotStarted{ID: t.ID, Why: why})
	}
	return out
}
