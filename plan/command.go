package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evalrun/evalrun/internal/shellwords"
)

// CommandKind says how a step's command runs.
type CommandKind int

// The kinds of commands.
const (
	// CmdShell runs Text with sh -c in the project root.
	CmdShell CommandKind = iota
	// CmdAgent runs the agent Agent of §22 on the prompt Text.
	CmdAgent
	// CmdRead is Read(PATH): evalrun reads the file Text, relative to
	// the project root, as the agent's Read tool would.
	CmdRead
	// CmdInstruction is a call of one of the executing agent's tools
	// that evalrun cannot run itself (Extract(…), Glob(…),
	// mcp__server__tool(…)): the task's executor carries out Text.
	CmdInstruction
)

// Command is a pre_analysis or implementation_approach command read.
type Command struct {
	Kind CommandKind
	// Text is the shell command (CmdShell) or the prompt (CmdAgent).
	Text string
	// Agent names the agent of a CmdAgent.
	Agent string
	// ReadOnly is set by `ccw cli --mode analysis`.
	ReadOnly bool
	// Dir is `ccw cli --cd DIR`, relative to the project root; "" is the
	// root.
	Dir string
	// Raw is the command as written.
	Raw string
	// Expand is set for a `ccw cli` command whose words hold command
	// substitutions or parameter expansions (`-p "RULES: $(cat F)"`, as
	// CCW's templates write): the words after `ccw cli`, to be expanded
	// by the shell before the agent runs (ExpandCCW).
	Expand string
}

// ParseCommand reads a pre_analysis command: bash(CMD) (or Bash(CMD)),
// NAME(PROMPT) for an agent NAME, `ccw cli -p PROMPT --tool T [--mode M]
// [--cd DIR]`, inside bash(…) or not, which becomes an agent call,
// Read(PATH), and the other tool calls CCW's planners write for the
// executing agent — a capitalised Name(…) or an MCP tool
// mcp__server__tool(…) — which become instructions to the task's
// executor. bare allows any other command (an implementation_approach
// step's command), which runs as written with sh -c.
func ParseCommand(s string, agents []string, bare bool) (Command, error) {
	raw := s
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open > 0 && strings.HasSuffix(s, ")") && isName(s[:open]) {
		name, inner := s[:open], s[open+1:len(s)-1]
		switch {
		case name == "bash" || name == "Bash":
			if c, ok := parseCCW(inner); ok {
				c.Raw = raw
				return c, nil
			}
			return Command{Kind: CmdShell, Text: inner, Raw: raw}, nil
		case slices.Contains(agents, name):
			return Command{Kind: CmdAgent, Agent: name, Text: inner, Raw: raw}, nil
		case name == "Read":
			path := unquote(strings.TrimSpace(inner))
			if path == "" {
				return Command{}, fmt.Errorf("command %s names no file to read", short(raw))
			}
			return Command{Kind: CmdRead, Text: path, Raw: raw}, nil
		case isToolName(name):
			return Command{Kind: CmdInstruction, Text: s, Raw: raw}, nil
		case !bare:
			return Command{}, fmt.Errorf("command %s is not bash(…), Read(…), an agent NAME(…) or ccw cli (agents: %s)%s", short(raw), strings.Join(agents, " "), hint(name, append([]string{"bash"}, agents...)))
		}
	}
	if c, ok := parseCCW(s); ok {
		c.Raw = raw
		return c, nil
	}
	if !bare {
		return Command{}, fmt.Errorf("command %s is not bash(…), Read(…), an agent NAME(…) or ccw cli (agents: %s)", short(raw), strings.Join(agents, " "))
	}
	return Command{Kind: CmdShell, Text: s, Raw: raw}, nil
}

// isToolName reports whether name is a tool of the executing agent as
// CCW's planners write them: Claude Code's tools are capitalised (Glob,
// Grep, Extract …), MCP tools are mcp__SERVER__TOOL. Agent names of §22
// are lower case, so a mistyped agent stays an error.
func isToolName(name string) bool {
	return strings.HasPrefix(name, "mcp__") || name[0] >= 'A' && name[0] <= 'Z'
}

// unquote removes one pair of matching quotes around s.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// short quotes a command for a message, cut at 60 characters.
func short(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func isName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// parseCCW reads `ccw cli -p PROMPT --tool T [--mode M] [--cd DIR]`; ok is
// false for anything else, a command with shell operators included. Words
// with command substitutions or expansions (outside single quotes) are
// left for the shell to expand when the command runs (Command.Expand);
// the tool must then be written out.
func parseCCW(s string) (Command, bool) {
	s = strings.TrimSpace(s)
	if words, ok := splitWords(s); ok {
		return ccwWords(words)
	}
	masked, changed := maskExpansions(s)
	words, ok := splitWords(masked)
	if !changed || !ok {
		return Command{}, false
	}
	c, ok := ccwWords(words)
	if !ok || strings.Contains(c.Agent, maskMark) {
		return Command{}, false
	}
	c.Expand = strings.TrimSpace(ccwPrefix.ReplaceAllString(s, ""))
	return c, true
}

// ccwPrefix is the `ccw cli` that starts a ccw cli command.
var ccwPrefix = regexp.MustCompile(`^ccw[ \t]+cli[ \t\n]`)

// maskMark replaces each expansion in maskExpansions.
const maskMark = "\x00"

// maskExpansions replaces each command substitution ($(…), `…`) and
// parameter expansion ($NAME, ${…}) outside single quotes by maskMark,
// so that the rest of the command can be split strictly: what remains
// holds no shell operator the shell would run. changed is false when
// there was none; an unbalanced one leaves s as it is.
func maskExpansions(s string) (string, bool) {
	var b strings.Builder
	changed := false
	inDouble := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		case c == '\'' && !inDouble:
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return s, false
			}
			b.WriteString(s[i : i+j+2])
			i += j + 1
		case c == '"':
			inDouble = !inDouble
			b.WriteByte(c)
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return s, false
			}
			b.WriteString(maskMark)
			i += j + 1
			changed = true
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			end := closingParen(s, i+1)
			if end < 0 {
				return s, false
			}
			b.WriteString(maskMark)
			i = end
			changed = true
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return s, false
			}
			b.WriteString(maskMark)
			i += j
			changed = true
		case c == '$' && i+1 < len(s) && (s[i+1] == '_' || isAlnum(s[i+1])):
			j := i + 1
			for j < len(s) && (s[j] == '_' || isAlnum(s[j])) {
				j++
			}
			b.WriteString(maskMark)
			i = j - 1
			changed = true
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), changed
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// closingParen returns the index of the parenthesis that closes the one
// at s[open], skipping quoted text; -1 when there is none.
func closingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// ExpandCCW completes a `ccw cli` command of Command.Expand from the
// words the shell made of them (run elsewhere: `printf '%s\0' WORDS`).
func ExpandCCW(c Command, words []string) (Command, error) {
	e, ok := ccwWords(append([]string{"ccw", "cli"}, words...))
	if !ok {
		return c, fmt.Errorf("%s: after expansion the words are no ccw cli command: %q", short(c.Raw), words)
	}
	e.Raw = c.Raw
	return e, nil
}

// ccwWords reads the words of a ccw cli command.
func ccwWords(words []string) (Command, bool) {
	if len(words) < 2 || words[0] != "ccw" || words[1] != "cli" {
		return Command{}, false
	}
	c := Command{Kind: CmdAgent}
	havePrompt := false
	for i := 2; i < len(words); i++ {
		w := words[i]
		val := func() (string, bool) {
			if k, v, found := strings.Cut(w, "="); found && strings.HasPrefix(k, "--") {
				return v, true
			}
			if i+1 >= len(words) {
				return "", false
			}
			i++
			return words[i], true
		}
		flag, _, _ := strings.Cut(w, "=")
		var v string
		var ok bool
		switch flag {
		case "-p", "--prompt":
			v, ok = val()
			c.Text, havePrompt = v, true
		case "--tool":
			v, ok = val()
			c.Agent = v
		case "--mode":
			v, ok = val()
			c.ReadOnly = v == "analysis"
		case "--cd":
			v, ok = val()
			c.Dir = v
		case "--id", "--resume", "--rule", "--model", "--includeDirs", "--include-dirs":
			_, ok = val()
		default:
			return Command{}, false
		}
		if !ok {
			return Command{}, false
		}
	}
	if !havePrompt || c.Agent == "" {
		return Command{}, false
	}
	return c, true
}

// splitWords splits a command line with POSIX quoting; ok is false when it
// holds what only a shell would interpret (an unquoted operator, a command
// substitution or an expansion) or an unterminated quote, so that the
// command is left to the shell.
func splitWords(s string) ([]string, bool) {
	words, err := shellwords.Split(s, shellwords.Strict)
	return words, err == nil
}

// TemplateFor returns the template name of a meta.agent: "@code-developer"
// → "plan/code-developer"; "" → "plan/universal-executor".
func TemplateFor(agent string) string {
	a := strings.TrimPrefix(agent, "@")
	if a == "" {
		a = "universal-executor"
	}
	return "plan/" + a
}

// readPreAnalysis reads and checks flow_control.pre_analysis.
func readPreAnalysis(t *Task, r *reporter, n *Node, opts Options) {
	if n == nil {
		return
	}
	f := t.File
	if n.Kind != Array {
		r.node(f, n, SevError, "pre_analysis must be an array of steps, not %s", n.Kind)
		return
	}
	outputs := map[string]*Node{}
	for i, it := range n.Items {
		if it.Kind != Object {
			r.node(f, it, SevError, "pre_analysis step %d must be an object with step and command, not %s", i+1, it.Kind)
			continue
		}
		s := PreStep{Name: it.Get("step").Text(), Action: it.Get("action").Text(), OutputTo: it.Get("output_to").Text(), OnError: it.Get("on_error").Text(), Node: it}
		if it.Get("step") == nil {
			r.node(f, it, SevError, "pre_analysis step %d has no \"step\"", i+1)
		}
		label := s.Name
		if label == "" {
			label = fmt.Sprint(i + 1)
		}
		var cmds []*Node
		for _, key := range []string{"command", "commands"} {
			// Either holds one command or a list of them.
			if cs := it.Get(key); cs != nil && cs.Kind == Array {
				cmds = append(cmds, cs.Items...)
			} else if cs != nil {
				cmds = append(cmds, cs)
			}
		}
		switch {
		case len(cmds) == 0 && t.Flat && s.Action != "":
			r.node(f, it, SevWarning, "pre_analysis step %q has an action and no command: the task's executor gets the action as an instruction", label)
		case len(cmds) == 0:
			r.node(f, it, SevError, "pre_analysis step %q has no \"command\" or \"commands\"", label)
		}
		for _, c := range cmds {
			if c.Kind != String {
				r.node(f, c, SevError, "a command must be a string, not %s", c.Kind)
				continue
			}
			pc, err := ParseCommand(c.Str, opts.agents(), false)
			if err != nil {
				r.node(f, c, SevError, "%v", err)
				continue
			}
			if pc.Kind == CmdInstruction {
				r.node(f, c, SevWarning, "command %s is a tool of the agent that carries out the task, not a command evalrun runs: the task's executor gets it as an instruction", short(c.Str))
			}
			s.Commands = append(s.Commands, c.Str)
		}
		if oe := it.Get("on_error"); oe != nil && !slices.Contains(OnErrorPolicies, s.OnError) {
			r.node(f, oe, SevError, "on_error %s is not one of %s%s", quoteNode(f, oe), strings.Join(OnErrorPolicies, " "), hint(s.OnError, OnErrorPolicies))
		}
		if out := it.Get("output_to"); out != nil && s.OutputTo != "" {
			if prev, dup := outputs[s.OutputTo]; dup {
				line, col := f.pos(prev.Start)
				r.node(f, out, SevError, "duplicate output_to %q (first at %d:%d)", s.OutputTo, line, col)
			} else {
				outputs[s.OutputTo] = out
			}
		}
		t.PreAnalysis = append(t.PreAnalysis, s)
	}
}

// readApproach reads and checks flow_control.implementation_approach: an
// array of steps, or (as older plans write it) one string or one object
// ({"task_description", "modification_points", "logic_flow"}).
func readApproach(t *Task, r *reporter, n *Node) {
	if n == nil {
		return
	}
	f := t.File
	switch n.Kind {
	case String:
		t.Approach = []ApproachStep{{Number: 1, Description: n.Str, Node: n}}
		return
	case Object:
		s := ApproachStep{Number: 1, Title: n.Get("title").Text(), Description: n.Get("task_description").Text(), Node: n}
		if s.Description == "" {
			s.Description = n.Get("description").Text()
		}
		for _, k := range []string{"modification_points", "logic_flow", "actions"} {
			s.Points = append(s.Points, listOrString(n.Get(k))...)
		}
		t.Approach = []ApproachStep{s}
		return
	case Array:
	default:
		r.node(f, n, SevError, "implementation_approach must be an array of steps, not %s", n.Kind)
		return
	}
	seen := map[int]*Node{}
	for i, it := range n.Items {
		if it.Kind == String {
			t.Approach = append(t.Approach, ApproachStep{Number: i + 1, Description: it.Str, Node: it})
			continue
		}
		if it.Kind != Object {
			r.node(f, it, SevError, "implementation_approach step %d must be an object, not %s", i+1, it.Kind)
			continue
		}
		s := ApproachStep{Number: i + 1, Title: it.Get("title").Text(), Description: it.Get("description").Text(), Command: it.Get("command").Text(), Output: it.Get("output").Text(), Node: it}
		if s.Title == "" {
			s.Title = it.Get("action").Text()
		}
		for _, k := range []string{"modification_points", "logic_flow", "actions"} {
			s.Points = append(s.Points, listOrString(it.Get(k))...)
		}
		sn := it.Get("step")
		if sn != nil && sn.Kind == String {
			// The unified schema allows "step": "2" (or "Step 2").
			if num, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.ToLower(sn.Str), "step"))); err == nil && num > 0 {
				sn = &Node{Kind: Number, Str: strconv.Itoa(num), Start: sn.Start, End: sn.End}
			}
		}
		if sn != nil && sn.Kind == Number {
			var num int
			if _, err := fmt.Sscan(sn.Str, &num); err != nil || fmt.Sprint(num) != sn.Str {
				r.node(f, sn, SevError, "implementation_approach step number %s is not a whole number", sn.Str)
			} else {
				s.Number = num
			}
			if prev, dup := seen[s.Number]; dup {
				line, col := f.pos(prev.Start)
				r.node(f, sn, SevError, "implementation_approach step number %d is not unique (first at %d:%d)", s.Number, line, col)
			} else {
				seen[s.Number] = sn
			}
		}
		t.Approach = append(t.Approach, s)
	}
	// Dependencies between steps, once all numbers are known.
	index := map[int]int{}
	for i, s := range t.Approach {
		if _, ok := index[s.Number]; !ok {
			index[s.Number] = i
		}
	}
	for i := range t.Approach {
		s := &t.Approach[i]
		deps := s.Node.Get("depends_on")
		if deps == nil || deps.Kind != Array {
			continue
		}
		for _, d := range deps.Items {
			var num int
			if d.Kind != Number {
				if d.Kind == String {
					if _, err := fmt.Sscan(strings.TrimPrefix(strings.ToLower(d.Str), "step "), &num); err != nil {
						r.node(f, d, SevError, "step %d depends on unknown step %s", s.Number, quoteNode(f, d))
						continue
					}
				} else {
					r.node(f, d, SevError, "step %d depends on unknown step %s", s.Number, quoteNode(f, d))
					continue
				}
			} else if _, err := fmt.Sscan(d.Str, &num); err != nil {
				continue
			}
			j, ok := index[num]
			switch {
			case !ok:
				r.node(f, d, SevError, "step %d depends on unknown step %d", s.Number, num)
			case j >= i:
				r.node(f, d, SevError, "step %d depends on step %d, which is not an earlier step", s.Number, num)
			default:
				s.DependsOn = append(s.DependsOn, num)
			}
		}
	}
}
