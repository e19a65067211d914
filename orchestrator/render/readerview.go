package render

import (
	"context"

	"github.com/glimpse/glimpse/orchestrator/query"
)

// prepareReading makes the loaded page what a reader would see before
// it is captured or read as Markdown: the page scrolled through for what
// loads late. It runs before the caller's own actions. It is best effort.
func (r *Renderer) prepareReading(ctx context.Context, lease Lease, req *query.Request) {
	if !revealApplies(req) || ctx.Err() != nil {
		return
	}
	r.reveal(ctx, lease, req)
}
