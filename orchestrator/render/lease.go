package render

import (
	"context"
	"sync/atomic"

	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/pool"
)

// Lease is a browser page held for one render: what a render needs of it,
// and no more. The pool's leases are one kind; a scripted browser in
// tests is another.
type Lease interface {
	// Page talks to the page: navigation, its events, the DOM.
	Page() *cdp.Session
	// Browser talks to the browser, for commands about the whole browser.
	Browser() *cdp.Session
	// TargetID is the page's target id, which is also its main frame's id.
	TargetID() target.ID
	// Lost is closed when the connection to the page's browser drops.
	Lost() <-chan struct{}
	// IsLost reports whether Lost is closed.
	IsLost() bool
	// Release gives the page back; it is safe to call more than once.
	Release()
}

// Leaser hands out leases.
type Leaser interface {
	Lease(ctx context.Context, o pool.LeaseOptions) (Lease, error)
}

// poolLeaser leases from the pool of sidecars.
type poolLeaser struct{ p *pool.Pool }

func (pl poolLeaser) Lease(ctx context.Context, o pool.LeaseOptions) (Lease, error) {
	l, err := pl.p.LeaseWith(ctx, o)
	if err != nil {
		return nil, err
	}
	return poolLease{l}, nil
}

// poolLease is a pool's lease seen as a Lease.
type poolLease struct{ l *pool.Lease }

func (pl poolLease) Page() *cdp.Session    { return pl.l.Session }
func (pl poolLease) Browser() *cdp.Session { return pl.l.Browser }
func (pl poolLease) TargetID() target.ID   { return pl.l.TargetID }
func (pl poolLease) Lost() <-chan struct{} { return pl.l.Lost() }
func (pl poolLease) IsLost() bool          { return pl.l.IsLost() }
func (pl poolLease) Release()              { pl.l.Release() }

// heldLease notes that a render gave its lease back before it finished,
// so that what happens to the browser afterwards is not taken for the
// cause of a later failure.
type heldLease struct {
	Lease
	released atomic.Bool
}

func (h *heldLease) Release() {
	h.released.Store(true)
	h.Lease.Release()
}
