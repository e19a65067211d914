package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/storage"
	"github.com/glimpse/glimpse/storage/miniotest"
)

func newTestCache(maxBytes int64, shared storage.Store) (*Cache, *metrics.Orchestrator) {
	m := metrics.NewOrchestrator(prometheus.NewRegistry())
	return New(maxBytes, shared, slog.New(slog.DiscardHandler), m), m
}

// cacheEntry is an answer as a render would leave it, created at created
// and living for ttl.
func cacheEntry(key, body string, created time.Time, ttl time.Duration) *Entry {
	return &Entry{
		Key: key, Body: []byte(body), ETag: `"` + key + `"`,
		Created: created, Expires: created.Add(ttl), TTL: ttl, FetchMode: "prerender",
		Embeds: map[string]string{"pdf.url": "files/" + key + ".pdf"},
	}
}

func TestCacheKeepsRecentEntriesWithinItsBytes(t *testing.T) {
	now := time.Now()
	sized := func(key string) *Entry { return cacheEntry(key, strings.Repeat("x", 700), now, time.Hour) }
	one := sized("a").size()

	t.Run("the least recently used entry leaves first when the bytes run out", func(t *testing.T) {
		c, _ := newTestCache(4*one, nil)
		for _, k := range []string{"a", "b", "c", "d"} {
			c.Put(sized(k))
		}
		if c.Get(context.Background(), "a", now) == nil { // a becomes the most recent
			t.Fatal("a is missing although four entries fit")
		}
		c.Put(sized("e"))
		var kept []string
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			if c.Get(context.Background(), k, now) != nil {
				kept = append(kept, k)
			}
		}
		if want := []string{"a", "c", "d", "e"}; !slices.Equal(kept, want) {
			t.Errorf("kept %v, want %v: b was the least recently used", kept, want)
		}
		if s := c.Snapshot(); s.Entries != 4 || s.Bytes != 4*one || s.MaxBytes != 4*one {
			t.Errorf("snapshot %+v, want 4 entries of %d bytes in all", s, 4*one)
		}
	})

	t.Run("an entry larger than a quarter of the cache is not kept in memory", func(t *testing.T) {
		c, _ := newTestCache(4*one, nil)
		c.Put(sized("a"))
		big := cacheEntry("big", strings.Repeat("x", int(one)), now, time.Hour)
		c.Put(big)
		if c.Get(context.Background(), "big", now) != nil {
			t.Error("an entry larger than a quarter of the cache was kept")
		}
		if c.Get(context.Background(), "a", now) == nil {
			t.Error("storing a huge entry pushed out a small one")
		}
	})

	t.Run("replacing an entry counts its bytes once", func(t *testing.T) {
		c, _ := newTestCache(4*one, nil)
		c.Put(sized("a"))
		c.Put(sized("a"))
		c.Put(sized("a"))
		if s := c.Snapshot(); s.Entries != 1 || s.Bytes != one {
			t.Errorf("snapshot %+v after replacing one entry twice, want 1 entry of %d bytes", s, one)
		}
	})

	t.Run("an expired entry is not served and leaves memory", func(t *testing.T) {
		c, _ := newTestCache(4*one, nil)
		c.Put(cacheEntry("a", "{}", now, time.Minute))
		if c.Get(context.Background(), "a", now.Add(59*time.Second)) == nil {
			t.Fatal("the entry is missing before its ttl ended")
		}
		if c.Get(context.Background(), "a", now.Add(time.Minute)) != nil {
			t.Error("the entry was served at the end of its ttl")
		}
		if s := c.Snapshot(); s.Entries != 0 || s.Bytes != 0 {
			t.Errorf("snapshot %+v, want the expired entry gone", s)
		}
	})
}

// sharedEntryStored waits until the background write of key has reached
// the store.
func sharedEntryStored(t testing.TB, s storage.Store, key string) storage.Object {
	t.Helper()
	var obj storage.Object
	pollUntil(t, 10*time.Second, "the cache entry never reached the shared store", func() bool {
		o, err := s.Stat(context.Background(), ObjectKey(key))
		obj = o
		return err == nil
	})
	return obj
}

func TestCacheSharesEntriesThroughTheStore(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) storage.Store
	}{
		{"a local directory", func(t *testing.T) storage.Store {
			l, err := storage.NewLocal(storage.LocalConfig{Dir: t.TempDir(), PublicBaseURL: "http://127.0.0.1:1/files/"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			return l
		}},
		{"MinIO", func(t *testing.T) storage.Store {
			if testing.Short() {
				t.Skip("needs a MinIO server; skipped with -short")
			}
			srv := miniotest.New(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s3, err := storage.NewS3(ctx, storage.S3Config{Endpoint: srv.Endpoint, Bucket: "cache-test",
				AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s3.Close() })
			return s3
		}},
	}
	for _, st := range stores {
		t.Run("in "+st.name, func(t *testing.T) {
			store := st.open(t)
			now := time.Now()
			ctx := context.Background()

			t.Run("an entry written by one replica is served by another", func(t *testing.T) {
				writer, _ := newTestCache(1<<20, store)
				e := cacheEntry("round-trip", `{"status":"success","data":{"title":"A"}}`+"\n", now, time.Hour)
				writer.Put(e)
				sharedEntryStored(t, store, e.Key)

				reader, _ := newTestCache(1<<20, store)
				got := reader.Get(ctx, e.Key, now)
				if got == nil {
					t.Fatal("the second replica found nothing in the shared store")
				}
				if !bytes.Equal(got.Body, e.Body) || got.ETag != e.ETag || got.FetchMode != e.FetchMode ||
					got.TTL != e.TTL || !got.Created.Equal(e.Created) || !got.Expires.Equal(e.Expires) ||
					got.Embeds["pdf.url"] != e.Embeds["pdf.url"] {
					t.Errorf("the entry changed on its way through the store:\n got %+v\nwant %+v", got, e)
				}
				if s := reader.Snapshot(); s.Entries != 1 {
					t.Errorf("the entry read from the store is not kept in memory: %+v", s)
				}
			})

			t.Run("an expired entry in the store is not served", func(t *testing.T) {
				writer, _ := newTestCache(1<<20, store)
				e := cacheEntry("expired", "{}", now.Add(-2*time.Minute), time.Minute)
				writer.Put(e)
				sharedEntryStored(t, store, e.Key)
				reader, _ := newTestCache(1<<20, store)
				if got := reader.Get(ctx, e.Key, now); got != nil {
					t.Errorf("an entry that expired a minute ago was served: %+v", got)
				}
			})

			t.Run("an entry too big for memory is still served from the store", func(t *testing.T) {
				writer, _ := newTestCache(4096, store)
				e := cacheEntry("big", strings.Repeat("y", 8000), now, time.Hour)
				writer.Put(e)
				sharedEntryStored(t, store, e.Key)
				if got := writer.Get(ctx, e.Key, now); got == nil || !bytes.Equal(got.Body, e.Body) {
					t.Error("an entry too big for memory was lost although the store holds it")
				}
			})

			broken := []struct {
				name, key, object string
			}{
				{"an unreadable object in the store is ignored", "garbage", "this is not JSON"},
				{"an object holding another key's entry is ignored", "mismatch",
					`{"key":"someone-else","body":"e30=","etag":"\"x\"","created":"2000-01-01T00:00:00Z","expires":"2999-01-01T00:00:00Z","ttl":3600000000000}`},
				{"an empty object in the store is ignored", "empty", ""},
			}
			for _, b := range broken {
				t.Run(b.name, func(t *testing.T) {
					if _, err := store.Put(ctx, ObjectKey(b.key), strings.NewReader(b.object), int64(len(b.object)), "application/json"); err != nil {
						t.Fatal(err)
					}
					c, _ := newTestCache(1<<20, store)
					if got := c.Get(ctx, b.key, now); got != nil {
						t.Errorf("served %+v", got)
					}
				})
			}

			t.Run("a key nobody stored is a miss without a storage error", func(t *testing.T) {
				c, m := newTestCache(1<<20, store)
				if got := c.Get(ctx, "never-stored", now); got != nil {
					t.Errorf("served %+v", got)
				}
				if n := counterValue(t, m.StorageErrors.WithLabelValues("get")); n != 0 {
					t.Errorf("a plain miss counted %v storage errors", n)
				}
			})
		})
	}
}

// flightWaiters is how many callers wait on key right now.
func flightWaiters(f *Flight, key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.calls[key]; ok {
		return c.waiters
	}
	return 0
}

type flightResult struct {
	e      *Entry
	shared bool
	err    error
}

func TestFlight(t *testing.T) {
	t.Run("identical calls at the same time share one render", func(t *testing.T) {
		f := NewFlight(isTimeout)
		var calls atomic.Int32
		gate := make(chan struct{})
		want := &Entry{Key: "k"}
		results := make(chan flightResult, 10)
		for range 10 {
			go func() {
				e, shared, err := f.Do(context.Background(), "k", 5*time.Second, func(context.Context) (*Entry, error) {
					calls.Add(1)
					<-gate
					return want, nil
				})
				results <- flightResult{e, shared, err}
			}()
		}
		pollUntil(t, 5*time.Second, "ten callers never joined the same call", func() bool { return flightWaiters(f, "k") == 10 })
		close(gate)
		leaders := 0
		for range 10 {
			r := <-results
			if r.err != nil || r.e != want {
				t.Errorf("a caller got %v, %v", r.e, r.err)
			}
			if !r.shared {
				leaders++
			}
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("the render ran %d times for ten identical calls", n)
		}
		if leaders != 1 {
			t.Errorf("%d callers report an unshared result, want exactly the first", leaders)
		}
	})

	t.Run("different keys render separately", func(t *testing.T) {
		f := NewFlight(isTimeout)
		var calls atomic.Int32
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for _, k := range []string{"a", "b", "c"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e, _, err := f.Do(context.Background(), k, 5*time.Second, func(context.Context) (*Entry, error) {
					calls.Add(1)
					<-gate
					return &Entry{Key: k}, nil
				})
				if err != nil || e.Key != k {
					t.Errorf("key %s got %v, %v", k, e, err)
				}
			}()
		}
		pollUntil(t, 5*time.Second, "three keys never rendered at once", func() bool { return calls.Load() == 3 })
		close(gate)
		wg.Wait()
	})

	t.Run("a caller that gives up does not stop the render for the others", func(t *testing.T) {
		f := NewFlight(isTimeout)
		gate := make(chan struct{})
		renderCtx := make(chan context.Context, 1)
		fn := func(ctx context.Context) (*Entry, error) {
			renderCtx <- ctx
			<-gate
			return &Entry{Key: "k"}, ctx.Err()
		}
		impatient, giveUp := context.WithCancel(context.Background())
		first := make(chan flightResult, 1)
		go func() { e, s, err := f.Do(impatient, "k", 5*time.Second, fn); first <- flightResult{e, s, err} }()
		rctx := <-renderCtx
		second := make(chan flightResult, 1)
		go func() {
			e, s, err := f.Do(context.Background(), "k", 5*time.Second, fn)
			second <- flightResult{e, s, err}
		}()
		pollUntil(t, 5*time.Second, "the second caller never joined", func() bool { return flightWaiters(f, "k") == 2 })

		giveUp()
		if r := <-first; !errors.Is(r.err, context.Canceled) {
			t.Errorf("the caller that gave up got %v, want context.Canceled", r.err)
		}
		select {
		case <-rctx.Done():
			t.Fatal("the render was cancelled although another caller still waits for it")
		case <-time.After(100 * time.Millisecond):
		}
		close(gate)
		r := <-second
		if r.err != nil || r.e == nil || !r.shared {
			t.Errorf("the remaining caller got %+v, want the shared entry", r)
		}
	})

	t.Run("the render stops when every caller has gone and a newcomer starts afresh", func(t *testing.T) {
		f := NewFlight(isTimeout)
		var calls atomic.Int32
		renderCtx := make(chan context.Context, 2)
		stopped := make(chan struct{}, 2)
		fn := func(ctx context.Context) (*Entry, error) {
			calls.Add(1)
			renderCtx <- ctx
			<-ctx.Done()
			stopped <- struct{}{}
			return nil, ctx.Err()
		}
		ctx1, cancel1 := context.WithCancel(context.Background())
		ctx2, cancel2 := context.WithCancel(context.Background())
		done := make(chan error, 2)
		go func() { _, _, err := f.Do(ctx1, "k", time.Minute, fn); done <- err }()
		rctx := <-renderCtx
		go func() { _, _, err := f.Do(ctx2, "k", time.Minute, fn); done <- err }()
		pollUntil(t, 5*time.Second, "the second caller never joined", func() bool { return flightWaiters(f, "k") == 2 })
		cancel1()
		cancel2()
		for range 2 {
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("a caller that gave up got %v", err)
			}
		}
		select {
		case <-rctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the render kept running after every caller had gone")
		}
		<-stopped

		ctx3, cancel3 := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel3()
		_, shared, _ := f.Do(ctx3, "k", time.Minute, fn)
		if shared || calls.Load() != 2 {
			t.Errorf("a newcomer joined the cancelled render (shared %t, %d calls)", shared, calls.Load())
		}
		<-stopped
	})

	t.Run("the render stops at its budget", func(t *testing.T) {
		f := NewFlight(isTimeout)
		start := time.Now()
		_, _, err := f.Do(context.Background(), "k", 50*time.Millisecond, func(ctx context.Context) (*Entry, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want the render's deadline", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("a 50ms budget took %s", d)
		}
	})

	t.Run("a waiter with a longer time-out than the first caller's still gets its answer", func(t *testing.T) {
		// The first caller allows 100ms, the page needs 300ms, the second
		// caller allows 5s. The second must not inherit the first's
		// deadline: identical requests wait "within their own time-outs".
		f := NewFlight(isTimeout)
		fn := func(ctx context.Context) (*Entry, error) {
			select {
			case <-time.After(300 * time.Millisecond):
				return &Entry{Key: "k"}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		shortCtx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		first := make(chan error, 1)
		go func() { _, _, err := f.Do(shortCtx, "k", 100*time.Millisecond, fn); first <- err }()
		pollUntil(t, 5*time.Second, "the first call never started", func() bool { return flightWaiters(f, "k") == 1 })
		longCtx, cancelLong := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancelLong()
		e, _, err := f.Do(longCtx, "k", 5*time.Second, fn)
		if err != nil || e == nil {
			t.Errorf("the caller that allowed 5s got %v after the first caller's 100ms budget ended; "+
				"it must get the page, which takes 300ms (flight.Do: extend the shared render's deadline to the latest waiter's, "+
				"or start a fresh render for a waiter whose own time is not up)", err)
		}
		if err := <-first; !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the first caller got %v, want its own deadline", err)
		}
	})

	t.Run("errors reach every waiting caller and are not kept", func(t *testing.T) {
		f := NewFlight(isTimeout)
		var calls atomic.Int32
		boom := errors.New("boom")
		gate := make(chan struct{})
		fn := func(context.Context) (*Entry, error) { calls.Add(1); <-gate; return nil, boom }
		errs := make(chan error, 2)
		for range 2 {
			go func() { _, _, err := f.Do(context.Background(), "k", time.Minute, fn); errs <- err }()
		}
		pollUntil(t, 5*time.Second, "two callers never joined", func() bool { return flightWaiters(f, "k") == 2 })
		close(gate)
		for range 2 {
			if err := <-errs; !errors.Is(err, boom) {
				t.Errorf("got %v, want the render's error", err)
			}
		}
		if _, _, err := f.Do(context.Background(), "k", time.Minute, fn); !errors.Is(err, boom) || calls.Load() != 2 {
			t.Errorf("a later call did not render again after an error (%d renders, %v)", calls.Load(), err)
		}
	})
}

// TestFlightSurvivesAPanickingRender runs the panic in a child process: a
// panic in the render's goroutine is out of reach of Echo's recover
// middleware and would otherwise take the whole test binary down with it.
func TestFlightSurvivesAPanickingRender(t *testing.T) {
	if os.Getenv("GLIMPSE_TEST_FLIGHT_PANIC") == "1" {
		f := NewFlight(isTimeout)
		_, _, err := f.Do(context.Background(), "k", time.Second, func(context.Context) (*Entry, error) {
			var m map[string]int
			m["render bug"]++ // a nil map write, as a bug in the render code would make
			return nil, nil
		})
		if err == nil || !strings.Contains(err.Error(), "a render panicked: assignment to entry in nil map") {
			fmt.Printf("the caller got %v, want the panic as its error\n", err)
			os.Exit(3)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFlightSurvivesAPanickingRender$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GLIMPSE_TEST_FLIGHT_PANIC=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		t.Fatalf("a panic inside a render crashed the whole process instead of failing one request (%v); "+
			"Flight.Do must recover in the goroutine that runs fn and hand every waiter the panic as an error. Output began:\n%s",
			err, strings.Join(lines[:min(len(lines), 6)], "\n"))
	}
}

func counterValue(t testing.TB, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// pollUntil retries cond until it holds or the deadline passes.
func pollUntil(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// isTimeout is the service's test for a render that ran out of time, as
// far as this package can tell one.
func isTimeout(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

func TestCacheOutlivesAnUnreachableStore(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	srv := miniotest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s3, err := storage.NewS3(ctx, storage.S3Config{Endpoint: srv.Endpoint, Bucket: "outage",
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	c, m := newTestCache(1<<20, s3)
	now := time.Now()
	srv.Stop(t)

	start := time.Now()
	if got := c.Get(ctx, "anything", now); got != nil {
		t.Fatalf("served %+v from a store that is down", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a cache lookup took %s while the store was down; a miss must not hold a request that long", d)
	}
	if n := counterValue(t, m.StorageErrors.WithLabelValues("get")); n != 1 {
		t.Errorf("storage errors for get = %v, want 1", n)
	}

	start = time.Now()
	e := cacheEntry("while-down", "{}", now, time.Hour)
	c.Put(e)
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("Put took %s while the store was down; the answer must not wait for the store", d)
	}
	if got := c.Get(ctx, e.Key, now); got == nil {
		t.Error("the memory level lost the entry because the store was down")
	}
	pollUntil(t, 20*time.Second, "the failed shared write was never counted", func() bool {
		return counterValue(t, m.StorageErrors.WithLabelValues("put")) == 1
	})

	srv.Start(t)
	c.Put(cacheEntry("after", "{}", now, time.Hour))
	sharedEntryStored(t, s3, "after")
}

// A store that hangs holds a lookup for the store's own budget, not the
// request's, and after a few failures it is not asked at all until it has
// had time to recover; once it answers again it is used again.
func TestAHungStoreCostsALookupItsOwnBudgetOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	srv := miniotest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s3, err := storage.NewS3(ctx, storage.S3Config{Endpoint: srv.Endpoint, Bucket: "hung",
		AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s3.Close()
	writer, _ := newTestCache(1<<20, s3)
	now := time.Now()
	kept := cacheEntry("kept", "{}", now, time.Hour)
	writer.Put(kept)
	sharedEntryStored(t, s3, kept.Key)

	c, m := newTestCache(1<<20, s3)
	srv.Pause(t)
	// A request with the default 28 s of budget.
	rctx, rcancel := context.WithTimeout(context.Background(), 28*time.Second)
	defer rcancel()
	// Together the lookups take the store's budget for each it is asked,
	// and the rest nothing: nowhere near the request's 28 s, with room for
	// a machine busy enough to be late waking a timer.
	start := time.Now()
	for i := range sharedBreakAfter + 3 {
		if got := c.Get(rctx, fmt.Sprintf("miss-%d", i), now); got != nil {
			t.Fatalf("served %+v from a hung store", got)
		}
	}
	if d, most := time.Since(start), sharedBreakAfter*SharedReadBudget+2*time.Second; d > most {
		t.Errorf("%d lookups took %s while the store hung; %d of them at most %s each, the rest at once", sharedBreakAfter+3, d, sharedBreakAfter, SharedReadBudget)
	}
	if n := counterValue(t, m.StorageErrors.WithLabelValues("get")); n != sharedBreakAfter {
		t.Errorf("the hung store was asked and failed %v times, want %d before it is left alone", n, sharedBreakAfter)
	}
	if c.SharedFailing() == "" {
		t.Error("the cache does not report the store it keeps failing on")
	}

	srv.Resume(t)
	pollUntil(t, 3*sharedRetryAfter, "the store was not used again after it recovered", func() bool {
		return c.Get(rctx, kept.Key, now) != nil
	})
	if msg := c.SharedFailing(); msg != "" {
		t.Errorf("the store answers again but is still reported failing: %s", msg)
	}
}

// Callers that joined a render whose answer a shorter timeout cut short
// render again together: two renders for one short caller and three
// patient ones, not four.
func TestJoinersOfACutShortRenderShareOneMoreRender(t *testing.T) {
	f := NewFlight(isTimeout)
	var renders atomic.Int32
	gate := make(chan struct{})
	render := func(timeout time.Duration) func(context.Context) (*Entry, error) {
		return func(context.Context) (*Entry, error) {
			n := renders.Add(1)
			if n == 1 {
				<-gate
				return &Entry{Key: "k", CutShortAt: timeout}, nil // the page was still loading
			}
			// Held until every patient caller has joined it.
			again := "k\x00timeout=" + timeout.String()
			for deadline := time.Now().Add(5 * time.Second); flightWaiters(f, again) < 3 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
			return &Entry{Key: "k"}, nil
		}
	}
	short, patient := 2*time.Second, 28*time.Second
	results := make(chan flightResult, 4)
	go func() {
		e, s, err := f.Do(context.Background(), "k", short, render(short))
		results <- flightResult{e, s, err}
	}()
	pollUntil(t, 5*time.Second, "the first render never started", func() bool { return flightWaiters(f, "k") == 1 })
	for range 3 {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), patient)
			defer cancel()
			e, s, err := f.Do(ctx, "k", patient, render(patient))
			results <- flightResult{e, s, err}
		}()
	}
	pollUntil(t, 5*time.Second, "the patient callers never joined", func() bool { return flightWaiters(f, "k") == 4 })
	close(gate)
	for range 4 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.shared && r.e.CutShortAt != 0 {
			t.Errorf("a patient caller got the answer cut short at %s", r.e.CutShortAt)
		}
	}
	if n := renders.Load(); n != 2 {
		t.Errorf("%d renders for one short caller and three patient ones, want 2", n)
	}
}
