package orchestrator

import (
	"context"

	"github.com/glimpse/glimpse/pool"
)

// Controls are the rendering controls of a request (waitUntil,
// waitForSelector, viewport, device, colorScheme, javascript, animations,
// click, scroll, styles, scripts, adblock).
type Controls struct {
	// WaitUntil is when the page counts as loaded: "auto" (load, then a
	// short quiet period), "load", "domcontentloaded", "networkidle0" or
	// "networkidle2".
	WaitUntil string
}

// controlParam recognises the parameters of the rendering controls.
func controlParam(name string) (string, bool) { return "", false }

// parseControls reads the rendering controls into req.Controls.
func parseControls(q *query, req *Request) error {
	req.Controls.WaitUntil = "auto"
	return nil
}

// needsBrowser reports whether a control only a browser can honour is set,
// so prerender=auto must not answer from a plain fetch.
func (c Controls) needsBrowser() bool { return false }

// beforeNavigate applies the controls that must be in place before the
// page loads (viewport, device, color scheme, JavaScript, ad blocking).
func (s *Server) beforeNavigate(ctx context.Context, lease *pool.Lease, req *Request) error {
	return nil
}

// beforeCapture applies the controls that act on the loaded page (wait for
// a selector or a time, click, scroll, styles, scripts, animations) before
// the DOM is read and before PDFs and screenshots are taken.
func (s *Server) beforeCapture(ctx context.Context, lease *pool.Lease, req *Request) error {
	return nil
}
