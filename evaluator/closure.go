package evaluator

import (
	"strings"

	"github.com/evalrun/evalrun/value"
)

// Closure is a function made by lambda or define: parameters, body and the
// frame it was defined in.
type Closure struct {
	params []string
	body   []*expr
	env    *Env
	// reuse marks a closure whose body can make no closure, so that no
	// frame of a call can outlive the call: its frames are recycled.
	reuse bool
}

// Type implements value.Value.
func (*Closure) Type() string { return "closure" }

// String implements value.Value: #<closure (p1 p2)>.
func (c *Closure) String() string {
	return "#<closure (" + strings.Join(c.params, " ") + ")>"
}

// Params returns the parameter names.
func (c *Closure) Params() []string { return append([]string(nil), c.params...) }

var _ value.Value = (*Closure)(nil)
