//go:build !temporal

package engine

// remoteError returns the kind and the display of the evaluation error of
// a run on Temporal held by err, and whether err holds one. Without the
// temporal build tag (engine/temporal.go) the engine starts no run on
// Temporal, so no error holds one.
func remoteError(error) (kind, display string, ok bool) { return "", "", false }
