//go:build race

package tokens

// raceEnabled reports a build with the race detector, under which the
// whole-tree comparison would take many minutes.
const raceEnabled = true
