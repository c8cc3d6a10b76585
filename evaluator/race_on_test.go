//go:build race

package evaluator_test

// raceEnabled reports whether the tests run under the race detector, which
// multiplies the memory the 10,000,000-element rows need.
const raceEnabled = true
