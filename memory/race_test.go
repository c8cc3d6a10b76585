//go:build race

package memory

// raceEnabled reports whether the race detector is on.
const raceEnabled = true
