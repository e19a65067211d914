package render

import (
	"context"
	"time"

	"github.com/glimpse/glimpse/orchestrator/query"
)

// prepareReading makes the loaded page what a reader would see before
// it is captured or read as Markdown: consent banners out of the way, the
// page scrolled through for what loads late, and again banners that came
// meanwhile. It runs after the caller's waits and before the caller's
// own actions, so that a click reaches the page rather than a banner.
// Each step is best effort. site and net are the document's site and
// network (see reveal).
func (r *Renderer) prepareReading(ctx context.Context, lease Lease, req *query.Request, site string, net *netState) {
	consent, reveal := consentApplies(req), revealApplies(req)
	if !consent && !reveal {
		return
	}
	if ctx.Err() != nil {
		// The page used the whole time loading: banners still go, in a
		// moment of their own, since a capture of them is worth less.
		if consent {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			r.dismissConsent(cctx, lease)
		}
		return
	}
	if consent {
		r.dismissConsent(ctx, lease)
	}
	if reveal {
		r.reveal(ctx, lease, req, site, net)
		if consent {
			r.dismissConsent(ctx, lease)
		}
	}
}
