//go:build !race

package serve

// raceDetector reports whether the tests run with -race.
const raceDetector = false
