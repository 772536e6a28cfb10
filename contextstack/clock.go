package contextstack

import "time"

// Clock tells the time to whatever in this package stamps it (a derived
// Request's Time). Replace it in tests to make stamps reproducible.
type Clock interface {
	Now() time.Time
}

// SystemClock is the default clock: the current time, in UTC.
var SystemClock Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now().UTC() }

// FixedClock returns a clock that always tells t, in UTC.
func FixedClock(t time.Time) Clock { return fixedClock(t.UTC()) }

type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// ClockFunc adapts a function to a Clock, e.g. one that advances a step on
// every call.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }
