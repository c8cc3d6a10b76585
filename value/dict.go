package value

import (
	"iter"
	"strings"
)

// dictIndexThreshold is the size from which a Dict keeps a hash index; smaller
// dicts are searched linearly, which is faster for the few keys most have.
const dictIndexThreshold = 8

// Dict maps string keys to values and remembers insertion order. A Dict is
// built with NewDict and Set, then shared; after it has been handed to other
// code it must not be changed (use With, which copies).
type Dict struct {
	keys  []string
	vals  []Value
	index map[string]int
}

// NewDict returns an empty Dict with room for n entries.
func NewDict(n int) *Dict {
	return &Dict{keys: make([]string, 0, n), vals: make([]Value, 0, n)}
}

// DictOf builds a Dict from alternating keys and values.
func DictOf(pairs ...any) *Dict {
	d := NewDict(len(pairs) / 2)
	for i := 0; i+1 < len(pairs); i += 2 {
		d.Set(pairs[i].(string), pairs[i+1].(Value))
	}
	return d
}

// Type implements Value.
func (*Dict) Type() string { return "dict" }

// String implements Value: (dict "k1" v1 "k2" v2).
func (d *Dict) String() string {
	var b strings.Builder
	d.print(&b, 0, 0)
	return b.String()
}

func (d *Dict) print(b textSink, depth, limit int) {
	if depth >= MaxPrintDepth {
		b.WriteString(TooDeep)
		return
	}
	b.WriteString("(dict")
	for i, k := range d.Keys() {
		b.WriteByte(' ')
		b.WriteString(String(k).String())
		b.WriteByte(' ')
		if limit > 0 && b.Len() > limit {
			return
		}
		print(b, d.vals[i], depth+1, limit)
	}
	b.WriteByte(')')
}

// Len returns the number of entries.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.keys)
}

func (d *Dict) find(k string) int {
	if d == nil {
		return -1
	}
	if d.index != nil {
		if i, ok := d.index[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range d.keys {
		if key == k {
			return i
		}
	}
	return -1
}

// Get returns the value stored under k.
func (d *Dict) Get(k string) (Value, bool) {
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return nil, false
}

// Has reports whether k is a key.
func (d *Dict) Has(k string) bool { return d.find(k) >= 0 }

// Set stores v under k during construction: an existing key keeps its
// position. Only the code that created the Dict may call Set.
func (d *Dict) Set(k string, v Value) {
	if i := d.find(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	if d.index != nil {
		d.index[k] = len(d.keys) - 1
	} else if len(d.keys) > dictIndexThreshold {
		d.index = make(map[string]int, len(d.keys)*2)
		for i, key := range d.keys {
			d.index[key] = i
		}
	}
}

// Clone returns a copy of d that may be changed with Set.
func (d *Dict) Clone() *Dict {
	c := NewDict(d.Len() + 1)
	if d == nil {
		return c
	}
	c.keys = append(c.keys, d.keys...)
	c.vals = append(c.vals, d.vals...)
	if d.index != nil {
		c.index = make(map[string]int, len(d.index))
		for k, i := range d.index {
			c.index[k] = i
		}
	}
	return c
}

// With returns a copy of d with k set to v.
func (d *Dict) With(k string, v Value) *Dict {
	c := d.Clone()
	c.Set(k, v)
	return c
}

// Keys returns the keys in insertion order.
func (d *Dict) Keys() []string {
	if d == nil {
		return nil
	}
	return append([]string(nil), d.keys...)
}

// All iterates over the entries in insertion order.
func (d *Dict) All() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		if d == nil {
			return
		}
		for i, k := range d.keys {
			if !yield(k, d.vals[i]) {
				return
			}
		}
	}
}
