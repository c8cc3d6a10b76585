package evaluator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// primitive is a built-in function whose arguments are evaluated first
// (SPEC §8).
type primitive struct {
	name     string
	min, max int // max < 0: any number from min
	// arityMsg, when set, is the established message of an argument-count
	// error; otherwise the generic "'NAME' expects N arguments, got M" is used.
	arityMsg string
	// applies marks primitives that apply functions: they count towards the
	// recursion depth.
	applies bool
	// retains marks primitives that keep their argument slice (list returns
	// it as the new list), so it must not live on the argument stack.
	retains bool
	fn      func(t *thread, c *call, args []value.Value) (value.Value, error)
}

// primitives maps names to primitives usable in operator position.
var primitives = map[string]*primitive{}

// valuePrimitives are names that are special forms in operator position but
// primitives when applied to values (get-context).
var valuePrimitives = map[string]*primitive{}

func register(ps ...*primitive) {
	for _, p := range ps {
		if _, dup := primitives[p.name]; dup {
			panic("duplicate primitive " + p.name)
		}
		primitives[p.name] = p
	}
}

// lookupPrimitive finds a primitive by name, including those that are special
// forms in operator position.
func lookupPrimitive(name string) *primitive {
	if p, ok := primitives[name]; ok {
		return p
	}
	return valuePrimitives[name]
}

// PrimitiveNames returns the names of all primitives, sorted.
func PrimitiveNames() []string {
	names := make([]string, 0, len(primitives)+len(valuePrimitives))
	for n := range primitives {
		names = append(names, n)
	}
	for n := range valuePrimitives {
		names = append(names, n)
	}
	slices.Sort(names) // a map's order would make the hints of ties random
	return names
}

// IsPrimitive reports whether name is a primitive.
func IsPrimitive(name string) bool { return lookupPrimitive(name) != nil }

// IsSpecialForm reports whether name is a special form.
func IsSpecialForm(name string) bool {
	_, ok := specialForms[name]
	return ok
}

// call describes one primitive application: the form when it was written as
// syntax (so errors can point at an argument), else the position of the form
// that applied it.
type call struct {
	form     *expr
	argExprs []*expr
	pos      sexp.Pos
}

// at returns the position of the applying form.
func (c *call) at() sexp.Pos {
	if c.form != nil {
		return c.form.pos()
	}
	return c.pos
}

// argPos returns the position of argument i (from 0), or of the form.
func (c *call) argPos(i int) sexp.Pos {
	if c.form != nil && i < len(c.argExprs) {
		return c.argExprs[i].pos()
	}
	return c.at()
}

func (t *thread) callPrim(p *primitive, c *call, args []value.Value) (value.Value, error) {
	n := len(args)
	if n < p.min || (p.max >= 0 && n > p.max) {
		return nil, arityError(p, c, n)
	}
	if p.applies {
		if err := t.enter(c.at()); err != nil {
			return nil, err
		}
		defer t.leave()
	}
	return p.fn(t, c, args)
}

func arityError(p *primitive, c *call, n int) *Error {
	if p.arityMsg != "" {
		msg := p.arityMsg
		if strings.Contains(msg, "%d") {
			msg = fmt.Sprintf(msg, n)
		}
		return newError(c.at(), KindArity, msg)
	}
	var want string
	switch {
	case p.max < 0:
		want = fmt.Sprintf("at least %d", p.min)
	case p.min == p.max:
		want = fmt.Sprint(p.min)
	default:
		want = fmt.Sprintf("%d to %d", p.min, p.max)
	}
	return errorf(c.at(), KindArity, "'%s' expects %s arguments, got %d", p.name, want, n)
}

// typeError is the generic "'NAME' argument I must be a TYPE, got TYPE."
// positioned at argument i (from 0).
func typeError(p string, c *call, i int, want string, got value.Value) *Error {
	return errorf(c.argPos(i), KindType, "'%s' argument %d must be %s %s, got %s.", p, i+1, article(want), want, got.Type())
}

func article(word string) string {
	switch word[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an"
	}
	return "a"
}

// Argument accessors: each checks the type of argument i and reports the
// generic type error.

func argInt(p string, c *call, args []value.Value, i int) (int64, error) {
	if v, ok := args[i].(value.Int); ok {
		return int64(v), nil
	}
	return 0, typeError(p, c, i, "int", args[i])
}

func argString(p string, c *call, args []value.Value, i int) (string, error) {
	if v, ok := args[i].(value.String); ok {
		return string(v), nil
	}
	return "", typeError(p, c, i, "string", args[i])
}

// argText accepts a string or a symbol (its name).
func argText(p string, c *call, args []value.Value, i int) (string, error) {
	switch v := args[i].(type) {
	case value.String:
		return string(v), nil
	case value.Symbol:
		return string(v), nil
	}
	return "", typeError(p, c, i, "string", args[i])
}

func argList(p string, c *call, args []value.Value, i int) (value.List, error) {
	if v, ok := args[i].(value.List); ok {
		return v, nil
	}
	return nil, typeError(p, c, i, "list", args[i])
}

func argDict(p string, c *call, args []value.Value, i int) (*value.Dict, error) {
	if v, ok := args[i].(*value.Dict); ok {
		return v, nil
	}
	return nil, typeError(p, c, i, "dict", args[i])
}
