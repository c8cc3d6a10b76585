package tasksystem

import (
	"sort"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/templates"
)

// Registry holds the templates of a run by name, alias and type:subtype
// (SPEC §10.2) and matches natural-language requests against their
// descriptions (SPEC §10.5). It is safe for concurrent use: defatom may
// register while parallel branches look templates up.
type Registry struct {
	mu      sync.RWMutex
	seq     int
	byName  map[string]*entry
	byAlias map[string]*entry
	bySub   map[string]*entry              // "atomic:standard" → last registration
	byLower map[string][]*entry            // lowercased name or alias → entries
	byToken map[string]map[*entry]struct{} // description token → entries
}

// entry is one registered template.
type entry struct {
	t      *templates.Template
	seq    int      // registration order
	key    string   // type:subtype
	tokens []string // description tokens, a set
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		byName:  map[string]*entry{},
		byAlias: map[string]*entry{},
		bySub:   map[string]*entry{},
		byLower: map[string][]*entry{},
		byToken: map[string]map[*entry]struct{}{},
	}
}

// AddResult says what a registration displaced, for the shadowing warnings
// of SPEC §10.1.
type AddResult struct {
	// Replaced is the template of the same name that the new one replaced
	// whole, or nil.
	Replaced *templates.Template
	// AliasTakenFrom is the other template whose alias the new template
	// claimed, or nil.
	AliasTakenFrom *templates.Template
}

// typeKey returns the type:subtype index key of t.
func typeKey(t *templates.Template) string {
	typ, sub := t.Type, t.Subtype
	if typ == "" {
		typ = "atomic"
	}
	if sub == "" {
		sub = "standard"
	}
	return typ + ":" + sub
}

// Add registers t. A template with the same name is replaced whole: its alias
// disappears with it. The new template's alias, if any, is taken from any
// template that held it. Every registration makes t the target of its
// type:subtype name (atomic:<subtype>). t must not be changed afterwards.
func (r *Registry) Add(t *templates.Template) AddResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	var res AddResult
	if old := r.byName[t.Name]; old != nil {
		r.remove(old)
		res.Replaced = old.t
	}
	r.seq++
	e := &entry{t: t, seq: r.seq, key: typeKey(t), tokens: Tokens(t.Description)}
	r.byName[t.Name] = e
	r.addLower(strings.ToLower(t.Name), e)
	if t.Alias != "" {
		if prev := r.byAlias[t.Alias]; prev != nil {
			res.AliasTakenFrom = prev.t
			r.removeLower(strings.ToLower(t.Alias), prev)
		}
		r.byAlias[t.Alias] = e
		r.addLower(strings.ToLower(t.Alias), e)
	}
	r.bySub[e.key] = e
	for _, tok := range e.tokens {
		set := r.byToken[tok]
		if set == nil {
			set = map[*entry]struct{}{}
			r.byToken[tok] = set
		}
		set[e] = struct{}{}
	}
	return res
}

// remove unregisters e; the caller holds the lock.
func (r *Registry) remove(e *entry) {
	delete(r.byName, e.t.Name)
	r.removeLower(strings.ToLower(e.t.Name), e)
	if a := e.t.Alias; a != "" && r.byAlias[a] == e {
		delete(r.byAlias, a)
		r.removeLower(strings.ToLower(a), e)
	}
	if r.bySub[e.key] == e {
		// The last registration of the subtype that is still registered
		// takes over.
		var best *entry
		for _, o := range r.byName {
			if o.key == e.key && (best == nil || o.seq > best.seq) {
				best = o
			}
		}
		if best != nil {
			r.bySub[e.key] = best
		} else {
			delete(r.bySub, e.key)
		}
	}
	for _, tok := range e.tokens {
		if set := r.byToken[tok]; set != nil {
			delete(set, e)
			if len(set) == 0 {
				delete(r.byToken, tok)
			}
		}
	}
}

func (r *Registry) addLower(k string, e *entry) {
	r.byLower[k] = append(r.byLower[k], e)
}

func (r *Registry) removeLower(k string, e *entry) {
	list := r.byLower[k]
	for i, o := range list {
		if o == e {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(r.byLower, k)
	} else {
		r.byLower[k] = list
	}
}

// Lookup resolves name by exact template name, then alias, then the
// type:subtype index (SPEC §10.2).
func (r *Registry) Lookup(name string) (*templates.Template, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.byName[name]; e != nil {
		return e.t, true
	}
	if e := r.byAlias[name]; e != nil {
		return e.t, true
	}
	if e := r.bySub[name]; e != nil {
		return e.t, true
	}
	return nil, false
}

// All returns the registered templates in registration order.
func (r *Registry) All() []*templates.Template {
	r.mu.RLock()
	entries := make([]*entry, 0, len(r.byName))
	for _, e := range r.byName {
		entries = append(entries, e)
	}
	r.mu.RUnlock()
	sort.Slice(entries, func(i, j int) bool { return entries[i].seq < entries[j].seq })
	ts := make([]*templates.Template, len(entries))
	for i, e := range entries {
		ts[i] = e.t
	}
	return ts
}

// Len returns the number of registered templates.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byName)
}
