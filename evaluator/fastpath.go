package evaluator

import "github.com/evalrun/evalrun/value"

// fastOp names the integer fast path of a primitive call with two
// arguments: when both are ints and the result fits, it is computed inline
// with the value the primitive would return; anything else (floats, wrong
// types, overflow) goes to the primitive, which gives the value or the
// error.
type fastOp uint8

const (
	fastNone fastOp = iota
	fastAdd
	fastSub
	fastMul
	fastLt
	fastGt
	fastLe
	fastGe
	fastEq
)

var fastOps = map[string]fastOp{
	"+": fastAdd, "-": fastSub, "*": fastMul,
	"<": fastLt, ">": fastGt, "<=": fastLe, ">=": fastGe, "=": fastEq,
}

// Small ints boxed once, so that the fast path returns them without
// allocating.
const (
	smallIntMin = -128
	smallIntMax = 1023
)

var smallInts = func() (t [smallIntMax - smallIntMin + 1]value.Value) {
	for i := range t {
		t[i] = value.Int(i + smallIntMin)
	}
	return t
}()

// boxInt returns n as a value, from the table of small ints when it is one.
func boxInt(n int64) value.Value {
	if n >= smallIntMin && n <= smallIntMax {
		return smallInts[n-smallIntMin]
	}
	return value.Int(n)
}

// fastInt computes op on a and b when both are ints; ok is false when the
// primitive must do it.
func fastInt(op fastOp, a, b value.Value) (v value.Value, ok bool) {
	x, ok1 := a.(value.Int)
	y, ok2 := b.(value.Int)
	if !ok1 || !ok2 {
		return nil, false
	}
	switch op {
	case fastAdd:
		r := x + y
		if (y > 0 && r < x) || (y < 0 && r > x) {
			return nil, false
		}
		return boxInt(int64(r)), true
	case fastSub:
		r := x - y
		if (y > 0 && r > x) || (y < 0 && r < x) {
			return nil, false
		}
		return boxInt(int64(r)), true
	case fastMul:
		if x == 0 || y == 0 {
			return smallInts[-smallIntMin], true
		}
		r := x * y
		if r/y != x || (x == -1 && y == value.Int(minInt64)) || (y == -1 && x == value.Int(minInt64)) {
			return nil, false
		}
		return boxInt(int64(r)), true
	case fastLt:
		return value.Bool(x < y), true
	case fastGt:
		return value.Bool(x > y), true
	case fastLe:
		return value.Bool(x <= y), true
	case fastGe:
		return value.Bool(x >= y), true
	case fastEq:
		return value.Bool(x == y), true
	}
	return nil, false
}

const minInt64 = -1 << 63
