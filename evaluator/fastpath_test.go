package evaluator

import (
	"math"
	"testing"

	"github.com/evalrun/evalrun/value"
)

// TestFastIntMatchesPrimitives: the integer fast path gives what the
// primitive gives, or leaves the case (overflow) to it.
func TestFastIntMatchesPrimitives(t *testing.T) {
	ints := []int64{0, 1, -1, 2, -2, 7, 255, 256, 1023, 1024, -128, -129, 3037000499, 3037000500, -3037000500,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1, math.MaxInt32, math.MinInt32}
	th := &thread{in: New(Options{})}
	for name, op := range fastOps {
		p := primitives[name]
		for _, a := range ints {
			for _, b := range ints {
				args := []value.Value{value.Int(a), value.Int(b)}
				want, werr := th.callPrim(p, &call{}, args)
				got, ok := fastInt(op, args[0], args[1])
				switch {
				case !ok && werr == nil:
					t.Errorf("(%s %d %d): fast path declined, primitive gives %v", name, a, b, want)
				case ok && werr != nil:
					t.Errorf("(%s %d %d) = %v, primitive fails: %v", name, a, b, got, werr)
				case ok && (!value.Equal(got, want) || got.Type() != want.Type()):
					t.Errorf("(%s %d %d) = %v, want %v", name, a, b, got, want)
				}
			}
		}
		if _, ok := fastInt(op, value.Float(1), value.Int(1)); ok {
			t.Errorf("%s: fast path took a float", name)
		}
		if _, ok := fastInt(op, value.Int(1), value.Bool(true)); ok {
			t.Errorf("%s: fast path took a bool", name)
		}
	}
}
