package answer

import (
	"context"
	"sync"
	"time"

	"github.com/glimpse/glimpse/orchestrator/render"
)

// How long a probe's result is kept. A site's logo and images repeat on
// every page of it, so most probes are answered from here; a failure is
// kept briefly, so that a host that does not answer costs one wait, not
// one per request, and is tried again soon.
const (
	probeHitTTL  = 10 * time.Minute
	probeMissTTL = time.Minute
	// maxProbeEntries bounds the memory of the results; when full it
	// starts again empty.
	maxProbeEntries = 8192
)

// probeResult is what probing one URL gave.
type probeResult struct {
	asset   *Asset
	err     error
	expires time.Time
}

// probes runs asset probes once per URL: callers that ask for a URL being
// probed wait for that probe, and later callers get its result until it
// expires. Results are shared across requests only when no caller's
// headers went with the fetch: an image behind one caller's cookie is not
// described to another.
type probes struct {
	mu       sync.Mutex
	done     map[string]probeResult
	inflight map[string]*probeCall
	now      func() time.Time
}

type probeCall struct {
	ready chan struct{}
	res   probeResult
}

func newProbes() *probes {
	return &probes{done: map[string]probeResult{}, inflight: map[string]*probeCall{}, now: time.Now}
}

// probe describes the asset at raw, fetching it at most once while its
// result lasts. shared says whether the result may serve other requests.
func (p *probes) probe(ctx context.Context, src render.Source, raw string, shared bool) (*Asset, error) {
	if !shared {
		return probeAsset(ctx, src, raw)
	}
	p.mu.Lock()
	if r, ok := p.done[raw]; ok && p.now().Before(r.expires) {
		p.mu.Unlock()
		return r.asset, r.err
	}
	call, running := p.inflight[raw]
	if !running {
		call = &probeCall{ready: make(chan struct{})}
		p.inflight[raw] = call
	}
	p.mu.Unlock()

	if !running {
		// The probe runs on its own budget (probeAsset's), not on the
		// first caller's context: its result serves every caller that
		// waits for it.
		go func() {
			a, err := probeAsset(context.WithoutCancel(ctx), src, raw)
			ttl := probeHitTTL
			if err != nil {
				ttl = probeMissTTL
			}
			call.res = probeResult{asset: a, err: err, expires: p.now().Add(ttl)}
			p.mu.Lock()
			delete(p.inflight, raw)
			if len(p.done) >= maxProbeEntries {
				p.done = map[string]probeResult{}
			}
			p.done[raw] = call.res
			p.mu.Unlock()
			close(call.ready)
		}()
	}
	select {
	case <-call.ready:
		return call.res.asset, call.res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
