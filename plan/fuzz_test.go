package plan

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzTaskSeeds are task files in the six-field schema and CCW's flat
// "unified" schema, as the fixtures write them.
var fuzzTaskSeeds = []string{
	"{\n  \"id\": \"IMPL-1\",\n  \"title\": \"Task x\",\n  \"status\": \"pending\",\n  \"meta\": {\"type\": \"feature\", \"agent\": \"@code-developer\"},\n  \"context\": {\"requirements\": [\"r\"], \"acceptance\": [\"Works\"], \"depends_on\": [], \"focus_paths\": [\"src/auth\"]},\n  \"flow_control\": {\n    \"pre_analysis\": [{\"step\": \"ctx\", \"action\": \"Load\", \"commands\": [\"bash(ls src)\", \"Read(README.md)\", \"gemini(Explain [ctx])\", \"bash(ccw cli -p \\\"PURPOSE: x\\\" --tool qwen --mode analysis --cd src)\"], \"output_to\": \"ctx\", \"on_error\": \"fail\"}],\n    \"implementation_approach\": [{\"step\": 1, \"title\": \"Implement\", \"description\": \"Use [ctx]\", \"depends_on\": [], \"output\": \"impl\", \"command\": \"ccw cli -p 'Fix it' --tool codex\"}]\n  },\n  \"unknown\": {\"kept\": [1, 2.5e3, null]}\n}\n",
	flatTask,
	`{"id": "IMPL-1", "title": "T", "status": "in_progress", "description": "d"}`,
	"{\r\n\t\"id\": \"IMPL-1\",\r\n\t\"title\": \"T\",\r\n\t\"meta\": {},\r\n\t\"context\": {}\r\n}",
	`{"id":"IMPL-1","title":"T","status":"done","meta":{"execution_config":{"method":"cli","cli_tool":"gemini"}},"context":{"depends_on":["IMPL-A1","IMPL-fix-2"]}}`,
	`{"id": "IMPL-1", "title": "T", "status": "pending", "meta": [], "context": 3}`,
	`{}`, `[]`, `{"id": "IMPL-1",}`,
}

// FuzzLoadTask loads a session of one task file (of any name and content)
// and a workflow-session.json: loading never panics and never fails on
// content, every diagnostic with a position points inside its file and
// carries that line, and writing a status into a task that loaded keeps
// every other byte of the file.
func FuzzLoadTask(f *testing.F) {
	for i, s := range fuzzTaskSeeds {
		name := []string{"IMPL-1", "IMPL-001", "IMPL-A1", "IMPL-fix-1", "IMPL-1.2", "impl-1", "IMPL-0", "IMPL-1.toon", "IMPL-99999999999999999999"}[i%9]
		f.Add(name, s, `{"session_id": "WFS-x", "status": "active", "progress": {"total": 1}}`)
	}
	f.Add("IMPL-1", fuzzTaskSeeds[0], "{\n    \"session_id\": \"WFS-x\",\n    \"progress\": {\n        \"completed_phases\": [\"plan\"],\n        \"current_tasks\": []\n    },\n    \"x\": {\"y\": [1]}\n}\n")
	f.Add("IMPL-1", fuzzTaskSeeds[1], "{\r\n  \"session_id\": \"WFS-x\", \"progress\": {}\r\n}")
	f.Add("IMPL-1", fuzzTaskSeeds[2], `{"progress": 3, "total": 9}`)
	f.Fuzz(func(t *testing.T, name, task, session string) {
		if name == "" || strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || len(name) > 100 {
			return
		}
		dir := filepath.Join(t.TempDir(), "WFS-fuzz")
		if err := os.MkdirAll(filepath.Join(dir, ".task"), 0o755); err != nil {
			t.Fatal(err)
		}
		// A second task depends on the fuzzed one, whatever its id, so
		// that the checks across tasks (dependencies, containers,
		// cycles) see it.
		sibling := `{"id": "IMPL-2", "title": "T2", "status": "pending", "meta": {"type": "test-gen"}, "context": {"depends_on": ["IMPL-1", "IMPL-A1", "IMPL-fix-1", "IMPL-1.1"], "focus_paths": ["src"]}, "flow_control": {"pre_analysis": [], "implementation_approach": [{"step": 1, "title": "t", "depends_on": []}]}}`
		if err := os.WriteFile(filepath.Join(dir, ".task", "IMPL-2.json"), []byte(sibling), 0o644); err != nil {
			t.Fatal(err)
		}
		taskPath := filepath.Join(dir, ".task", name+".json")
		if err := os.WriteFile(taskPath, []byte(task), 0o644); err != nil {
			t.Skip(err) // a name the file system refuses
		}
		if err := os.WriteFile(filepath.Join(dir, "workflow-session.json"), []byte(session), 0o644); err != nil {
			t.Fatal(err)
		}
		p, diags, err := Load(dir, Options{})
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		files := map[string]string{taskPath: task, filepath.Join(dir, "workflow-session.json"): session}
		if taskPath != filepath.Join(dir, ".task", "IMPL-2.json") {
			files[filepath.Join(dir, ".task", "IMPL-2.json")] = sibling
		}
		for _, d := range diags {
			if strings.TrimSpace(d.Msg) == "" {
				t.Fatalf("diagnostic without a message: %#v", d)
			}
			if d.Line == 0 {
				continue
			}
			src, ok := files[d.Path]
			if !ok {
				t.Fatalf("positioned diagnostic in a file that is not a JSON file read: %s", d)
			}
			li := newLineIndex([]byte(src))
			if d.Line < 1 || d.Col < 1 || d.Line > len(li.starts) || d.Source != li.text(d.Line) {
				t.Fatalf("diagnostic %s: position outside the file or wrong source line %q", d, d.Source)
			}
			_ = d.Display()
		}
		_ = p.String()
		checkWriteSession(t, p, session)
		var tk *Task
		for _, x := range p.Tasks {
			if x.File.Path == taskPath {
				tk = x
			}
		}
		if tk == nil || tk.File.Root == nil || tk.File.Root.Kind != Object {
			return
		}
		for _, status := range []string{StatusCompleted, "in \"progress\"\n"} {
			// The bytes before and after the status value (or the place
			// a new status member goes) stay.
			root := tk.File.Root
			var prefix, suffix int
			switch st := root.Get("status"); {
			case st != nil:
				prefix, suffix = st.Start, len(task)-st.End
			case len(root.Members) > 0:
				end := root.Members[len(root.Members)-1].Value.End
				prefix, suffix = end, len(task)-end
			default:
				prefix, suffix = root.Start, len(task)-root.End
			}
			if err := p.SetStatus(tk, status); err != nil {
				t.Fatalf("SetStatus: %v", err)
			}
			got, err := os.ReadFile(taskPath)
			if err != nil {
				t.Fatal(err)
			}
			st := tk.File.Root.Get("status")
			if st == nil || st.Kind != String || st.Str != status || tk.Status != status {
				t.Fatalf("%q: status after the write is %v", got, st)
			}
			if len(got) < prefix+suffix || !bytes.Equal(got[:prefix], []byte(task[:prefix])) || !bytes.Equal(got[len(got)-suffix:], []byte(task[len(task)-suffix:])) {
				t.Fatalf("write changed more than the status:\n%q\n%q", task, got)
			}
			task = string(got)
		}
		if _, _, err := Load(dir, Options{}); err != nil {
			t.Fatalf("reload: %v", err)
		}
	})
}

// checkWriteSession writes the progress into workflow-session.json (of
// text src) when it holds an object, and checks that every member but
// progress keeps its text and that progress counts the tasks.
func checkWriteSession(t *testing.T, p *Plan, src string) {
	t.Helper()
	if p.Session == nil || p.Session.Root.Kind != Object {
		return
	}
	others := func(text string, root *Node) []string {
		var out []string
		for _, m := range root.Members {
			if m.Key != "progress" {
				out = append(out, m.Key+"="+text[m.Value.Start:m.Value.End])
			}
		}
		return out
	}
	before := others(src, p.Session.Root)
	var kept []string
	if prog := p.Session.Root.Get("progress"); prog != nil && prog.Kind == Object {
		for _, m := range prog.Members {
			if !slices.Contains(append([]string{"total", "updated_at"}, Statuses...), m.Key) {
				kept = append(kept, m.Key+"="+src[m.Value.Start:m.Value.End])
			}
		}
	}
	if err := p.WriteSession(time.Unix(0, 0)); err != nil {
		t.Fatalf("WriteSession: %v", err)
	}
	data, err := os.ReadFile(p.Session.Path)
	if err != nil {
		t.Fatal(err)
	}
	root, err := parseJSON(data)
	if err != nil {
		t.Fatalf("%q → %q: %v", src, data, err)
	}
	if after := others(string(data), root); !slices.Equal(before, after) {
		t.Fatalf("%q → %q: members changed: %q → %q", src, data, before, after)
	}
	prog := root.Get("progress")
	if prog == nil || prog.Kind != Object || prog.Get("total") == nil || string(data[prog.Get("total").Start:prog.Get("total").End]) != strconv.Itoa(len(p.Tasks)) {
		t.Fatalf("%q → %q: no progress total %d", src, data, len(p.Tasks))
	}
	for _, k := range kept {
		key, _, _ := strings.Cut(k, "=")
		if m := prog.Get(key); m == nil || key+"="+string(data[m.Start:m.End]) != k {
			t.Fatalf("%q → %q: progress member %s lost", src, data, k)
		}
	}
}

// FuzzParseID checks that every id parseID accepts is written back by
// keyOf to an id that reads as the same numbers, and that the canonical
// form is its own canonical form.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"IMPL-1", "IMPL-001.02", "IMPL-A1", "IMPL-Z3.4", "IMPL-fix-2", "IMPL-fix-1.1", "IMPL-0", "IMPL-", "impl-1", "IMPL-1..2", "IMPL-99999999999999999999", "IMPL-B", "IMPL-fix-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nums, ok := parseID(s)
		if !ok {
			if nums != nil {
				t.Fatalf("%q: rejected with numbers %v", s, nums)
			}
			return
		}
		if len(nums) == 0 {
			t.Fatalf("%q: accepted without numbers", s)
		}
		key := keyOf(nums)
		again, ok := parseID(key)
		if !ok || !slices.Equal(again, nums) {
			t.Fatalf("%q → %v → %q → %v, %v", s, nums, key, again, ok)
		}
		if c, ok := canonical(key); !ok || c != key {
			t.Fatalf("%q: canonical form %q is not canonical (%q)", s, key, c)
		}
	})
}

// FuzzParseCommand checks the reading of pre_analysis and
// implementation_approach commands: no panic, an error has a message and
// no command, an agent call names an agent, and a `ccw cli` command that
// needs the shell's expansion is completed by ExpandCCW from its words.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		`bash(ls -la src)`, `gemini(Explain the code)`, `bash(ccw cli -p "PURPOSE: x" --tool qwen --mode analysis --cd src)`,
		`bash(ccw cli -p 'say "hi"' --tool codex --mode write --id exec-1)`, `Read('docs/spec.md')`, `Read( )`,
		`Extract(brainstorm_artifacts.role_analyses[].files[].path)`, `mcp__code-index__find_files(pattern="*auth*")`,
		`bash(ccw cli -p "RULES: $(cat ~/.claude/t.txt) | x" --tool gemini --mode analysis)`,
		"ccw cli -p \"`date` ${A:-b} $HOME\" --tool codex", `bash(ccw cli -p "$(cat x)" --tool gemini; rm -f y)`,
		`gemnii(hello)`, `ls src`, `ccw cli --prompt=x --tool=gemini`, `bash(ccw cli -p "[ctx] and [impl]" --tool codex)`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, bare bool) {
		c, err := ParseCommand(s, BuiltinAgents, bare)
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" || c != (Command{}) {
				t.Fatalf("%q: error %q with command %+v", s, err, c)
			}
			return
		}
		if c.Raw != s {
			t.Fatalf("%q: Raw = %q", s, c.Raw)
		}
		if c.Kind == CmdAgent && c.Agent == "" {
			t.Fatalf("%q: agent call without an agent", s)
		}
		if c.Expand != "" {
			words, ok := splitWords(c.Expand)
			if ok {
				if _, err := ExpandCCW(c, words); err != nil {
					t.Fatalf("%q: the words of %q do not expand: %v", s, c.Expand, err)
				}
			}
		}
		// Without variables, [var] references stay as written.
		quote := func(_, v string) (string, error) { return "<" + v + ">", nil }
		if out, err := substitute(c.Text, nil, quote); err != nil || out != c.Text {
			t.Fatalf("%q: substitute without variables = %q, %v", c.Text, out, err)
		}
	})
}
