package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func init() {
	register(&primitive{name: "render", min: 2, max: 2, fn: primRender})
}

// primRender is (render text dict): the placeholders of text substituted from
// dict, plus {{date}}, by the rules of SPEC §12.
func primRender(t *thread, c *call, args []value.Value) (value.Value, error) {
	text, err := argString("render", c, args, 0)
	if err != nil {
		return nil, err
	}
	vars, ok := inputsDict(args[1])
	if !ok {
		return nil, typeError("render", c, 1, "dict", args[1])
	}
	tx, err := templates.Parse(text)
	if err != nil {
		return nil, errorf(c.argPos(0), KindValue, "render: %s", err)
	}
	date := value.String(t.in.start.Local().Format(tasksystem.DateLayout))
	out, missing := tx.Render(func(root string) (value.Value, bool) {
		if v, ok := vars.Get(root); ok {
			return v, true
		}
		if root == "date" {
			return date, true
		}
		return nil, false
	})
	if len(missing) > 0 {
		return nil, errorf(c.at(), KindValue, "render: missing variable(s): %s", strings.Join(missing, ", "))
	}
	if err := t.checkString(c, len(out)); err != nil {
		return nil, err
	}
	return value.String(out), nil
}
