package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/evalrun/evalrun/internal/suggest"
)

// Options are what reading and checking a plan needs from the rest of
// evalrun: the task cap, the agents of §22 and the [plan.agents] table.
type Options struct {
	// MaxTasks is the cap on tasks, containers included; 0 means
	// DefaultMaxTasks.
	MaxTasks int
	// Agents are the names of the agents of §22 (built-in and
	// configured) that NAME(…) steps and meta.tool may name; nil means
	// BuiltinAgents.
	Agents []string
	// AgentMap is [plan.agents]: a meta.agent ("@code-developer") to an
	// agent name of §22.
	AgentMap map[string]string
	// HasTemplate reports whether a template of that name exists (for
	// plan/ROLE of a meta.agent outside Roles); nil means none but the
	// built-in roles.
	HasTemplate func(name string) bool
}

// BuiltinAgents are the agents of §22 that exist without configuration.
var BuiltinAgents = []string{"aider", "claude", "codex", "gemini", "qwen"}

func (o *Options) maxTasks() int {
	if o.MaxTasks > 0 {
		return o.MaxTasks
	}
	return DefaultMaxTasks
}

func (o *Options) agents() []string {
	if o.Agents != nil {
		return o.Agents
	}
	return BuiltinAgents
}

// stamp is what change detection compares: size, modification time and
// content hash at read.
type stamp struct {
	size  int64
	mtime time.Time
	sum   [32]byte
}

// readFile reads a plan file with its stamp.
func readFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &File{Path: path, Src: data, stamp: stamp{size: fi.Size(), mtime: fi.ModTime(), sum: sha256.Sum256(data)}}, nil
}

// missingDirError is the error of a plan directory that does not exist: it
// names the WFS-* session directories beside it, if any, to choose from.
func missingDirError(dir string) error {
	parent := filepath.Dir(filepath.Clean(dir))
	var sessions []string
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), "WFS-") {
				sessions = append(sessions, filepath.Join(parent, e.Name()))
			}
		}
	}
	if len(sessions) == 0 {
		return fmt.Errorf("plan directory %s does not exist", dir)
	}
	return fmt.Errorf("plan directory %s does not exist; the sessions beside it: %s", dir, strings.Join(sessions, ", "))
}

// Load reads the session directory dir and checks it (SPEC §23.2). The
// plan is returned whenever the directory could be read, with every
// problem found; use it for running only when the diagnostics hold no
// error. The error is for a directory that cannot be read.
func Load(dir string, opts Options) (*Plan, Diagnostics, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, missingDirError(dir)
	}
	if err != nil {
		return nil, nil, err
	}
	if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s is not a directory", dir)
	}
	p := &Plan{Dir: dir, Root: projectRoot(dir), Topic: strings.TrimPrefix(filepath.Base(filepath.Clean(dir)), "WFS-"), byKey: map[string]*Task{}}
	r := &reporter{}
	if f, err := readFile(filepath.Join(dir, "workflow-session.json")); err == nil {
		root, perr := parseJSON(f.Src)
		if perr != nil {
			se := perr.(*SyntaxError)
			r.at(f, se.Offset, SevError, "invalid JSON: %s", se.Msg)
		} else {
			f.Root = root
			p.Session = f
		}
	}
	taskDir := filepath.Join(dir, ".task")
	entries, err := os.ReadDir(taskDir)
	if err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	first := map[string]string{} // canonical key → file name
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(taskDir, name)
		if e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		base, isJSON := strings.CutSuffix(name, ".json")
		nums, ok := parseID(base)
		if !isJSON || !ok {
			msg := fmt.Sprintf("file name %s is not IMPL-N.json, IMPL-N.M.json, (a module's task) IMPL-AN.json or (a test cycle's fix) IMPL-fix-N.json", name)
			if toonBase, isTOON := strings.CutSuffix(name, ".toon"); isTOON {
				msg = fmt.Sprintf("%s is a task file in TOON format, which evalrun does not read: convert it to %s.json (for example with `npx @toon-format/cli %s -o %s.json`)", name, toonBase, name, toonBase)
			}
			if up := strings.ToUpper(base); isJSON {
				if n, ok := parseID(up); ok {
					msg += fmt.Sprintf(" (did you mean %s.json?)", keyOf(n))
				}
			}
			r.file(path, SevError, "%s", msg)
			continue
		}
		key := keyOf(nums)
		if prev, dup := first[key]; dup {
			r.file(path, SevError, "%s names the same task as %s", name, prev)
			continue
		}
		first[key] = name
		f, err := readFile(path)
		if err != nil {
			return nil, nil, err
		}
		t := &Task{ID: base, Key: key, Num: nums, File: f}
		root, perr := parseJSON(f.Src)
		if perr != nil {
			se := perr.(*SyntaxError)
			r.at(f, se.Offset, SevError, "invalid JSON: %s", se.Msg)
			p.Tasks = append(p.Tasks, t)
			p.byKey[key] = t
			continue
		}
		f.Root = root
		readTask(t, r, opts)
		p.Tasks = append(p.Tasks, t)
		p.byKey[key] = t
	}
	slices.SortStableFunc(p.Tasks, func(a, b *Task) int { return lessNums(a.Num, b.Num) })
	if len(entries) == 0 {
		r.file(taskDir, SevError, "no task files (.task/IMPL-N.json)")
	}
	validatePlan(p, r, opts)
	return p, r.diags, nil
}

// readTask fills t from its JSON tree, reporting problems of the file
// alone.
func readTask(t *Task, r *reporter, opts Options) {
	f := t.File
	root := f.Root
	if root.Kind != Object {
		r.node(f, root, SevError, "a task file holds an object, not %s", root.Kind)
		return
	}
	// CCW's unified flat schema (its task-schema.json) has no context
	// and no flow_control: their fields stand at the top level, and
	// status and meta may be absent (a task without status is pending).
	t.Flat = isFlat(root)
	required := []string{"id", "title", "status", "meta", "context"}
	if t.Flat {
		required = []string{"id", "title"}
	}
	for _, field := range required {
		if root.Get(field) == nil {
			r.file(f.Path, SevError, "missing core field %q", field)
		}
	}
	if id := root.Get("id"); id != nil {
		if k, ok := canonical(id.Text()); !ok || k != t.Key {
			r.node(f, id, SevError, "id %s differs from the file name %s", quoteNode(f, id), t.ID)
		}
	}
	t.Title = stringField(f, r, root, "title")
	if st := root.Get("status"); st != nil {
		t.Status = st.Text()
		if !slices.Contains(Statuses, t.Status) {
			h := hint(t.Status, Statuses)
			if alt, ok := statusSynonyms[t.Status]; ok {
				h = fmt.Sprintf(" (CCW's unified schema writes %q for what is %q here)", t.Status, alt)
			}
			r.node(f, st, SevError, "status %s is not one of %s%s", quoteNode(f, st), strings.Join(Statuses, " "), h)
		}
	} else if t.Flat {
		t.Status = StatusPending
	}
	meta := root.Get("meta")
	if meta != nil && meta.Kind != Object {
		r.node(f, meta, SevError, "meta must be an object, not %s", meta.Kind)
	}
	typeNode, typeName := meta.Get("type"), "meta.type"
	if typeNode == nil && t.Flat {
		typeNode, typeName = root.Get("type"), "type"
	}
	t.Type = typeNode.Text()
	t.Agent = meta.Get("agent").Text()
	toolNode := meta.Get("tool")
	if toolNode == nil {
		// meta.execution_config {method: "cli", cli_tool: T} hands the
		// task to the CLI tool T ("auto" and null leave the choice).
		if ec := meta.Get("execution_config"); ec.Get("method").Text() == "cli" {
			if ct := ec.Get("cli_tool"); ct != nil && ct.Kind == String && ct.Str != "auto" {
				toolNode = ct
			}
		}
	}
	t.Tool = toolNode.Text()
	if t.Type != "" && !slices.Contains(TaskTypes, t.Type) {
		r.node(f, typeNode, SevWarning, "%s %q is not one of %s%s", typeName, t.Type, strings.Join(TaskTypes, " "), hint(t.Type, TaskTypes))
	}
	if t.Agent != "" && !slices.Contains(Roles, t.Agent) {
		_, mapped := opts.AgentMap[t.Agent]
		hasTmpl := opts.HasTemplate != nil && opts.HasTemplate(TemplateFor(t.Agent))
		if !mapped && !hasTmpl {
			r.node(f, meta.Get("agent"), SevWarning, "meta.agent %q has no template %s and is not mapped in [plan.agents]; it runs as @universal-executor", t.Agent, TemplateFor(t.Agent))
		}
	}
	if t.Tool != "" && !slices.Contains(opts.agents(), t.Tool) {
		r.node(f, toolNode, SevWarning, "meta.tool %q is not an agent (%s)%s", t.Tool, strings.Join(opts.agents(), " "), hint(t.Tool, opts.agents()))
	}
	ctx := root.Get("context")
	if ctx != nil && ctx.Kind != Object {
		r.node(f, ctx, SevError, "context must be an object, not %s", ctx.Kind)
	}
	for _, deps := range []*Node{root.Get("depends_on"), ctx.Get("depends_on")} {
		if deps == nil {
			continue
		}
		if deps.Kind != Array {
			r.node(f, deps, SevError, "depends_on must be an array of task ids, not %s", deps.Kind)
			continue
		}
		for _, d := range deps.Items {
			if d.Kind != String {
				r.node(f, d, SevError, "depends_on entry %s is not a task id", string(f.Src[d.Start:d.End]))
				continue
			}
			k, ok := canonical(d.Str)
			if !ok {
				k = d.Str
			}
			if !slices.Contains(t.DependsOn, k) {
				t.DependsOn = append(t.DependsOn, k)
			}
		}
	}
	t.FocusPaths = listOrString(ctx.Get("focus_paths"))
	t.Requirements = texts(f, ctx.Get("requirements"))
	t.Acceptance = texts(f, ctx.Get("acceptance"))
	if t.Flat {
		t.FocusPaths = listOrString(root.Get("focus_paths"))
		t.Requirements = texts(f, root.Get("description"))
		t.Acceptance = texts(f, root.Get("convergence").Get("criteria"))
	}
	if paths := root.Get("paths"); paths != nil && paths.Kind == String {
		var parts []string
		for s := range strings.SplitSeq(paths.Str, ";") {
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, encodeString(s))
			}
		}
		r.node(f, paths, SevWarning, "the \"paths\" string is deprecated: write \"focus_paths\": [%s] in context", strings.Join(parts, ", "))
	}
	flow := root.Get("flow_control")
	t.HasFlow = flow != nil || t.Flat
	if flow != nil && flow.Kind != Object {
		r.node(f, flow, SevError, "flow_control must be an object, not %s", flow.Kind)
		return
	}
	tf := flow.Get("target_files")
	if tf == nil {
		tf = ctx.Get("target_files")
	}
	t.TargetFiles = listOrString(tf)
	if t.Flat {
		// files: [{path, action, target, change}] → path[:target].
		var files []*Node
		if fl := root.Get("files"); fl != nil && fl.Kind == Array {
			files = fl.Items
		}
		for _, it := range files {
			p := it.Get("path").Text()
			if it.Kind == String {
				p = it.Str
			}
			if p == "" {
				continue
			}
			if tg := it.Get("target").Text(); tg != "" && !strings.ContainsAny(tg, " :") {
				p += ":" + tg
			}
			t.TargetFiles = append(t.TargetFiles, p)
		}
	}
	if tf != nil {
		for _, it := range tf.Items {
			if it.Kind == String && !targetFileForm(it.Str) {
				r.node(f, it, SevWarning, "target_files entry %q is not of the form file[:function[:lines]]", it.Str)
			}
		}
	}
	if t.Flat {
		readPreAnalysis(t, r, root.Get("pre_analysis"), opts)
		readApproach(t, r, root.Get("implementation"))
	} else {
		readPreAnalysis(t, r, flow.Get("pre_analysis"), opts)
		readApproach(t, r, flow.Get("implementation_approach"))
	}
	placeholders(f, r, root, "")
}

// statusSynonyms are the statuses of CCW's unified task schema that
// evalrun's statuses name otherwise.
var statusSynonyms = map[string]string{"in_progress": StatusActive, "failed": StatusBlocked}

// stringField returns the string member key of obj, reporting a value of
// another kind.
func stringField(f *File, r *reporter, obj *Node, key string) string {
	n := obj.Get(key)
	if n != nil && n.Kind != String {
		r.node(f, n, SevError, "%s must be a string, not %s", key, n.Kind)
	}
	return n.Text()
}

// isFlat reports whether a task object is in CCW's unified flat schema:
// no context and no flow_control, and one of the top-level fields that
// schema moved out of them.
func isFlat(root *Node) bool {
	if root.Get("context") != nil || root.Get("flow_control") != nil {
		return false
	}
	for _, k := range []string{"description", "convergence", "implementation", "pre_analysis", "focus_paths", "files"} {
		if root.Get(k) != nil {
			return true
		}
	}
	return false
}

// texts reads a list of requirements or acceptance criteria: strings,
// a single string, or objects as CCW's test planners write them
// ({"criterion": …, "verification": …}), each shown as its text and how
// it is verified; another object is shown as its JSON.
func texts(f *File, n *Node) []string {
	if n == nil {
		return nil
	}
	if n.Kind != Array {
		if n.Kind == String {
			return []string{n.Str}
		}
		return nil
	}
	var out []string
	for _, it := range n.Items {
		switch it.Kind {
		case String:
			out = append(out, it.Str)
		case Object:
			text := ""
			for _, k := range []string{"criterion", "criteria", "description", "requirement", "text", "title", "name"} {
				if v := it.Get(k); v != nil && v.Kind == String {
					text = v.Str
					break
				}
			}
			if text == "" {
				out = append(out, compactJSON(f.Src[it.Start:it.End]))
				continue
			}
			for _, k := range []string{"verification", "verify", "command", "test"} {
				if v := it.Get(k); v != nil && v.Kind == String && v.Str != "" {
					text += ": verify by " + v.Str
					break
				}
			}
			out = append(out, text)
		case Number, Bool:
			out = append(out, string(f.Src[it.Start:it.End]))
		}
	}
	return out
}

// compactJSON returns JSON source text without its layout.
func compactJSON(src []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, src) != nil {
		return string(src)
	}
	return b.String()
}

// listOrString reads a list of strings or a single string.
func listOrString(n *Node) []string {
	if n != nil && n.Kind == String {
		return []string{n.Str}
	}
	return n.Strings()
}

// quoteNode returns the source text of a node, for messages.
func quoteNode(f *File, n *Node) string { return string(f.Src[n.Start:n.End]) }

// suggestClosest is suggest.Closest.
var suggestClosest = suggest.Closest

// hint returns " (did you mean X?)" for the candidate nearest to s.
func hint(s string, candidates []string) string {
	if c := suggest.Closest(s, candidates); c != "" && c != s {
		return fmt.Sprintf(" (did you mean %s?)", c)
	}
	return ""
}

// targetFileForm reports whether s is file, file:function or
// file:function:lines with lines N or N-M.
func targetFileForm(s string) bool {
	parts := strings.Split(s, ":")
	// A Windows drive letter (C:\x) is part of the file.
	if len(parts) > 1 && len(parts[0]) == 1 && strings.HasPrefix(parts[1], `\`) {
		parts = append([]string{parts[0] + ":" + parts[1]}, parts[2:]...)
	}
	if len(parts) > 3 || parts[0] == "" || strings.TrimSpace(parts[0]) != parts[0] {
		return false
	}
	if len(parts) >= 2 && parts[1] == "" {
		return false
	}
	if len(parts) == 3 {
		a, b, _ := strings.Cut(parts[2], "-")
		if a == "" || strings.Trim(a, "0123456789") != "" || strings.Trim(b, "0123456789") != "" {
			return false
		}
	}
	return true
}

// placeholder finds a planner's unfilled placeholder, ${NAME} or
// {{NAME}}, in s; "" when there is none.
var placeholder = regexp.MustCompile(`\$\{[^}\s]+\}|\{\{[^}\s]+\}\}`)

// placeholders warns about ${NAME} and {{NAME}} left in string values of
// the task.
func placeholders(f *File, r *reporter, n *Node, field string) {
	switch n.Kind {
	case String:
		if m := placeholder.FindString(n.Str); m != "" {
			r.node(f, n, SevWarning, "unfilled placeholder %s in %s", m, field)
		}
	case Array:
		for i, it := range n.Items {
			placeholders(f, r, it, fmt.Sprintf("%s[%d]", field, i))
		}
	case Object:
		for _, m := range n.Members {
			name := m.Key
			if field != "" {
				name = field + "." + m.Key
			}
			placeholders(f, r, m.Value, name)
		}
	}
}
