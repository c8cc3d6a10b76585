package temporal

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// DefatomSource is the text of the defatom form that made a call's
// template, placed at its position in its file: a worker rebuilds the
// template from it, since a template made inside a workflow exists on no
// worker.
type DefatomSource struct {
	// File is the workflow file's name; Line and Column (from 1, in code
	// points) the position of the form.
	File         string
	Line, Column int
	// Form is the form's source text.
	Form string
}

// defatomForm finds the defatom form that made tmpl in the workflow's
// sources.
func defatomForm(sources map[string]*sexp.Source, tmpl *templates.Template) (DefatomSource, error) {
	src, ok := sources[tmpl.Path]
	if !ok {
		return DefatomSource{}, fmt.Errorf("defatom '%s': its file %s is not one of the workflow's files", tmpl.Name, tmpl.Path)
	}
	forms, err := sexp.Parse(src)
	if err != nil {
		return DefatomSource{}, err
	}
	if n := findDefatom(forms, tmpl.Line, tmpl.Col); n != nil {
		return DefatomSource{File: tmpl.Path, Line: tmpl.Line, Column: tmpl.Col, Form: src.Text[n.Pos.Off:n.End()]}, nil
	}
	return DefatomSource{}, fmt.Errorf("defatom '%s': no defatom form at %s:%d:%d", tmpl.Name, tmpl.Path, tmpl.Line, tmpl.Col)
}

func findDefatom(nodes []*sexp.Node, line, col int) *sexp.Node {
	for _, n := range nodes {
		if n.Kind != sexp.List {
			continue
		}
		if len(n.Items) > 0 && n.Items[0].Kind == sexp.Symbol && n.Items[0].Str == "defatom" {
			if p := n.Pos.Position(); p.Line == line && p.Column == col {
				return n
			}
		}
		if m := findDefatom(n.Items, line, col); m != nil {
			return m
		}
	}
	return nil
}

// template rebuilds the template by evaluating the form, padded so that
// the template's file, line and column are the original ones, with a task
// system that only records the definition.
func (d DefatomSource) template() (*templates.Template, error) {
	text := strings.Repeat("\n", d.Line-1) + strings.Repeat(" ", d.Column-1) + d.Form
	rec := &recordDefine{}
	in := evaluator.New(evaluator.Options{Tasks: rec})
	if _, err := in.EvalString(context.Background(), d.File, text); err != nil {
		return nil, err
	}
	if rec.tmpl == nil {
		return nil, fmt.Errorf("%s:%d:%d: not a defatom form", d.File, d.Line, d.Column)
	}
	return rec.tmpl, nil
}

// recordDefine is a task system that knows no names and records the one
// template a defatom defines.
type recordDefine struct{ tmpl *templates.Template }

func (r *recordDefine) Lookup(string) (*templates.Template, bool) { return nil, false }
func (r *recordDefine) HasTool(string) bool                       { return false }
func (r *recordDefine) Define(t *templates.Template) error        { r.tmpl = t; return nil }
func (r *recordDefine) Match(string) value.List                   { return nil }
func (r *recordDefine) Execute(context.Context, *evaluator.TaskCall) *value.TaskResult {
	return nil
}
func (r *recordDefine) CallTool(context.Context, string, *value.Dict) *value.TaskResult { return nil }
func (r *recordDefine) GetContext(context.Context, evaluator.ContextQuery) *value.Dict  { return nil }
