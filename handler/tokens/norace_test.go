//go:build !race

package tokens

// raceEnabled reports a build with the race detector.
const raceEnabled = false
