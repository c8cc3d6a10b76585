package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ChangedError says that a plan file changed on disk since the run read
// it: the run does not overwrite it and stops.
type ChangedError struct{ Path string }

// Error returns the message.
func (e *ChangedError) Error() string {
	return fmt.Sprintf("%s was changed by someone else while the plan ran; it was not overwritten (run again to continue)", e.Path)
}

// WriteAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader sees the old file or the new one.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if fi, err := os.Stat(path); err == nil {
			_ = os.Chmod(name, fi.Mode().Perm())
		} else {
			_ = os.Chmod(name, 0o644)
		}
		werr = os.Rename(name, path)
	}
	if werr != nil {
		_ = os.Remove(name)
		return werr
	}
	return nil
}

// unchanged checks that the file on disk is still what was read.
func (f *File) unchanged() error {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &ChangedError{Path: f.Path}
		}
		return err
	}
	if len(data) != int(f.stamp.size) || sha256.Sum256(data) != f.stamp.sum {
		return &ChangedError{Path: f.Path}
	}
	return nil
}

// replace writes new contents to the file after checking that nobody
// changed it, and takes them as the file's state.
func (f *File) replace(src []byte) error {
	if err := f.unchanged(); err != nil {
		return err
	}
	root, err := parseJSON(src)
	if err != nil {
		return fmt.Errorf("%s: internal error: write-back produced invalid JSON: %w", f.Path, err)
	}
	if err := WriteAtomic(f.Path, src); err != nil {
		return err
	}
	fi, err := os.Stat(f.Path)
	if err != nil {
		return err
	}
	f.Src, f.Root, f.lines = src, root, nil
	f.stamp = stamp{size: fi.Size(), mtime: fi.ModTime(), sum: sha256.Sum256(src)}
	return nil
}

// SetStatus writes a task's status into its file, changing nothing else
// in it: the other fields, their order and the indentation stay as they
// are. It fails with *ChangedError when the file changed since it was
// read.
func (p *Plan) SetStatus(t *Task, status string) error {
	st := t.File.Root.Get("status")
	var src []byte
	if st == nil {
		src = setMember(t.File.Src, t.File.Root, "status", encodeString(status))
	} else {
		src = replaceSpan(t.File.Src, st.Start, st.End, encodeString(status))
	}
	if err := t.File.replace(src); err != nil {
		return err
	}
	t.Status = status
	return nil
}

// Progress counts the tasks of the plan by status.
func (p *Plan) Progress() map[string]int {
	m := map[string]int{}
	for _, t := range p.Tasks {
		m[t.Status]++
	}
	return m
}

// WriteSession rewrites the progress member of workflow-session.json
// (counts by status and updated_at), keeping everything else of the
// file; a plan without the file gets one.
func (p *Plan) WriteSession(now time.Time) error {
	prog := p.Progress()
	members := []KV{{"total", len(p.Tasks)}}
	for _, s := range Statuses {
		members = append(members, KV{s, prog[s]})
	}
	members = append(members, KV{"updated_at", now.UTC().Format(time.RFC3339)})
	if p.Session == nil {
		path := filepath.Join(p.Dir, "workflow-session.json")
		if _, err := os.Stat(path); err == nil {
			return fmt.Errorf("%s is not valid JSON; progress not written", path)
		}
		doc := layoutObject([]KV{{"session_id", filepath.Base(filepath.Clean(p.Dir))}, {"status", "active"}, {"progress", members}}, "", "  ") + "\n"
		if err := WriteAtomic(path, []byte(doc)); err != nil {
			return err
		}
		f, err := readFile(path)
		if err != nil {
			return err
		}
		f.Root, _ = parseJSON(f.Src)
		p.Session = f
		return nil
	}
	f := p.Session
	if f.Root.Kind != Object {
		return fmt.Errorf("%s does not hold an object; progress not written", f.Path)
	}
	if prog := f.Root.Get("progress"); prog != nil && prog.Kind == Object && len(prog.Members) > 0 {
		// CCW keeps its own progress there (completed_phases,
		// current_tasks, last_checkpoint): evalrun's members are set
		// among them, each in place or appended in the object's style.
		src := f.Src
		for _, m := range members {
			root, err := parseJSON(src)
			if err != nil {
				return fmt.Errorf("%s: internal error: %w", f.Path, err)
			}
			var val string
			switch v := m.Value.(type) {
			case int:
				val = strconv.Itoa(v)
			case string:
				val = encodeString(v)
			}
			src = setMember(src, root.Get("progress"), m.Key, val)
		}
		return f.replace(src)
	}
	unit := indentUnit(f.Src, f.Root)
	indent := ""
	if len(f.Root.Members) > 0 && bytes.IndexByte(f.Src[f.Root.Start:f.Root.Members[0].KeyStart], '\n') >= 0 {
		indent = indentOf(f.Src, f.Root.Members[0].KeyStart)
	}
	val := strings.ReplaceAll(layoutObject(members, indent, unit), "\n", lineEnding(f.Src))
	return f.replace(setMember(f.Src, f.Root, "progress", val))
}

// RunRecord is what evalrun keeps about one task across runs in
// .process/evalrun-state.json (the task files hold only the status).
type RunRecord struct {
	Agent      string  `json:"agent,omitempty"`
	StartedAt  string  `json:"started_at,omitempty"`
	FinishedAt string  `json:"finished_at,omitempty"`
	Run        string  `json:"run,omitempty"`
	Tokens     int64   `json:"tokens,omitempty"`
	CostUSD    float64 `json:"cost_usd,omitempty"`
	Reason     string  `json:"reason,omitempty"`
}

// StatePath is where a plan's run records are kept.
func (p *Plan) StatePath() string { return filepath.Join(p.Dir, ".process", "evalrun-state.json") }

// ReadState returns the run records by canonical task id; a missing file
// is an empty map.
func (p *Plan) ReadState() (map[string]*RunRecord, error) {
	m := map[string]*RunRecord{}
	data, err := os.ReadFile(p.StatePath())
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Tasks map[string]*RunRecord `json:"tasks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		if _, perr := parseJSON(data); perr != nil {
			err = perr // with its position
		}
		return nil, positioned(p.StatePath(), data, err)
	}
	for k, v := range doc.Tasks {
		if v != nil {
			m[k] = v
		}
	}
	return m, nil
}

// WriteState writes the run records.
func (p *Plan) WriteState(m map[string]*RunRecord) error {
	data, err := json.MarshalIndent(struct {
		Tasks map[string]*RunRecord `json:"tasks"`
	}{m}, "", "  ")
	if err != nil {
		return err
	}
	return WriteAtomic(p.StatePath(), append(data, '\n'))
}

// reasons extracts the failure reasons of run records.
func reasons(m map[string]*RunRecord) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if v.Reason != "" {
			out[k] = v.Reason
		}
	}
	return out
}
