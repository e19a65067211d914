package testtool

import "testing"

// WithoutRace skips tb when the race detector is on. It is for tests whose
// work is one goroutine's computation over much input (scoring the
// development pages, a hostile document of a million nodes): the detector
// has nothing to find there and makes them six times slower. `make test`
// runs them in a second pass without it; TestEveryTestWithoutRaceIsRun
// holds that list against the tests that call this.
func WithoutRace(tb testing.TB) {
	tb.Helper()
	if raceEnabled {
		tb.Skip("one goroutine's computation: `make test` runs it again without -race, where it is six times faster")
	}
}
