package render

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/glimpse/glimpse/orchestrator/query"
)

// upstreamHeader names the caller's proxy on a plain fetch's request to
// the sidecar's egress guard, which takes it off and sends the request on
// through that proxy (sidecar.UpstreamHeader).
const upstreamHeader = "X-Glimpse-Upstream"

// fetcher is the plain fetch of req: the shared one, or, when the caller
// names a `proxy`, one of the request's own, through it.
func (r *Renderer) fetcher(req *query.Request) *staticFetcher {
	if r.static == nil || req.Proxy == nil {
		return r.static
	}
	return r.static.through(req.Proxy)
}

// through is a fetcher whose every request leaves the guard through the
// caller's proxy up. It keeps no connection: none made for one caller's
// proxy serves another request.
func (f *staticFetcher) through(up *url.URL) *staticFetcher {
	g := newStaticFetcher(f.proxy, f.marks)
	tr := g.client.Transport.(*http.Transport)
	tr.DisableKeepAlives = true
	// A tunnel's CONNECT goes to the guard, which reads the header; a
	// plain http request carries it itself (staticFetcher.get), and an
	// https one must not, or the target would read it.
	g.upstream = up.String()
	return g
}

// leaseUpstream is the caller's proxy as the pool passes it to a sidecar.
func leaseUpstream(req *query.Request) string {
	if req.Proxy == nil {
		return ""
	}
	return req.Proxy.String()
}

// proxyGuardError is the guard's word on the caller's proxy (the
// X-Glimpse-Guard values proxy-refused, proxy-unreachable and
// proxy-failed), or nil for any other word.
func proxyGuardError(req *query.Request, reason string) error {
	switch reason {
	case "proxy-refused":
		return &Error{Kind: BadInput, Param: "proxy", Value: query.ProxyHost(req.Proxy),
			Message: "The `proxy` " + query.ProxyHost(req.Proxy) + " is not allowed: it resolves to a non-public address; use a publicly reachable proxy."}
	case "proxy-unreachable", "proxy-failed":
		return proxyFailure(req)
	}
	return nil
}

// proxyFailure is a caller's proxy that could not carry the request: it
// did not accept the connection, or refused the tunnel (wrong
// credentials, a target it does not serve).
func proxyFailure(req *query.Request) error {
	return &Error{Kind: Unreadable, Param: "proxy",
		Message: "The `proxy` " + query.ProxyHost(req.Proxy) + " did not carry the request: it refused the connection or the tunnel; check its address and credentials."}
}

// proxyNavigationError is the error of a navigation that failed on the
// way through the caller's proxy, or nil when it failed elsewhere: a
// refused tunnel reaches the browser as a failed CONNECT, not as the
// guard's answer.
func proxyNavigationError(req *query.Request, text string) error {
	if req.Proxy != nil && strings.Contains(text, "ERR_TUNNEL_CONNECTION_FAILED") {
		return proxyFailure(req)
	}
	return nil
}

// AssetsOf fetches what the page of req links to along the request's own
// egress path: through the sidecar's egress guard and, when the caller
// named one, their `proxy`, with the caller's headers for the target's
// own site only.
func (r *Renderer) AssetsOf(req *query.Request) Source {
	return httpSource{f: r.fetcher(req), site: siteOf(req.Target), headers: req.Headers}
}
