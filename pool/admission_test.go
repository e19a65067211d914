package pool

import (
	"context"
	"errors"
	"testing"
	"time"

	sidecarpkg "github.com/glimpse/glimpse/sidecar"
)

// Three orchestrators' pools share one sidecar that admits four pages. Each
// pool would hold four leases on it by its own limit; the sidecar's limit
// holds for them together, and a refused page is a full sidecar, waited
// for, never a broken one.
func TestThreePoolsOnOneSidecarStayWithinItsPageLimit(t *testing.T) {
	requireChromium(t)
	const limit = 4
	ls := startSidecar(t, func(c *sidecarpkg.RunConfig) { c.Sidecar.MaxPages = limit })
	pools := make([]*Pool, 3)
	for i := range pools {
		pools[i] = newTestPool(t, Config{Sidecars: ls.addr, PerSidecar: 4, QueueSize: 8, Warm: -1})
	}
	admitted := func() int { return ls.srv.Sidecar().Health().AdmittedPages }

	var held []*Lease
	for _, p := range pools[:2] {
		for range 2 {
			held = append(held, mustLease(t, p, 20*time.Second))
		}
	}
	if n := admitted(); n != limit {
		t.Fatalf("the sidecar admitted %d pages for four leases, want %d", n, limit)
	}

	t.Run("a lease past the limit waits instead of opening a fifth page", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := pools[2].Lease(ctx)
		if !errors.Is(err, ErrNoSidecar) {
			t.Fatalf("the third pool's lease ended with %v after %s; want it to wait for the full sidecar until its deadline (ErrNoSidecar)", err, time.Since(start))
		}
		if _, contexts := ls.browserCounts(t); contexts != limit {
			t.Errorf("the browser holds %d contexts, want the %d admitted", contexts, limit)
		}
		if h := ls.srv.Sidecar().Health(); h.PagesRefused == 0 || h.MaxPages != limit {
			t.Errorf("the sidecar reports %d pages refused with a limit of %d, want refusals and %d", h.PagesRefused, h.MaxPages, limit)
		}
		if s, _ := stateOf(pools[2], ls.addr); s.State != "healthy" {
			t.Errorf("the third pool sees the full sidecar as %q; busy is not broken", s.State)
		}
	})

	t.Run("a page closed by one orchestrator lets another open one", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		waiting := leaseIn(ctx, pools[2])
		time.Sleep(300 * time.Millisecond)
		held[0].Release()
		held = held[1:]
		select {
		case r := <-waiting:
			if r.err != nil {
				t.Fatalf("the waiting lease failed: %v", r.err)
			}
			if err := ping(ctx, r.l); err != nil {
				t.Errorf("the lease does not work: %v", err)
			}
			held = append(held, r.l)
		case <-time.After(5 * time.Second):
			t.Fatal("the third pool got no lease within 5s of a page closing")
		}
		if n := admitted(); n != limit {
			t.Errorf("the sidecar admits %d pages, want %d", n, limit)
		}
	})

	for _, l := range held {
		l.Release()
	}
	waitFor(t, 10*time.Second, "every page to be given back", func() bool { return admitted() == 0 })
}
