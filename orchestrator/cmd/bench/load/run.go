package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Job performs request i of a run and returns the latency it measured: the
// job decides where the clock stops (a raw DevTools visit stops it when the
// result exists, before its teardown). A non-nil error counts as a failed
// request, except ErrAborted.
type Job func(ctx context.Context, i int) (time.Duration, error)

// ErrAborted is what a job returns (wrapped or not) when the run's own
// context cut its request short: the request neither failed nor
// succeeded, and counts in neither the failures nor the latencies.
var ErrAborted = errors.New("the request was cut short by the end of the run")

// Plan bounds a run: it ends after Requests jobs (0: no count limit) or
// after Duration (0: no time limit), whichever comes first. At least one
// bound must be set.
type Plan struct {
	Concurrency int
	Requests    int
	Duration    time.Duration
}

// Result is what a run measured.
type Result struct {
	Requests  int
	Failures  int
	Aborted   int     // cut short by the run's context; not in Requests
	Errors    []error // the first few failures, for the report
	Elapsed   time.Duration
	Latencies []time.Duration // of every request, failed ones included
}

// maxErrors is how many failures a Result keeps verbatim.
const maxErrors = 5

// Run starts plan.Concurrency workers that take request numbers 0, 1, 2, …
// in turn until the plan is spent or ctx ends; a request already started
// runs to its end.
func Run(ctx context.Context, plan Plan, job Job) (Result, error) {
	if plan.Concurrency < 1 {
		return Result{}, fmt.Errorf("a run needs at least one worker, not %d", plan.Concurrency)
	}
	if plan.Requests <= 0 && plan.Duration <= 0 {
		return Result{}, fmt.Errorf("a run needs a number of requests or a duration, or it never ends")
	}
	var (
		next    atomic.Int64
		mu      sync.Mutex
		res     Result
		wg      sync.WaitGroup
		stopped = ctx.Done()
	)
	var deadline <-chan time.Time
	if plan.Duration > 0 {
		t := time.NewTimer(plan.Duration)
		defer t.Stop()
		deadline = t.C
	}
	var timeUp atomic.Bool
	go func() {
		select {
		case <-deadline:
			timeUp.Store(true)
		case <-stopped:
		}
	}()
	start := time.Now()
	for range plan.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && !timeUp.Load() {
				i := int(next.Add(1) - 1)
				if plan.Requests > 0 && i >= plan.Requests {
					return
				}
				d, err := job(ctx, i)
				if err != nil && !errors.Is(err, ErrAborted) {
					err = fmt.Errorf("request %d: %w", i, err)
				}
				mu.Lock()
				res.Add(d, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, nil
}

// Add records one request made outside Run, by the same rules: an
// aborted request is only counted as such. The caller adds its time to
// Elapsed.
func (r *Result) Add(latency time.Duration, err error) {
	if errors.Is(err, ErrAborted) {
		r.Aborted++
		return
	}
	r.Requests++
	r.Latencies = append(r.Latencies, latency)
	if err != nil {
		r.Failures++
		if len(r.Errors) < maxErrors {
			r.Errors = append(r.Errors, err)
		}
	}
}

// Timed runs fn and returns how long it took, for jobs whose clock covers
// the whole call.
func Timed(fn func() error) (time.Duration, error) {
	start := time.Now()
	err := fn()
	return time.Since(start), err
}

// Merge adds runs of the same kind together, as if one run: requests and
// time add up, latencies pool.
func Merge(rs ...Result) Result {
	var m Result
	for _, r := range rs {
		m.Requests += r.Requests
		m.Failures += r.Failures
		m.Aborted += r.Aborted
		m.Elapsed += r.Elapsed
		m.Latencies = append(m.Latencies, r.Latencies...)
		for _, e := range r.Errors {
			if len(m.Errors) < maxErrors {
				m.Errors = append(m.Errors, e)
			}
		}
	}
	return m
}

// Summary is the row a report prints: throughput and latency percentiles.
type Summary struct {
	Requests      int
	Failures      int
	Elapsed       time.Duration
	RPS           float64
	Mean          time.Duration
	P50, P95, P99 time.Duration
}

// Summary computes throughput and nearest-rank percentiles.
func (r Result) Summary() Summary {
	s := Summary{Requests: r.Requests, Failures: r.Failures, Elapsed: r.Elapsed}
	if r.Elapsed > 0 {
		s.RPS = float64(r.Requests) / r.Elapsed.Seconds()
	}
	sorted := slices.Clone(r.Latencies)
	slices.Sort(sorted)
	var total time.Duration
	for _, d := range sorted {
		total += d
	}
	if len(sorted) > 0 {
		s.Mean = total / time.Duration(len(sorted))
	}
	s.P50 = Quantile(sorted, 0.50)
	s.P95 = Quantile(sorted, 0.95)
	s.P99 = Quantile(sorted, 0.99)
	return s
}

// Quantile is the nearest-rank q-quantile of sorted latencies (0 when
// there are none).
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	rank = max(0, min(rank, len(sorted)-1))
	return sorted[rank]
}
