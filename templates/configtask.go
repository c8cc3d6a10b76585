package templates

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// ConfigTask is a [tasks.NAME] table of a configuration file in the format
// of start (SPEC §22.6), as the configuration reader gives it.
type ConfigTask struct {
	Name, Alias, Description string
	Role, Agent, Model       string
	// File, Command, Shell, CommandTimeout and Prompt are start's UTD
	// fields.
	File           string
	Command        string
	Shell          string
	CommandTimeout time.Duration
	Prompt         string
	// Scope is ScopeGlobal or ScopeLocal; Path is the configuration file as
	// shown and Line the line of the table.
	Scope Scope
	Path  string
	Line  int
}

// singleBrace matches start's placeholders {name}.
var singleBrace = regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`)

// FromConfigTask converts a configuration task into a template: the prompt
// becomes the instructions with each {name} written {{name}} (other text,
// a "{{" included, stays literal); without a prompt the instructions are
// {{file_contents}}, else {{command_output}}. The command fails the task on
// a non-zero exit (tool_execution_error). The configuration reader has
// checked the placeholders.
func FromConfigTask(ct ConfigTask) (*Template, error) {
	t := &Template{
		Name: ct.Name, Alias: ct.Alias, Type: "atomic", Subtype: "standard", Role: ct.Role,
		Description: ct.Description, Agent: ct.Agent, Model: ct.Model, File: ct.File,
		Scope: ct.Scope, Path: ct.Path, Line: ct.Line, Col: 1,
	}
	if t.Description == "" {
		t.Description = ct.Name
	}
	if ct.Command != "" {
		t.Command = &Command{Text: ct.Command, Shell: ct.Shell, Timeout: ct.CommandTimeout, FailOnError: true}
		if t.Command.Shell == "" {
			t.Command.Shell = "sh"
		}
		if t.Command.Timeout == 0 {
			t.Command.Timeout = 30 * time.Second
		}
	}
	switch {
	case ct.Prompt != "":
		t.Instructions = convertPrompt(ct.Prompt)
	case ct.File != "":
		t.Instructions = "{{file_contents}}"
	default:
		t.Instructions = "{{command_output}}"
	}
	if err := Infer(t); err != nil {
		return nil, err
	}
	return t, nil
}

// convertPrompt turns start's {name} placeholders into {{name}}, escaping
// the "{{" already in the text.
func convertPrompt(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); {
		switch {
		case strings.HasPrefix(p[i:], "{{"):
			b.WriteString(`\{{`)
			i += 2
		case p[i] == '{':
			if loc := singleBrace.FindStringSubmatchIndex(p[i:]); loc != nil && loc[0] == 0 {
				b.WriteString("{{" + p[i+loc[2]:i+loc[3]] + "}}")
				i += loc[1]
				continue
			}
			b.WriteByte('{')
			i++
		default:
			b.WriteByte(p[i])
			i++
		}
	}
	return b.String()
}

// configTaskAdder returns a function that adds, once each, the
// configuration tasks of every scope up to a scope, in order, after the
// XML templates of their scope.
func configTaskAdder(l *loader, tasks []*Template) func(upTo Scope) {
	added := make([]bool, len(tasks))
	dirs := map[string]*Dir{}
	return func(upTo Scope) {
		for i, t := range tasks {
			if added[i] || t.Scope > upTo {
				continue
			}
			added[i] = true
			d := dirs[t.Path]
			if d == nil {
				d = &Dir{Scope: t.Scope, Display: t.Path, Exists: true}
				dirs[t.Path] = d
				// The file is listed after the template directory of its
				// scope.
				at := len(l.set.Dirs)
				for j, x := range l.set.Dirs {
					if x.Scope > t.Scope {
						at = j
						break
					}
				}
				l.set.Dirs = slices.Insert(l.set.Dirs, at, d)
			}
			l.add(&Entry{Template: t, Dir: d, RelPath: filepathBase(t.Path)})
		}
	}
}

func filepathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
