package render

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/cdp/cdptest"
	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/pool"
	"github.com/glimpse/glimpse/sidecar/guard"
)

// TestRendersLeaseTheirPagesFromThePool runs the production path of a
// lease: a Renderer built on a pool of one sidecar, played by a scripted
// browser with a health endpoint, so the pool's leases reach the render
// through the same seam the tests' own do.
func TestRendersLeaseTheirPagesFromThePool(t *testing.T) {
	t.Parallel()
	b := newScripted(t, served{})
	b.srv.HandleHTTP("/healthz", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	}))
	b.handle("Target.createBrowserContext", cdptest.Result(`{"browserContextId":"C1"}`))
	b.handle("Target.createTarget", cdptest.Result(`{"targetId":"T1"}`))
	p, err := pool.New(pool.Config{Sidecars: b.srv.Addr(), PerSidecar: 1, Warm: -1, HealthInterval: 50 * time.Millisecond,
		Prepare: PreparePage, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), renderLimit)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.WaitReady(ctx); err != nil {
		t.Fatalf("the pool did not find the scripted sidecar healthy: %v", err)
	}
	r := New(Config{Pool: p, Policy: guard.NewPolicy(nil), Resolver: testNames,
		Metrics: metrics.NewOrchestrator(prometheus.NewRegistry()), Logger: slog.New(slog.DiscardHandler)})
	got := render(t, r, "url="+startURL+"&prerender=true", renderLimit)
	if got.err != nil {
		t.Fatalf("the render failed: %v", got.err)
	}
	if got.page.Doc == nil || got.page.Response.StatusCode != 200 {
		t.Errorf("the page read through the pool is %+v", got.page)
	}
	for _, m := range []string{"Target.createBrowserContext", "Target.createTarget", "Page.enable", "Page.navigate"} {
		if len(b.sent(m)) != 1 {
			t.Errorf("the sidecar's browser was sent %s %d times; want once", m, len(b.sent(m)))
		}
	}
	// The page is driven over a connection of its own, not the browser's.
	peers := b.srv.Peers()
	if len(peers) != 2 || len(peers[0].Sent("Page.navigate")) != 0 || len(peers[1].Sent("Page.navigate")) != 1 ||
		len(peers[1].Sent("Target.createTarget")) != 0 {
		t.Errorf("the lease used %d connections; want the browser's for its context and target, and the page's own for the render", len(peers))
	}
	// The browser context is disposed after the render, in the background.
	deadline := time.Now().Add(renderLimit)
	for len(b.sent("Target.disposeBrowserContext")) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if d := b.sent("Target.disposeBrowserContext"); len(d) != 1 || string(d[0].Params) != `{"browserContextId":"C1"}` {
		t.Errorf("the page's context was disposed with %v; want once", d)
	}
}
