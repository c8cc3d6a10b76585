package tokens

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
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

var (
	loadOnce sync.Once
	encoder  *tiktoken.Tiktoken
	loadErr  error
	loaded   atomic.Bool
)

// load reads the embedded vocabulary once. The offline loader serves the
// file compiled into the binary: nothing is ever fetched.
func load() {
	loadOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		encoder, loadErr = tiktoken.GetEncoding(Encoding)
		loaded.Store(true)
	})
}

// O200k returns the o200k_base counter (SPEC §14.2). The vocabulary is
// embedded in the binary and loaded on the first Count, never before: a run
// that counts nothing never pays for it.
func O200k() Counter { return o200k{} }

// Count implements Counter. Special-token text such as "<|endoftext|>" is
// counted as ordinary text. Should the embedded vocabulary fail to load
// (see Err), it estimates one token per four bytes.
func (o200k) Count(text string) int {
	if text == "" {
		return 0
	}
	load()
	if encoder == nil {
		return (len(text) + 3) / 4
	}
	if len(text) < cacheMinBytes {
		return len(encoder.EncodeOrdinary(text))
	}
	key := sha256.Sum256([]byte(text))
	cacheMu.Lock()
	n, ok := cache[key]
	cacheMu.Unlock()
	if ok {
		return n
	}
	n = len(encoder.EncodeOrdinary(text))
	cacheMu.Lock()
	if len(cache) >= cacheMaxEntries {
		clear(cache)
	}
	cache[key] = n
	cacheMu.Unlock()
	return n
}

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

// Loaded reports whether the vocabulary has been loaded. Tests use it to
// check that a run without model calls never loads it.
func Loaded() bool { return loaded.Load() }

// Err returns the error the vocabulary failed to load with, or nil. It
// loads the vocabulary when that has not happened yet.
func Err() error {
	load()
	return loadErr
}
