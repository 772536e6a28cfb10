package engine

import (
	"fmt"
	"strings"
	"time"
)

// The global functions of Jinja's default environment, and the two that
// Hugging Face chat templates call (raise_exception, strftime_now).

// MaxRange bounds the items of one range(): a template cannot allocate
// without limit.
const MaxRange = 100_000

func defineGlobals(globals map[string]*builtinDef) {
	define(globals,
		&builtinDef{name: "range", out: outInts, params: []param{req("start"), opt("stop", none), opt("step", intValue(1))}, fn: globalRange},
		&builtinDef{name: "dict", anyKw: true, rest: true, fn: globalDict},
		&builtinDef{name: "namespace", anyKw: true, rest: true, fn: globalNamespace},
		&builtinDef{name: "cycler", rest: true, fn: func(st *state, _ Value, _ []Value, ex *extra) (Value, error) {
			var items []Value
			if ex != nil {
				items = append(items, ex.rest...)
			}
			if len(items) == 0 {
				return Value{}, fmt.Errorf("cycler needs at least one value")
			}
			return objectValue(&cycler{items: items}), nil
		}},
		&builtinDef{name: "joiner", params: []param{opt("sep", strValue(", "))}, fn: func(st *state, _ Value, a []Value, _ *extra) (Value, error) {
			sep, err := str1(a[0])
			return objectValue(&joiner{sep: sep}), err
		}},
		refuse("lipsum", "it writes random text, which would make a prompt non-reproducible"),
		&builtinDef{name: "raise_exception", params: []param{req("message")}, fn: func(st *state, _ Value, a []Value, _ *extra) (Value, error) {
			msg, err := str1(a[0])
			if err != nil {
				return Value{}, err
			}
			return Value{}, &raised{msg: msg}
		}},
		&builtinDef{name: "strftime_now", params: []param{req("format")}, fn: func(st *state, _ Value, a []Value, _ *extra) (Value, error) {
			f, err := argStr("strftime_now", "format", a[0])
			if err != nil {
				return Value{}, err
			}
			// Charged before it is built: a directive writes at most 26
			// bytes ("%c" 24, "%F" a long year's digits and 6) or the
			// zone's name, and takes at least two of the format's.
			t := st.lim.Now()
			zone, _ := t.Zone()
			if err := st.charge(len(f) + len(f)/2*max(26, len(zone))); err != nil {
				return Value{}, err
			}
			s, err := strftime(t, f)
			return strValue(s), err
		}},
	)
}

func globalRange(st *state, _ Value, a []Value, _ *extra) (Value, error) {
	for _, v := range a {
		if v.k != Int && v.k != Bool && v.k != None {
			return Value{}, fmt.Errorf("range() needs integers, not %s", typeName(v))
		}
	}
	start, stop, step := int64(0), a[0].n, a[2].n
	if a[1].k != None { // range(start, stop[, step])
		start, stop = a[0].n, a[1].n
	}
	if step == 0 {
		return Value{}, fmt.Errorf("range() step must not be zero")
	}
	var n int64
	switch {
	case step > 0 && stop > start:
		n = (stop - start + step - 1) / step
	case step < 0 && stop < start:
		n = (start - stop - step - 1) / -step
	}
	if n > MaxRange {
		return Value{}, fmt.Errorf("range() is limited to %d items (asked for %d)", MaxRange, n)
	}
	if err := st.chargeItems(int(n)); err != nil {
		return Value{}, err
	}
	out := make([]Value, n)
	for i := range out {
		out[i] = intValue(start + int64(i)*step)
	}
	return lazySeq("range", listValue(out), nil)
}

func globalDict(st *state, _ Value, _ []Value, ex *extra) (Value, error) {
	d := NewOrderedDict()
	if ex != nil {
		if len(ex.rest) > 1 {
			return Value{}, fmt.Errorf("dict expected at most 1 argument, got %d", len(ex.rest))
		}
		if len(ex.rest) == 1 {
			if err := mergeInto(d, ex.rest[0]); err != nil {
				return Value{}, err
			}
		}
		if ex.kw != nil {
			for i, k := range ex.kw.keys {
				d.Set(k, ex.kw.vals[i])
			}
		}
	}
	return DictValue(d), nil
}

// mergeInto adds a dict's items, or a list of pairs, to d.
func mergeInto(d *OrderedDict, v Value) error {
	switch v.k {
	case Dict:
		for _, k := range dictKeys(v) {
			x, _ := dictGet(v, k)
			d.Set(k, x)
		}
		return nil
	case List, Tuple:
		for i := 0; i < seqLen(v); i++ {
			p := seqAt(v, i)
			if !p.isSeq() || seqLen(p) != 2 {
				return fmt.Errorf("dict() takes a dict or a list of pairs")
			}
			if !d.Set(seqAt(p, 0), seqAt(p, 1)) {
				return fmt.Errorf("unhashable dict key")
			}
		}
		return nil
	}
	return fmt.Errorf("dict() takes a dict or a list of pairs, not %s", typeName(v))
}

func globalNamespace(st *state, in Value, a []Value, ex *extra) (Value, error) {
	d, err := globalDict(st, in, a, ex)
	if err != nil {
		return Value{}, err
	}
	return objectValue(&namespace{attrs: d.ref.(*OrderedDict)}), nil
}

// strftime formats t as Python's time.strftime does, for the directives
// chat templates use.
func strftime(t time.Time, f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' || i+1 >= len(f) {
			b.WriteByte(c)
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case '-':
			if i+1 < len(f) {
				i++
				switch f[i] {
				case 'd':
					fmt.Fprintf(&b, "%d", t.Day())
				case 'm':
					fmt.Fprintf(&b, "%d", int(t.Month()))
				case 'H':
					fmt.Fprintf(&b, "%d", t.Hour())
				case 'I':
					fmt.Fprintf(&b, "%d", (t.Hour()+11)%12+1)
				default:
					return "", fmt.Errorf("strftime_now: unsupported directive %%-%c", f[i])
				}
			}
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'Z':
			name, _ := t.Zone()
			b.WriteString(name)
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'c':
			b.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'x':
			b.WriteString(t.Format("01/02/06"))
		case 'X':
			b.WriteString(t.Format("15:04:05"))
		case '%':
			b.WriteByte('%')
		default:
			return "", fmt.Errorf("strftime_now: unsupported directive %%%c", f[i])
		}
	}
	return b.String(), nil
}
