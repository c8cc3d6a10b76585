package evaluator

// SetOptimize turns the evaluator's optimizations (slots, frame reuse,
// integer fast paths) on or off for programs compiled from now on.
func SetOptimize(on bool) { optimize = on }
