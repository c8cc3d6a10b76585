//go:build !unix

package plan

// lock does nothing where flock is not available: two runs of one plan
// at once are then detected only by the change check before each write.
func (p *Plan) lock() (func(), error) { return func() {}, nil }

// stepLock is a no-op where flock is missing: steps of a driven run on
// one plan directory are then not kept apart.
func (p *Plan) stepLock() (func(), error) { return func() {}, nil }
