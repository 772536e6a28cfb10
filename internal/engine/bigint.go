package engine

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
)

// Integers beyond 64 bits. Python's int has no bound; a template's
// integers are int64 (Int, the common case, which never allocates) until
// a literal, a conversion or a result leaves that range, and then
// arbitrary-precision (BigInt, a *big.Int that is never changed after it
// is made). A result back in range is an Int again, so every integer has
// one form. The operations Python gives integers — arithmetic, order and
// equality, printing, tojson, hashing, int(), abs, round — take either;
// one that does not know a BigInt refuses it with an error, never a
// wrong number.

// bigValue is the integer b: an Int when it fits.
func bigValue(b *big.Int) Value {
	if b.IsInt64() {
		return intValue(b.Int64())
	}
	return Value{k: BigInt, ref: b}
}

// isInteger reports an integer of either form, or a boolean.
func (v Value) isInteger() bool { return v.k == Int || v.k == Bool || v.k == BigInt }

// toBig is an integer as a *big.Int (a fresh one for an Int).
func toBig(v Value) *big.Int {
	if v.k == BigInt {
		return v.ref.(*big.Int)
	}
	return big.NewInt(v.n)
}

// bigFloat is float(b), or Python's OverflowError.
func bigFloat(b *big.Int) (float64, error) {
	f, _ := new(big.Float).SetInt(b).Float64()
	if math.IsInf(f, 0) {
		return 0, errors.New("int too large to convert to float")
	}
	return f, nil
}

// numFloat is float(v) of a number of any form.
func numFloat(v Value) (float64, error) {
	if v.k == BigInt {
		return bigFloat(v.ref.(*big.Int))
	}
	return toFloat(v), nil
}

// maxBigBits bounds the integers a template may build: beyond it a
// result is refused with the memory budget's error.
const maxBigBits = 1 << 20

// bigArith is x op y for integers (either form), as Python computes it.
func bigArith(st *state, op string, a, b Value) (Value, error) {
	x, y := toBig(a), toBig(b)
	grow := func(bits int) error {
		if bits > maxBigBits {
			return st.tooBig(bits / 8)
		}
		return st.charge(bits / 8)
	}
	// maxBigBits bounds any one integer, whatever the memory budget: a
	// multiplication's cost grows faster than its size.
	switch op {
	case "+":
		if err := grow(max(x.BitLen(), y.BitLen()) + 1); err != nil {
			return Value{}, err
		}
		return bigValue(new(big.Int).Add(x, y)), nil
	case "-":
		if err := grow(max(x.BitLen(), y.BitLen()) + 1); err != nil {
			return Value{}, err
		}
		return bigValue(new(big.Int).Sub(x, y)), nil
	case "*":
		if err := grow(x.BitLen() + y.BitLen()); err != nil {
			return Value{}, err
		}
		return bigValue(new(big.Int).Mul(x, y)), nil
	case "/":
		if y.Sign() == 0 {
			return Value{}, errors.New("division by zero")
		}
		f, _ := new(big.Rat).SetFrac(x, y).Float64()
		if math.IsInf(f, 0) {
			return Value{}, errors.New("integer division result too large for a float")
		}
		return floatValue(f), nil
	case "//", "%":
		if y.Sign() == 0 {
			if op == "//" {
				return Value{}, errors.New("integer division by zero")
			}
			return Value{}, errors.New("integer modulo by zero")
		}
		// Python floors: the remainder takes the divisor's sign.
		q, m := new(big.Int).QuoRem(x, y, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (y.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
			m.Add(m, y)
		}
		if op == "//" {
			return bigValue(q), nil
		}
		return bigValue(m), nil
	case "**":
		if y.Sign() < 0 {
			fx, err := bigFloat(x)
			if err != nil {
				return Value{}, err
			}
			fy, err := bigFloat(y)
			if err != nil {
				return Value{}, err
			}
			return floatValue(math.Pow(fx, fy)), nil
		}
		if x.BitLen() > 1 && (!y.IsInt64() || y.Int64() > maxBigBits) {
			n := math.MaxInt
			if y.IsInt64() {
				n = int(min(y.Int64()/8*int64(x.BitLen()-1), math.MaxInt32))
			}
			return Value{}, st.tooBig(n) // the result's bytes, beyond any budget
		}
		if x.BitLen() > 1 {
			if err := grow(x.BitLen() * int(y.Int64())); err != nil {
				return Value{}, err
			}
		}
		if x.BitLen() <= 1 && !y.IsInt64() { // 0, 1 or -1 to a huge power: 0, 1, or ±1 by its parity
			if x.Sign() == 0 {
				return intValue(0), nil
			}
			y = new(big.Int).Add(big.NewInt(2), new(big.Int).And(y, big.NewInt(1)))
		}
		return bigValue(new(big.Int).Exp(x, y, nil)), nil
	}
	return Value{}, fmt.Errorf("unsupported operand types for %s: integer and integer", op)
}

// bigCompare orders two numbers of which one at least is a BigInt, as
// Python compares an int with an int or a float: exactly.
func bigCompare(a, b Value) (int, bool) {
	if a.isInteger() && b.isInteger() {
		return toBig(a).Cmp(toBig(b)), true
	}
	fa, fb := bigFloatOf(a), bigFloatOf(b)
	if fa == nil || fb == nil {
		return 0, false // NaN: unordered
	}
	return fa.Cmp(fb), true
}

func bigFloatOf(v Value) *big.Float {
	if v.k == Float {
		f := v.float()
		if math.IsNaN(f) {
			return nil
		}
		return new(big.Float).SetFloat64(f)
	}
	return new(big.Float).SetInt(toBig(v))
}

// bigString is str() of a BigInt.
func bigString(v Value) string { return v.ref.(*big.Int).String() }

// parseBigInt parses the digits of an integer literal (underscores
// removed) in base, with its sign.
func parseBigInt(digits string, base int, neg bool) (*big.Int, bool) {
	b, ok := new(big.Int).SetString(strings.ReplaceAll(digits, "_", ""), base)
	if !ok {
		return nil, false
	}
	if neg {
		b.Neg(b)
	}
	return b, true
}

// floatBig is int(f) of a float beyond the int64 range: exact.
func floatBig(f float64) Value {
	b, _ := new(big.Float).SetFloat64(math.Trunc(f)).Int(nil)
	return bigValue(b)
}
