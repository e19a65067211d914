package load

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name         string
		plan         Plan
		job          Job
		wantRequests int // -1: at least one, count depends on timing
		wantFailures int
		wantAborted  int
	}{
		{
			name:         "a count-bound run makes exactly that many requests",
			plan:         Plan{Concurrency: 3, Requests: 10},
			job:          func(context.Context, int) (time.Duration, error) { return time.Millisecond, nil },
			wantRequests: 10,
		},
		{
			name:         "failed requests are counted and the run goes on",
			plan:         Plan{Concurrency: 2, Requests: 9},
			job:          failEvery(3),
			wantRequests: 9,
			wantFailures: 3,
		},
		{
			name: "requests the run's end cut short are neither failures nor latencies",
			plan: Plan{Concurrency: 2, Requests: 8},
			job: func(_ context.Context, i int) (time.Duration, error) {
				if i >= 6 {
					return 0, fmt.Errorf("visit: %w", ErrAborted)
				}
				return time.Millisecond, nil
			},
			wantRequests: 6,
			wantAborted:  2,
		},
		{
			name: "a time-bound run stops taking requests when its time is up",
			plan: Plan{Concurrency: 2, Duration: 50 * time.Millisecond},
			job: func(context.Context, int) (time.Duration, error) {
				time.Sleep(5 * time.Millisecond)
				return 5 * time.Millisecond, nil
			},
			wantRequests: -1,
		},
		{
			name: "the first bound reached ends the run",
			plan: Plan{Concurrency: 1, Requests: 1000, Duration: 30 * time.Millisecond},
			job: func(context.Context, int) (time.Duration, error) {
				time.Sleep(2 * time.Millisecond)
				return 2 * time.Millisecond, nil
			},
			wantRequests: -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, err := Run(context.Background(), tt.plan, tt.job)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantRequests >= 0 && res.Requests != tt.wantRequests {
				t.Errorf("requests = %d, want %d", res.Requests, tt.wantRequests)
			}
			if tt.wantRequests < 0 {
				if res.Requests < 1 || (tt.plan.Requests > 0 && res.Requests >= tt.plan.Requests) {
					t.Errorf("requests = %d, want between 1 and %d", res.Requests, tt.plan.Requests)
				}
				if took := time.Since(start); took > tt.plan.Duration+2*time.Second {
					t.Errorf("the run took %s, far past its %s", took, tt.plan.Duration)
				}
			}
			if res.Aborted != tt.wantAborted {
				t.Errorf("aborted = %d, want %d", res.Aborted, tt.wantAborted)
			}
			if res.Failures != tt.wantFailures {
				t.Errorf("failures = %d, want %d", res.Failures, tt.wantFailures)
			}
			if len(res.Latencies) != res.Requests {
				t.Errorf("%d latencies for %d requests", len(res.Latencies), res.Requests)
			}
			if len(res.Errors) != min(res.Failures, maxErrors) {
				t.Errorf("kept %d errors of %d failures", len(res.Errors), res.Failures)
			}
		})
	}
}

func failEvery(n int) Job {
	return func(_ context.Context, i int) (time.Duration, error) {
		if i%n == 0 {
			return time.Millisecond, errors.New("refused")
		}
		return time.Millisecond, nil
	}
}

func TestRunRefusesPlansThatCannotWork(t *testing.T) {
	for _, tt := range []struct {
		name string
		plan Plan
		want string
	}{
		{"a run without workers is refused", Plan{Requests: 1}, "at least one worker"},
		{"a run without an end is refused", Plan{Concurrency: 1}, "never ends"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.plan, failEvery(1))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestRunStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int64
	done := make(chan Result)
	go func() {
		res, _ := Run(ctx, Plan{Concurrency: 2, Requests: 1 << 30}, func(ctx context.Context, _ int) (time.Duration, error) {
			started.Add(1)
			time.Sleep(time.Millisecond)
			return time.Millisecond, nil
		})
		done <- res
	}()
	for started.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case res := <-done:
		if res.Requests < 4 {
			t.Errorf("requests = %d, want the ones started before the cancel", res.Requests)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run went on after its context ended")
	}
}

func TestSummary(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var lat []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		lat = append(lat, ms(i))
	}
	tests := []struct {
		name string
		res  Result
		want Summary
	}{
		{
			name: "percentiles are nearest-rank over every latency",
			res:  Result{Requests: 100, Elapsed: 2 * time.Second, Latencies: lat},
			want: Summary{Requests: 100, Elapsed: 2 * time.Second, RPS: 50, Mean: 50500 * time.Microsecond, P50: ms(50), P95: ms(95), P99: ms(99)},
		},
		{
			name: "one request is every percentile",
			res:  Result{Requests: 1, Elapsed: time.Second, Latencies: []time.Duration{ms(7)}},
			want: Summary{Requests: 1, Elapsed: time.Second, RPS: 1, Mean: ms(7), P50: ms(7), P95: ms(7), P99: ms(7)},
		},
		{
			name: "an empty run has no rate and no percentiles",
			res:  Result{},
			want: Summary{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.res.Summary(); got != tt.want {
				t.Errorf("Summary() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMergeAddsRunsUp(t *testing.T) {
	a := Result{Requests: 2, Failures: 1, Errors: []error{errors.New("a")}, Elapsed: time.Second, Latencies: []time.Duration{1, 2}}
	b := Result{Requests: 3, Elapsed: 2 * time.Second, Latencies: []time.Duration{3, 4, 5}}
	m := Merge(a, b)
	if m.Requests != 5 || m.Failures != 1 || m.Elapsed != 3*time.Second || len(m.Latencies) != 5 || len(m.Errors) != 1 {
		t.Errorf("Merge = %+v", m)
	}
	if s := m.Summary(); s.RPS < 1.66 || s.RPS > 1.67 {
		t.Errorf("merged rate = %v, want 5 requests over 3 s", s.RPS)
	}
}

func TestParseWrk(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    Summary
		wantErr string
	}{
		{
			name: "the summary line is read among wrk's own output",
			out: "Running 10s test @ http://127.0.0.1:3000/\n  2 threads and 64 connections\n" +
				"GLIMPSE_WRK 120000 10000000 0 0 0 0 0 4000 9000 12000 4500\n",
			want: Summary{Requests: 120000, Elapsed: 10 * time.Second, RPS: 12000,
				P50: 4 * time.Millisecond, P95: 9 * time.Millisecond, P99: 12 * time.Millisecond, Mean: 4500 * time.Microsecond},
		},
		{
			name: "every error class counts as a failure",
			out:  "GLIMPSE_WRK 100 1000000 1 2 3 4 5 10 20 30 15\n",
			want: Summary{Requests: 100, Elapsed: time.Second, RPS: 100, Failures: 15,
				P50: 10 * time.Microsecond, P95: 20 * time.Microsecond, P99: 30 * time.Microsecond, Mean: 15 * time.Microsecond},
		},
		{
			name:    "output without the summary line is an error that shows it",
			out:     "unable to connect to 127.0.0.1:1 Connection refused\n",
			wantErr: "Connection refused",
		},
		{
			name:    "a field that is not a number is an error",
			out:     "GLIMPSE_WRK 100 x 0 0 0 0 0 1 2 3 4\n",
			wantErr: "not a number",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseWrk(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ParseWrk = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWrkWithoutWrkSaysHowToInstallIt(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Wrk(context.Background(), WrkPlan{URL: "http://127.0.0.1:1/", Duration: time.Second})
	if !errors.Is(err, ErrNoWrk) || !strings.Contains(err.Error(), "deps.sh bench") {
		t.Fatalf("err = %v, want ErrNoWrk naming the install command", err)
	}
}

func TestWrkScriptPrintsWhatParseWrkReads(t *testing.T) {
	// The script's format string must have one conversion per field that
	// ParseWrk reads; a mismatch would make every wrk run fail to parse.
	if n := strings.Count(wrkScript, "%d") + strings.Count(wrkScript, "%.0f"); n != 11 {
		t.Fatalf("the wrk script prints %d fields, ParseWrk reads 11", n)
	}
}

func TestAddRecordsOneRequestLikeRun(t *testing.T) {
	var r Result
	r.Add(3*time.Millisecond, nil)
	r.Add(5*time.Millisecond, errors.New("HTTP 504"))
	r.Add(0, fmt.Errorf("late: %w", ErrAborted))
	if r.Requests != 2 || r.Failures != 1 || r.Aborted != 1 || len(r.Latencies) != 2 || len(r.Errors) != 1 {
		t.Errorf("after three requests: %+v", r)
	}
}
