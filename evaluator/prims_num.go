package evaluator

import (
	"math"

	"github.com/evalrun/evalrun/value"
)

func init() {
	register(
		&primitive{name: "+", min: 0, max: -1, fn: primAdd},
		&primitive{name: "-", min: 1, max: 2, arityMsg: "'-' requires one or two numeric arguments.", fn: primSub},
		&primitive{name: "*", min: 0, max: -1, fn: primMul},
		&primitive{name: "/", min: 1, max: -1, fn: primDiv},
		&primitive{name: "min", min: 1, max: -1, fn: func(t *thread, c *call, a []value.Value) (value.Value, error) { return pick("min", c, a, -1) }},
		&primitive{name: "max", min: 1, max: -1, fn: func(t *thread, c *call, a []value.Value) (value.Value, error) { return pick("max", c, a, 1) }},
		&primitive{name: "abs", min: 1, max: 1, fn: primAbs},
		&primitive{name: "quotient", min: 2, max: 2, fn: primQuotient},
		&primitive{name: "remainder", min: 2, max: 2, fn: primRemainder},
	)
	for _, op := range []string{"<", ">", "<=", ">=", "="} {
		register(&primitive{name: op, min: 2, max: 2, arityMsg: "'" + op + "' requires exactly two numeric arguments.", fn: compareFn(op)})
	}
}

func isNumber(v value.Value) bool {
	switch v.(type) {
	case value.Int, value.Float:
		return true
	}
	return false
}

func toFloat(v value.Value) float64 {
	switch v := v.(type) {
	case value.Int:
		return float64(v)
	case value.Float:
		return float64(v)
	}
	return 0
}

func checkNumbers(op string, c *call, args []value.Value) error {
	for i, a := range args {
		if !isNumber(a) {
			return typeError(op, c, i, "number", a)
		}
	}
	return nil
}

func finite(op string, c *call, f float64) (value.Value, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, errorf(c.at(), KindValue, "float overflow in '%s'", op)
	}
	return value.Float(f), nil
}

func overflow(op string, c *call) error {
	return errorf(c.at(), KindValue, "integer overflow in '%s'", op)
}

func primAdd(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := checkNumbers("+", c, args); err != nil {
		return nil, err
	}
	var isum int64
	var fsum float64
	isFloat := false
	for _, a := range args {
		switch a := a.(type) {
		case value.Int:
			if isFloat {
				fsum += float64(a)
				continue
			}
			s := isum + int64(a)
			if (s > isum) != (a > 0) {
				return nil, overflow("+", c)
			}
			isum = s
		case value.Float:
			if !isFloat {
				isFloat, fsum = true, float64(isum)
			}
			fsum += float64(a)
		}
	}
	if isFloat {
		return finite("+", c, fsum)
	}
	return value.Int(isum), nil
}

func primSub(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := checkNumbers("-", c, args); err != nil {
		return nil, err
	}
	a := args[0]
	var b value.Value
	if len(args) == 1 {
		if f, ok := a.(value.Float); ok {
			return -f, nil // negation: (- 0.0) is -0.0
		}
		a, b = value.Int(0), args[0]
	} else {
		b = args[1]
	}
	ai, aInt := a.(value.Int)
	bi, bInt := b.(value.Int)
	if aInt && bInt {
		d := ai - bi
		if (d < ai) != (bi > 0) {
			return nil, overflow("-", c)
		}
		return d, nil
	}
	return finite("-", c, toFloat(a)-toFloat(b))
}

func primMul(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := checkNumbers("*", c, args); err != nil {
		return nil, err
	}
	iprod := int64(1)
	fprod := 1.0
	isFloat := false
	for _, a := range args {
		switch a := a.(type) {
		case value.Int:
			if isFloat {
				fprod *= float64(a)
				continue
			}
			x := int64(a)
			if iprod != 0 && x != 0 {
				p := iprod * x
				if p/x != iprod || (iprod == -1 && x == math.MinInt64) || (x == -1 && iprod == math.MinInt64) {
					return nil, overflow("*", c)
				}
				iprod = p
			} else {
				iprod = 0
			}
		case value.Float:
			if !isFloat {
				isFloat, fprod = true, float64(iprod)
			}
			fprod *= float64(a)
		}
	}
	if isFloat {
		return finite("*", c, fprod)
	}
	return value.Int(iprod), nil
}

func primDiv(t *thread, c *call, args []value.Value) (value.Value, error) {
	if err := checkNumbers("/", c, args); err != nil {
		return nil, err
	}
	if len(args) == 1 {
		args = []value.Value{value.Int(1), args[0]}
	}
	q := toFloat(args[0])
	for _, a := range args[1:] {
		d := toFloat(a)
		if d == 0 {
			return nil, errorf(c.at(), KindValue, "division by zero in '/'")
		}
		q /= d
	}
	return finite("/", c, q)
}

func compareFn(op string) func(t *thread, c *call, args []value.Value) (value.Value, error) {
	return func(t *thread, c *call, args []value.Value) (value.Value, error) {
		a, b := args[0], args[1]
		if !isNumber(a) || !isNumber(b) {
			bad := 0
			if isNumber(a) {
				bad = 1
			}
			return nil, errorf(c.argPos(bad), KindType, "'%s' arguments must be numbers. Got: %s, %s", op, a.Type(), b.Type())
		}
		cmp := compareNumbers(a, b)
		var r bool
		switch op {
		case "<":
			r = cmp < 0
		case ">":
			r = cmp > 0
		case "<=":
			r = cmp <= 0
		case ">=":
			r = cmp >= 0
		default:
			r = cmp == 0
		}
		return value.Bool(r), nil
	}
}

// compareNumbers compares two numbers exactly: ints as ints, and an int with
// a float by their mathematical values (9007199254740993 > 9007199254740992.0).
func compareNumbers(a, b value.Value) int {
	ai, aInt := a.(value.Int)
	bi, bInt := b.(value.Int)
	if aInt && bInt {
		switch {
		case ai < bi:
			return -1
		case ai > bi:
			return 1
		}
		return 0
	}
	if aInt {
		return compareIntFloat(int64(ai), toFloat(b))
	}
	if bInt {
		return -compareIntFloat(int64(bi), toFloat(a))
	}
	fa, fb := toFloat(a), toFloat(b)
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

// pick returns the smallest (sign -1) or largest (sign 1) argument unchanged;
// the first one wins a tie.
func pick(op string, c *call, args []value.Value, sign int) (value.Value, error) {
	if err := checkNumbers(op, c, args); err != nil {
		return nil, err
	}
	best := args[0]
	for _, a := range args[1:] {
		if compareNumbers(a, best)*sign > 0 {
			best = a
		}
	}
	return best, nil
}

func primAbs(t *thread, c *call, args []value.Value) (value.Value, error) {
	switch a := args[0].(type) {
	case value.Int:
		if a == math.MinInt64 {
			return nil, overflow("abs", c)
		}
		if a < 0 {
			return -a, nil
		}
		return a, nil
	case value.Float:
		return value.Float(math.Abs(float64(a))), nil
	}
	return nil, typeError("abs", c, 0, "number", args[0])
}

func intPair(op string, c *call, args []value.Value) (int64, int64, error) {
	a, err := argInt(op, c, args, 0)
	if err != nil {
		return 0, 0, err
	}
	b, err := argInt(op, c, args, 1)
	if err != nil {
		return 0, 0, err
	}
	if b == 0 {
		return 0, 0, errorf(c.at(), KindValue, "division by zero in '%s'", op)
	}
	if a == math.MinInt64 && b == -1 && op == "quotient" {
		return 0, 0, overflow(op, c)
	}
	return a, b, nil
}

func primQuotient(t *thread, c *call, args []value.Value) (value.Value, error) {
	a, b, err := intPair("quotient", c, args)
	if err != nil {
		return nil, err
	}
	return value.Int(a / b), nil
}

func primRemainder(t *thread, c *call, args []value.Value) (value.Value, error) {
	a, b, err := intPair("remainder", c, args)
	if err != nil {
		return nil, err
	}
	if b == -1 {
		return value.Int(0), nil
	}
	return value.Int(a % b), nil
}

// compareIntFloat compares an int with a finite float exactly.
func compareIntFloat(i int64, f float64) int {
	switch {
	case f >= 0x1p63:
		return -1
	case f < -0x1p63:
		return 1
	}
	t := math.Trunc(f) // now -2^63 <= t < 2^63: exact as an int64
	switch ti := int64(t); {
	case i < ti:
		return -1
	case i > ti:
		return 1
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}
