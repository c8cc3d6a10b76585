package tokens

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"

	"unicode/utf8"
)

// The chat-format accounting of SPEC §14.2.
const (
	// PerMessage is added for every message of a request, the system
	// prompt included.
	PerMessage = 4
	// ReplyPriming is added once per request for the reply.
	ReplyPriming = 3
	// Encoding is the name of the vocabulary used for counting.
	Encoding = "o200k_base"
)

// Counter counts the tokens of a text. Implementations are safe for
// concurrent use.
type Counter interface {
	// Count returns the number of tokens of text.
	Count(text string) int
}

// CounterFunc adapts a function to the Counter interface.
type CounterFunc func(text string) int

// Count implements Counter.
func (f CounterFunc) Count(text string) int { return f(text) }

// None is a Counter that counts every text as zero tokens. Benchmarks and
// tests use it to leave tokenization out.
var None Counter = CounterFunc(func(string) int { return 0 })

// o200k is the shared o200k_base counter.
type o200k struct{}

// counted is set by the first Count that tokenizes a text.
var counted atomic.Bool

// O200k returns the o200k_base counter (SPEC §14.2). Its vocabulary is
// embedded in the binary as a table searched in place, so neither the
// first nor any later Count loads anything.
func O200k() Counter { return o200k{} }

// Count implements Counter: the number of tokens tiktoken's o200k_base
// encoding gives text (EncodeOrdinary: special-token text such as
// "<|endoftext|>" is counted as ordinary text). As in tiktoken-go, every
// byte of invalid UTF-8 counts as U+FFFD. Should the embedded table be
// malformed (see Err), it estimates one token per four bytes.
func (o200k) Count(text string) int {
	if text == "" {
		return 0
	}
	counted.Store(true)
	if vocabErr != nil {
		return (len(text) + 3) / 4
	}
	if len(text) < cacheMinBytes {
		return count(text)
	}
	key := sha256.Sum256([]byte(text))
	cacheMu.Lock()
	n, ok := cache[key]
	cacheMu.Unlock()
	if ok {
		return n
	}
	n = count(text)
	cacheMu.Lock()
	if len(cache) >= cacheMaxEntries {
		clear(cache)
	}
	cache[key] = n
	cacheMu.Unlock()
	return n
}

// count pre-tokenizes text and sums the tokens of its pieces.
func count(text string) int {
	if !utf8.ValidString(text) {
		text = string([]rune(text)) // what tiktoken-go's regexp2 matching sees
	}
	n := 0
	for i := 0; i < len(text); {
		end := match(text, i)
		n += vocab.pieceTokens(text[i:end])
		i = end
	}
	return n
}

// Bound returns an upper bound of the o200k_base token count of text
// without tokenizing it: every token has at least one byte, and an invalid
// byte counts as the three bytes of U+FFFD. A limit check whose bound is
// within the limit need not count.
func Bound(text string) int {
	if utf8.ValidString(text) {
		return len(text)
	}
	return 3 * len(text)
}

// Bounder is implemented by counters that can bound a count cheaply.
type Bounder interface {
	// Bound returns an upper bound of Count(text).
	Bound(text string) int
}

// Bound implements Bounder.
func (o200k) Bound(text string) int { return Bound(text) }

// Long texts are counted once: the same system prompt or context block is
// sent by many task calls of a run, and hashing is hundreds of times faster
// than tokenizing.
const (
	cacheMinBytes   = 2 << 10
	cacheMaxEntries = 4096
)

var (
	cacheMu sync.Mutex
	cache   = make(map[[sha256.Size]byte]int)
)

// Count returns the number of o200k_base tokens of text.
func Count(text string) int { return o200k{}.Count(text) }

// Loaded reports whether some Count has tokenized a text. Tests use it to
// check that a run without model calls counts nothing.
func Loaded() bool { return counted.Load() }

// Err returns nil when the embedded o200k_base table is sound, else what
// is wrong with it (Count then estimates).
func Err() error { return vocabErr }
