package evaluator

import "github.com/evalrun/evalrun/value"

// frameIndexThreshold is the size from which a frame keeps a hash index;
// closure frames hold a few names and are searched linearly.
const frameIndexThreshold = 12

// Env is one frame of an environment chain: names bound to values, and the
// frame it was created in.
type Env struct {
	parent *Env
	names  []string
	vals   []value.Value
	index  map[string]int
	// sharedNames marks names as borrowed from a closure's parameter list:
	// it is copied before the frame binds another name.
	sharedNames bool
	// owner is the parallel branch that created the frame, nil outside
	// parallel forms; set! refuses frames owned by another branch.
	owner *branch
}

// NewEnv returns an empty frame whose parent is parent (nil for a global
// frame).
func NewEnv(parent *Env) *Env { return &Env{parent: parent} }

// Parent returns the enclosing frame, nil for the global frame.
func (e *Env) Parent() *Env { return e.parent }

func (e *Env) find(name string) int {
	if e.index != nil {
		if i, ok := e.index[name]; ok {
			return i
		}
		return -1
	}
	for i := len(e.names) - 1; i >= 0; i-- {
		if e.names[i] == name {
			return i
		}
	}
	return -1
}

// Lookup returns the value of the nearest binding of name.
func (e *Env) Lookup(name string) (value.Value, bool) {
	for f := e; f != nil; f = f.parent {
		if i := f.find(name); i >= 0 {
			return f.vals[i], true
		}
	}
	return nil, false
}

// Define binds name to v in this frame, replacing an existing binding here.
func (e *Env) Define(name string, v value.Value) {
	if i := e.find(name); i >= 0 {
		e.vals[i] = v
		return
	}
	if e.sharedNames {
		e.names = append(make([]string, 0, len(e.names)+2), e.names...)
		e.sharedNames = false
	}
	e.names = append(e.names, name)
	e.vals = append(e.vals, v)
	if e.index != nil {
		e.index[name] = len(e.names) - 1
	} else if len(e.names) > frameIndexThreshold {
		e.index = make(map[string]int, len(e.names)*2)
		for i, n := range e.names {
			e.index[n] = i
		}
	}
}

// frameOf returns the nearest frame binding name and the index there.
func (e *Env) frameOf(name string) (*Env, int) {
	for f := e; f != nil; f = f.parent {
		if i := f.find(name); i >= 0 {
			return f, i
		}
	}
	return nil, -1
}

// Names returns the names bound in this frame, in binding order.
func (e *Env) Names() []string { return append([]string(nil), e.names...) }
