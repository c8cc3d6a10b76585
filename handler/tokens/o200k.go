package tokens

import (
	_ "embed" // the rank table
	"errors"
	"fmt"
	"strings"
	"sync"
)

//go:generate go run ./internal/o200kgen -o o200k.bin

// table is the o200k_base rank table written by internal/o200kgen (see its
// doc for the layout). It is searched in place: nothing is parsed or
// allocated when the process starts or when the first text is counted.
//
//go:embed o200k.bin
var table string

const (
	tableMagic = "o200kv1\n"
	rankBits   = 18
	rankMask   = 1<<rankBits - 1
)

// ranks is a view of table.
type ranks struct {
	n       int
	mask    uint64
	offsets int // byte offset of the offsets array in table
	slots   int // byte offset of the slots array
	bytes   int // byte offset of the token bytes
}

var (
	vocab    ranks
	vocabErr = vocab.init(table)
)

// init checks the header and the sizes of table and sets up the view.
func (v *ranks) init(t string) error {
	if len(t) < len(tableMagic)+8 || t[:len(tableMagic)] != tableMagic {
		return errors.New("tokens: the embedded o200k_base table is malformed")
	}
	n := int(u32(t, len(tableMagic)))
	bits := int(u32(t, len(tableMagic)+4))
	if n <= 0 || n >= rankMask || bits <= 0 || bits > 30 {
		return errors.New("tokens: the embedded o200k_base table is malformed")
	}
	v.offsets = len(tableMagic) + 8
	v.slots = v.offsets + 4*(n+1)
	v.bytes = v.slots + 4<<bits
	if v.bytes > len(t) || v.bytes+int(u32(t, v.slots-4)) != len(t) {
		return fmt.Errorf("tokens: the embedded o200k_base table has %d bytes, its header says otherwise", len(t))
	}
	v.n, v.mask = n, 1<<bits-1
	return nil
}

// u32 reads the little-endian uint32 at t[i:].
func u32(t string, i int) uint32 {
	_ = t[i+3]
	return uint32(t[i]) | uint32(t[i+1])<<8 | uint32(t[i+2])<<16 | uint32(t[i+3])<<24
}

// fnv1a is the hash of the table (64-bit FNV-1a).
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// noRank is the rank of a byte string that is not a token.
const noRank = int32(1<<31 - 1)

// rank returns the rank (token id) of tok, or noRank.
func (v *ranks) rank(tok string) int32 {
	if v.n == 0 {
		return noRank
	}
	h := fnv1a(tok)
	tag := uint32(h >> (64 - (32 - rankBits)))
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		s := u32(table, v.slots+4*int(i))
		if s == 0 {
			return noRank
		}
		if s>>rankBits != tag {
			continue
		}
		r := int(s&rankMask) - 1
		start := int(u32(table, v.offsets+4*r))
		end := int(u32(table, v.offsets+4*r+4))
		if end-start == len(tok) && table[v.bytes+start:v.bytes+end] == tok {
			return int32(r)
		}
	}
}

// pieceTokens returns the number of tokens byte-pair merging makes of one
// pre-tokenized piece, as tiktoken does: a piece that is a token is one,
// otherwise adjacent parts are merged, lowest rank first (leftmost on a
// tie), while some adjacent pair forms a token.
func (v *ranks) pieceTokens(piece string) int {
	if len(piece) <= 1 {
		return len(piece)
	}
	if v.rank(piece) != noRank {
		return 1
	}
	if len(piece) > longPiece {
		return v.mergeLong(piece)
	}
	sh := &pieceCache[fnv1a(piece)%pieceShards]
	sh.mu.Lock()
	n, ok := sh.m[piece]
	sh.mu.Unlock()
	if ok {
		return int(n)
	}
	var buf [longPiece + 1]part
	n = int32(v.merge(piece, buf[:len(piece)+1]))
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= pieceShardMax {
		sh.m = make(map[string]int32, 256)
	}
	sh.m[strings.Clone(piece)] = n
	sh.mu.Unlock()
	return int(n)
}

// Pieces that are not tokens are merged once per process: words recur,
// and a map lookup costs a fraction of the merge. The cache is sharded by
// the piece's hash and a full shard starts over (at most 65,536 pieces,
// a few MB).
const (
	pieceShards   = 64
	pieceShardMax = 1024
)

var pieceCache [pieceShards]struct {
	mu sync.Mutex
	m  map[string]int32
}

// part is a part of a piece being merged: its start and the rank of it
// joined with the next part.
type part struct {
	start int
	rank  int32
}

// longPiece is the length above which merging uses a heap.
const longPiece = 128

// pairRank is the rank of parts[i] joined with the following skip+1 parts.
func (v *ranks) pairRank(piece string, parts []part, i, skip int) int32 {
	if i+skip+2 < len(parts) {
		return v.rank(piece[parts[i].start:parts[i+skip+2].start])
	}
	return noRank
}

// pairTable holds the rank of every two-byte token (noRank for the other
// pairs), indexed by the two bytes: the first round of merging looks up
// every adjacent pair of a piece. Built on first use from the table.
var (
	pairOnce  sync.Once
	pairTable *[1 << 16]int32
)

// pairRanks returns pairTable, building it the first time.
func (v *ranks) pairRanks() *[1 << 16]int32 {
	pairOnce.Do(func() {
		t := new([1 << 16]int32)
		for i := range t {
			t[i] = noRank
		}
		for r := range v.n {
			start := int(u32(table, v.offsets+4*r))
			if int(u32(table, v.offsets+4*r+4))-start == 2 {
				t[int(table[v.bytes+start])<<8|int(table[v.bytes+start+1])] = int32(r)
			}
		}
		pairTable = t
	})
	return pairTable
}

// merge is tiktoken's byte-pair merge over len(piece)+1 parts, counting
// the tokens.
func (v *ranks) merge(piece string, parts []part) int {
	pairs := v.pairRanks()
	for i := range parts {
		parts[i] = part{start: i, rank: noRank}
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = pairs[int(piece[i])<<8|int(piece[i+1])]
	}
	for len(parts) > 1 {
		minRank, minIdx := noRank, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < minRank {
				minRank, minIdx = parts[i].rank, i
			}
		}
		if minIdx < 0 {
			break
		}
		i := minIdx
		parts[i].rank = v.pairRank(piece, parts, i, 1)
		if i > 0 {
			parts[i-1].rank = v.pairRank(piece, parts, i-1, 1)
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	return len(parts) - 1
}

// mergeLong is merge for long pieces, in O(n log n) instead of O(n²): the
// parts form a linked list and the candidate pairs a heap ordered by rank,
// then start, which picks the same pair as merge's leftmost minimum. An
// entry whose part has gone or whose rank has changed since is skipped.
func (v *ranks) mergeLong(piece string) int {
	n := len(piece)
	next := make([]int32, n) // next[i]: start of the part after the part at i (n at the end)
	prev := make([]int32, n) // prev[i]: start of the part before (-1 at the start)
	cur := make([]int32, n)  // cur[i]: rank of the part at i joined with the next one
	alive := make([]bool, n)
	h := make(pairHeap, 0, n)
	for i := range n {
		next[i], prev[i], alive[i] = int32(i+1), int32(i-1), true
	}
	// The rank of the part at i joined with its next part.
	joined := func(i int32) int32 {
		j := next[i]
		if int(j) >= n {
			return noRank
		}
		return v.rank(piece[i:next[j]])
	}
	pairs := v.pairRanks()
	for i := range int32(n - 1) {
		cur[i] = pairs[int(piece[i])<<8|int(piece[i+1])]
		if cur[i] != noRank {
			h = append(h, pair{cur[i], i})
		}
	}
	cur[n-1] = noRank
	h.init()
	count := n
	for len(h) > 0 {
		e := h.pop()
		if !alive[e.start] || cur[e.start] != e.rank {
			continue
		}
		// Merge the part at e.start with the next one.
		i := e.start
		j := next[i]
		alive[j] = false
		next[i] = next[j]
		if int(next[j]) < n {
			prev[next[j]] = i
		}
		count--
		if cur[i] = joined(i); cur[i] != noRank {
			h.push(pair{cur[i], i})
		}
		if p := prev[i]; p >= 0 {
			if cur[p] = joined(p); cur[p] != noRank {
				h.push(pair{cur[p], p})
			}
		}
	}
	return count
}

// pair is a heap entry of mergeLong.
type pair struct {
	rank  int32
	start int32
}

func (a pair) less(b pair) bool { return a.rank < b.rank || a.rank == b.rank && a.start < b.start }

// pairHeap is a binary min-heap of pairs.
type pairHeap []pair

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(p pair) {
	*h = append(*h, p)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[i].less(s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *pairHeap) pop() pair {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			m = r
		}
		if !h[m].less(h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
