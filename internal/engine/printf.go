package engine

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// One conversion of printf-style formatting ("%5.2f" % x, the format
// filter), as CPython's "%" makes it. Flags, width and precision are read
// here, never handed to fmt (whose widths stop at a million and print
// "%!(BADWIDTH)" beyond), and what a conversion writes is charged to the
// render's memory budget before it is built: the precision before the
// digits, the padding before the padded string.

// printfSpec is a conversion's flags, width and precision.
type printfSpec struct {
	left, plus, space, alt, zero bool
	width                        int // 0: none
	prec                         int // -1: none
}

// parsePrintfSpec reads spec: flags ("-+ #0"), then a width and a
// precision of digits. A width beyond the largest int, or a precision
// beyond the largest C int, is refused, as CPython refuses them.
func parsePrintfSpec(spec string) (printfSpec, error) {
	p := printfSpec{prec: -1}
	i := 0
flags:
	for ; i < len(spec); i++ {
		switch spec[i] {
		case '-':
			p.left = true
		case '+':
			p.plus = true
		case ' ':
			p.space = true
		case '#':
			p.alt = true
		case '0':
			p.zero = true
		default:
			break flags
		}
	}
	digits := func(limit int64, what string) (int, error) {
		n := int64(0)
		for ; i < len(spec) && isDigitByte(spec[i]); i++ {
			d := int64(spec[i] - '0')
			if n > (limit-d)/10 {
				return 0, fmt.Errorf("%s too big", what)
			}
			n = n*10 + d
		}
		return int(n), nil
	}
	var err error
	if p.width, err = digits(math.MaxInt, "width"); err != nil {
		return p, err
	}
	if i < len(spec) && spec[i] == '.' {
		i++
		if p.prec, err = digits(math.MaxInt32, "precision"); err != nil {
			return p, err
		}
	}
	if i < len(spec) {
		return p, fmt.Errorf("unsupported format character %q", spec[i])
	}
	return p, nil
}

// printfConv makes one conversion of verb with spec of v, charged to st;
// with esc (a markup string's %), what %s, %r and %a make of a value that
// is not markup is HTML-escaped before it is padded.
func printfConv(st *state, spec string, verb byte, v Value, esc bool) (string, error) {
	p, err := parsePrintfSpec(spec)
	if err != nil {
		return "", err
	}
	charged := 0
	var sign, prefix, body string
	numeric := true
	switch verb {
	case 's', 'r', 'a':
		numeric = false
		switch {
		case verb == 's' && esc && v.isMarkup():
			body = v.s
		case verb == 's':
			body, err = str1(v)
		default:
			body, err = reprString(v)
		}
		if err != nil {
			return "", err
		}
		if esc && !(verb == 's' && v.isMarkup()) {
			body = htmlEscape(body)
		}
		if p.prec >= 0 && p.prec < len(body) && runeCount(body) > p.prec {
			body = string([]rune(body)[:p.prec])
		}
	case 'c':
		numeric = false
		switch {
		case (v.k == Int || v.k == Bool) && v.n >= 0 && v.n <= utf8.MaxRune:
			body = string(rune(v.n))
		case v.k == Int:
			return "", fmt.Errorf("%%c arg not in range(0x110000)")
		case v.k == String && runeCount(v.s) == 1:
			body = v.s
		default:
			return "", fmt.Errorf("%%c requires an int or a single character")
		}
	case 'd', 'i', 'u', 'x', 'X', 'o':
		if p.prec > 0 {
			if err := st.charge(p.prec); err != nil {
				return "", err
			}
			charged = p.prec
		}
		if sign, prefix, body, err = printfInt(p, verb, v); err != nil {
			return "", err
		}
	case 'f', 'F', 'e', 'E', 'g', 'G':
		if !v.isNumber() {
			return "", fmt.Errorf("%%%c format: a real number is required, not %s", verb, typeName(v))
		}
		if p.prec < 0 {
			p.prec = 6
		}
		if err := st.charge(p.prec); err != nil {
			return "", err
		}
		charged = p.prec
		sign, body = printfFloat(p, verb, toFloat(v))
	default:
		return "", fmt.Errorf("unsupported format character %q", verb)
	}
	if !numeric {
		sign, p.zero = "", false
	} else if sign == "" && p.plus {
		sign = "+"
	} else if sign == "" && p.space {
		sign = " "
	}
	n := runeCount(body) + len(sign) + len(prefix)
	pad := max(p.width-n, 0)
	size := len(body) + len(sign) + len(prefix) + pad
	if size > charged {
		if err := st.charge(size - charged); err != nil {
			return "", err
		}
	}
	switch {
	case pad == 0:
		return sign + prefix + body, nil
	case p.left:
		return sign + prefix + body + strings.Repeat(" ", pad), nil
	case p.zero:
		return sign + prefix + strings.Repeat("0", pad) + body, nil
	}
	return strings.Repeat(" ", pad) + sign + prefix + body, nil
}

// printfInt is an integer conversion: the sign, the base's prefix (with
// #) and the digits, at least the precision's many.
func printfInt(p printfSpec, verb byte, v Value) (sign, prefix, digits string, err error) {
	var n big.Int
	switch {
	case v.k == BigInt:
		n.Set(toBig(v))
	case verb != 'd' && verb != 'i' && verb != 'u' && v.k != Int && v.k != Bool:
		return "", "", "", fmt.Errorf("%%%c format: an integer is required, not %s", verb, typeName(v))
	case !v.isNumber():
		return "", "", "", fmt.Errorf("%%%c format: a real number is required, not %s", verb, typeName(v))
	case v.k == Float:
		f := v.float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "", "", "", fmt.Errorf("cannot convert float %v to integer", f)
		}
		big.NewFloat(math.Trunc(f)).Int(&n) // as int(f), exactly
	default:
		n.SetInt64(v.n)
	}
	base := 10
	switch verb {
	case 'x', 'X':
		base = 16
	case 'o':
		base = 8
	}
	if n.Sign() < 0 {
		sign = "-"
		n.Neg(&n)
	}
	digits = n.Text(base)
	if verb == 'X' {
		digits = strings.ToUpper(digits)
	}
	if p.alt && base != 10 {
		prefix = "0" + string(verb)
	}
	if p.prec > len(digits) {
		digits = strings.Repeat("0", p.prec-len(digits)) + digits
	}
	return sign, prefix, digits, nil
}

// printfFloat is a float conversion's sign and text, as CPython writes it
// ("inf" and "nan" included; %g by its rule: %e's exponent X decides
// between %f with p-1-X decimals and %e, trailing zeros dropped unless #).
func printfFloat(p printfSpec, verb byte, f float64) (sign, body string) {
	if math.Signbit(f) && !math.IsNaN(f) {
		sign, f = "-", -f
	}
	upper := verb == 'F' || verb == 'E' || verb == 'G'
	switch {
	case math.IsInf(f, 0):
		body = "inf"
	case math.IsNaN(f):
		body = "nan"
	case verb == 'f' || verb == 'F':
		body = strconv.FormatFloat(f, 'f', p.prec, 64)
		if p.alt && p.prec == 0 {
			body += "."
		}
	case verb == 'e' || verb == 'E':
		body = strconv.FormatFloat(f, 'e', p.prec, 64)
		if p.alt && p.prec == 0 {
			body = strings.Replace(body, "e", ".e", 1)
		}
	default:
		prec := max(p.prec, 1)
		e := strconv.FormatFloat(f, 'e', prec-1, 64)
		x, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
		body = e
		exp := ""
		if x >= -4 && x < prec {
			body = strconv.FormatFloat(f, 'f', prec-1-x, 64)
		} else {
			i := strings.IndexByte(e, 'e')
			body, exp = e[:i], e[i:]
		}
		if !p.alt && strings.Contains(body, ".") {
			body = strings.TrimRight(strings.TrimRight(body, "0"), ".")
		} else if p.alt && !strings.Contains(body, ".") {
			body += "."
		}
		body += exp
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return sign, body
}
