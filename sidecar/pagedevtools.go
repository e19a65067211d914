package sidecar

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/metrics"
)

// A lease talks to its page over a WebSocket of its own, to Chromium's
// endpoint for that one page, so that what the page makes Chromium send
// (a DOM read, a script's value) can end that connection only, never the
// browser's, which every other page of the sidecar shares. The page's
// connection passes the same filter as the browser's, and carries no
// command about the browser: contexts and targets are made and disposed
// on /devtools/browser, where the page limit counts them.

// serveDevToolsPage connects the client to the page whose target id is
// the last element of the path.
func (s *Sidecar) serveDevToolsPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validTargetID(id) {
		http.Error(w, "The page's target id must be 1 to 64 letters and digits, as Target.createTarget answers it.", http.StatusBadRequest)
		return
	}
	s.proxyDevTools(w, r, id)
}

// validTargetID accepts what Chromium names targets with (32 hexadecimal
// digits) and a little more, but nothing that could change the path of
// the endpoint it is put in.
func validTargetID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// pageEndpoint turns Chromium's browser endpoint
// (ws://127.0.0.1:port/devtools/browser/<uuid>) into the endpoint of page
// id on the same browser.
func pageEndpoint(browserWS, id string) (string, error) {
	u, err := url.Parse(browserWS)
	if err != nil || !strings.HasPrefix(u.Path, "/devtools/browser") {
		return "", fmt.Errorf("Chromium's DevTools address %q is not a browser endpoint, so the page's cannot be derived from it", browserWS)
	}
	u.Path = "/devtools/page/" + id
	u.RawQuery = ""
	return u.String(), nil
}

// browserLevel refuses, on a page's own connection, a command about the
// browser: one there would escape the page limit (a context made where it
// is not counted) or act beyond the page the connection was opened for.
func (f *cdpFilter) browserLevel(method string) *refusal {
	if !strings.HasPrefix(method, "Target.") && !strings.HasPrefix(method, "Browser.") {
		return nil
	}
	r := &refusal{reason: metrics.CDPRefusedMethod, code: cdpMethodNotFound,
		message: fmt.Sprintf("'%s' acts on the browser, and this connection reaches one page only; send it on /devtools/browser", clip(method))}
	f.count(r)
	return r
}

// pageLag bounds the wait for the sidecar's own watcher to hear of a page
// a client has just created, while a replaced browser still serves: the
// client's reply and the watcher's event travel on different connections.
const pageLag = 250 * time.Millisecond

// pageGeneration is the browser that holds page id: the current one, or
// one a recycle replaced whose clients are finishing. A page the sidecar
// has not heard of goes to the current browser, which answers for it.
func (s *Sidecar) pageGeneration(ctx context.Context, id target.ID) (*generation, string) {
	deadline := time.Now().Add(pageLag)
	for {
		s.mu.Lock()
		gens := make([]*generation, 0, len(s.replaced)+1)
		if s.cur != nil {
			gens = append(gens, s.cur)
		}
		for g := range s.replaced {
			gens = append(gens, g)
		}
		replaced := len(s.replaced) > 0
		s.mu.Unlock()
		for _, g := range gens {
			if g.hasPage(id) {
				return g, StatusOK
			}
		}
		if !replaced || time.Now().After(deadline) || ctx.Err() != nil {
			return s.current()
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hasPage reports whether the page was created on this browser and is
// still open, as far as the watcher has heard.
func (g *generation) hasPage(id target.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.open[id]
	return ok
}
