package answer

import (
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// wall decides what a bot wall in front of the page makes of the answer.
// Metadata, data rules and Markdown of a challenge would be the
// challenge's, stored by the caller as the page's: they fail with
// EPROXYNEEDED. A screenshot or PDF alone (meta=false) shows what is
// there, the wall, and the answer says so: the vendor is returned for the
// x-glimpse-wall header, and the answer is not cached.
func (c *Composer) wall(req *query.Request, p *render.Page) (string, error) {
	w := p.Wall
	if w == nil {
		return "", nil
	}
	c.m.BotWalls.WithLabelValues(w.Vendor).Inc()
	c.log.Info("a bot wall answered instead of the page", "vendor", w.Vendor, "status", w.Status, "signals", w.Signals)
	if !req.MetaOff || len(req.Data) > 0 {
		return "", apierr.ProxyNeeded(req.Target.String(), render.VendorName(w.Vendor), w.Status)
	}
	return w.Vendor, nil
}
