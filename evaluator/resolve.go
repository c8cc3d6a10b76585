package evaluator

// The resolver gives variable references the frame and slot of their
// binding when that is known at compile time, so that evaluation reads the
// value without searching frames by name.
//
// Frames at run time mirror the static scopes of the program: a closure's
// frame holds its parameters in order, a let frame its bindings in order (a
// repeated name keeps its first slot), a try handler's frame its catch
// variable; a parallel branch's frame starts empty. Those names are the
// scope's slots. define and bind may add names to a frame while it runs, at
// slots that depend on the order of evaluation, and a let* binding runs
// before the later bindings exist: such names are dynamic in their scope.
// A define in the value of a let* binding adds its name to the let* frame
// before the later bindings, so then no name of that frame has a known
// slot.
// A reference resolves to the nearest scope that has the name as a slot,
// unless a nearer scope may gain it dynamically; then it is looked up by
// name, as before. A reference that only the global frame can bind (whose
// names change from run to run, in the REPL too) goes straight to that
// frame and remembers where the name is bound there.

// slotGlobal is the slot of a reference that no frame but the global one
// can bind: its depth leads to the global frame, where it is found by name
// once and then by the index remembered in the expr's globalRef.
const slotGlobal = -2

// globalRef remembers where a global frame binds a name: a global binding
// keeps its index for the life of the frame.
type globalRef struct {
	env *Env
	idx int
}

// optimize turns on the resolution of variables to slots, the reuse of
// closure frames and the integer fast paths; tests turn it off to compare
// outcomes with the plain evaluator.
var optimize = true

// staticScope is a scope of the program as the compiler sees it.
type staticScope struct {
	parent *staticScope
	global bool
	slots  map[string]int
	// defines holds the names a define or bind in the scope may add; it is
	// shared by the scopes of one let* frame.
	defines map[string]bool
	// later holds the names of the let* bindings after the one this scope
	// is for.
	later map[string]bool
	// opaque marks a let* frame where a define in a binding's value may
	// take a slot before the later bindings: nothing in it has a known
	// slot.
	opaque bool
}

// symbolRef is a variable reference waiting for resolution.
type symbolRef struct {
	x  *expr
	sc *staticScope
}

// newScope returns a scope under c's current one whose slots are names.
func (c *compiler) newScope(names []string) *staticScope {
	sc := &staticScope{parent: c.scope, slots: make(map[string]int, len(names)), defines: map[string]bool{}}
	for _, n := range names {
		if _, dup := sc.slots[n]; !dup {
			sc.slots[n] = len(sc.slots)
		}
	}
	return sc
}

// in runs fn with sc as the current scope.
func (c *compiler) in(sc *staticScope, fn func() error) error {
	saved := c.scope
	c.scope = sc
	defer func() { c.scope = saved }()
	return fn()
}

// defines records that a define or bind adds name to the current frame.
func (c *compiler) defines(name string) {
	if c.scope != nil {
		c.scope.defines[name] = true
	}
}

// reference records a variable reference for resolve.
func (c *compiler) reference(x *expr) {
	x.slot = -1
	if optimize && c.scope != nil {
		c.refs = append(c.refs, symbolRef{x: x, sc: c.scope})
	}
}

// resolve gives every recorded reference its frame depth and slot, when
// they are known. It runs when the whole program is compiled, since a
// define later in a scope affects the references before it.
func (c *compiler) resolve() {
	for _, r := range c.refs {
		name := r.x.name
		depth := 0
		for s := r.sc; s != nil && !s.opaque; s = s.parent {
			if s.global {
				r.x.depth, r.x.slot = int32(depth), slotGlobal
				break
			}
			if i, ok := s.slots[name]; ok {
				r.x.depth, r.x.slot = int32(depth), int32(i)
				break
			}
			if s.defines[name] || s.later[name] {
				break
			}
			depth++
		}
	}
	c.refs = nil
}
