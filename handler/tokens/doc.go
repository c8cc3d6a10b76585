// Package tokens counts tokens the way SPEC §14.2 prescribes: with the
// o200k_base vocabulary, embedded in the binary through
// github.com/pkoukk/tiktoken-go-loader and never fetched over the network.
//
// The vocabulary (about 200,000 entries) takes a few hundred milliseconds to
// load, so it is loaded lazily, once per process, by the first Count. Code
// that must not pay for it (benchmarks of the session machinery, runs that
// make no model call) uses None or simply never counts.
//
//	n := tokens.Count("Hello Bob!") // 4
//	var c tokens.Counter = tokens.O200k()
//	n = c.Count("Hello Bob!")
package tokens
