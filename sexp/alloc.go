package sexp

// allocator hands out Nodes and element slices from blocks, so that reading
// makes a few large allocations instead of one per node. Each node also has an
// index, so that the reader can hold on to nodes without storing pointers
// (storing pointers costs a GC write barrier each).
type allocator struct {
	first  []Node   // the first block, sized from the length of the text
	blocks [][]Node // further blocks of blockSize nodes
	count  int      // nodes handed out

	ptrs    []*Node // the current block of element pointers
	ptrSize int     // capacity of the next block of element pointers
}

// blockSize is the number of nodes in each block after the first.
const blockSize = 1024

// init sizes the first block from the length of the text (about one node in
// six bytes in typical programs).
func (a *allocator) init(textLen int) {
	a.first = make([]Node, min(max(textLen/6, 16), blockSize))
	a.ptrSize = len(a.first)
}

// node returns a new zero Node and its index.
func (a *allocator) node() (*Node, int) {
	i := a.count
	a.count++
	if i < len(a.first) {
		return &a.first[i], i
	}
	j := i - len(a.first)
	if j%blockSize == 0 {
		a.blocks = append(a.blocks, make([]Node, blockSize))
	}
	return &a.blocks[j/blockSize][j%blockSize], i
}

// at returns the node with index i.
func (a *allocator) at(i int) *Node {
	if i < len(a.first) {
		return &a.first[i]
	}
	j := i - len(a.first)
	return &a.blocks[j/blockSize][j%blockSize]
}

// items returns a slice of n element pointers whose capacity is n, so that an
// append by a user copies instead of writing into the next list's elements.
func (a *allocator) items(n int) []*Node {
	if n > blockSize/4 {
		return make([]*Node, n)
	}
	if cap(a.ptrs)-len(a.ptrs) < n {
		a.ptrs = make([]*Node, 0, max(a.ptrSize, n))
		a.ptrSize = min(a.ptrSize*2, blockSize)
	}
	s := a.ptrs[len(a.ptrs) : len(a.ptrs)+n : len(a.ptrs)+n]
	a.ptrs = a.ptrs[:len(a.ptrs)+n]
	return s
}
