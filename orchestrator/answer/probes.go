package answer

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
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
	// maxProbeBytes bounds the memory of the results. A page chooses the
	// URLs, and with them the size of each result, so the bound is in
	// bytes; the oldest results go first.
	maxProbeBytes = 4 << 20
	// probeOverhead is what one result costs beside its strings.
	probeOverhead = 256
	// probeSweepStep is how many expired results one new result drops at
	// most, so that no probe holds the lock for the whole table.
	probeSweepStep = 16
)

// MaxAssetURLBytes is the longest URL of an asset a page declares that
// glimpse fetches or reports. Longer ones are skipped: a page could
// otherwise make every answer and every remembered probe as large as it
// likes.
const MaxAssetURLBytes = 8 << 10

// probeResult is what probing one URL gave.
type probeResult struct {
	url     string
	asset   *Asset
	err     error
	expires time.Time
}

func (r *probeResult) size() int64 {
	n := int64(len(r.url)) + probeOverhead
	if a := r.asset; a != nil {
		n += int64(len(a.URL) + len(a.Type) + len(a.SizePretty))
	}
	if r.err != nil {
		n += int64(len(r.err.Error()))
	}
	return n
}

// probes runs asset probes once per URL: callers that ask for a URL being
// probed wait for that probe, and later callers get its result until it
// expires. Results are shared across requests only when no caller's
// headers went with the fetch: an image behind one caller's cookie is not
// described to another.
type probes struct {
	mu       sync.Mutex
	done     map[string]*list.Element // of *probeResult
	order    *list.List               // oldest first
	bytes    int64
	maxBytes int64
	inflight map[string]*probeCall
	now      func() time.Time
}

type probeCall struct {
	ready chan struct{}
	res   probeResult
}

func newProbes() *probes {
	return &probes{done: map[string]*list.Element{}, order: list.New(), maxBytes: maxProbeBytes,
		inflight: map[string]*probeCall{}, now: time.Now}
}

// probe describes the asset at raw, fetching it at most once while its
// result lasts. shared says whether the result may serve other requests.
func (p *probes) probe(ctx context.Context, src render.Source, raw string, shared bool) (*Asset, error) {
	if len(raw) > MaxAssetURLBytes {
		return nil, fmt.Errorf("an asset's URL of %d bytes is longer than the %d glimpse fetches", len(raw), MaxAssetURLBytes)
	}
	if !shared {
		return probeAsset(ctx, src, raw)
	}
	p.mu.Lock()
	if el, ok := p.done[raw]; ok {
		r := el.Value.(*probeResult)
		if p.now().Before(r.expires) {
			p.mu.Unlock()
			return r.asset, r.err
		}
		p.removeLocked(el)
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
		go p.run(context.WithoutCancel(ctx), src, raw, call)
	}
	select {
	case <-call.ready:
		return call.res.asset, call.res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run probes raw for everyone waiting on call and remembers the result.
// It is outside any request's recovery: a panic becomes the probe's
// failure instead of ending the service.
func (p *probes) run(ctx context.Context, src render.Source, raw string, call *probeCall) {
	var a *Asset
	var err error
	func() {
		defer func() {
			if v := recover(); v != nil {
				a, err = nil, fmt.Errorf("probing an asset panicked: %v\n%s", v, debug.Stack())
			}
		}()
		a, err = probeAsset(ctx, src, raw)
	}()
	ttl := probeHitTTL
	if err != nil {
		ttl = probeMissTTL
	}
	call.res = probeResult{url: raw, asset: a, err: err, expires: p.now().Add(ttl)}
	p.mu.Lock()
	delete(p.inflight, raw)
	if !errors.Is(err, render.ErrEgress) {
		// A failure of glimpse's own way out says nothing of the asset.
		p.addLocked(&call.res)
	}
	p.mu.Unlock()
	close(call.ready)
}

// addLocked remembers a result: a few expired ones are dropped first, then
// the oldest while the budget would be exceeded.
func (p *probes) addLocked(r *probeResult) {
	now := p.now()
	for range probeSweepStep {
		el := p.order.Front()
		if el == nil || now.Before(el.Value.(*probeResult).expires) {
			break
		}
		p.removeLocked(el)
	}
	if el, ok := p.done[r.url]; ok {
		p.removeLocked(el)
	}
	sz := r.size()
	if sz > p.maxBytes/4 {
		return
	}
	for p.bytes+sz > p.maxBytes && p.order.Len() > 0 {
		p.removeLocked(p.order.Front())
	}
	p.done[r.url] = p.order.PushBack(r)
	p.bytes += sz
}

func (p *probes) removeLocked(el *list.Element) {
	r := el.Value.(*probeResult)
	p.order.Remove(el)
	delete(p.done, r.url)
	p.bytes -= r.size()
}

// held is how many results are remembered and what they cost, by the
// budget's measure.
func (p *probes) held() (int, int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.done), p.bytes
}
