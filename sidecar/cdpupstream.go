package sidecar

import (
	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/glimpse/glimpse/metrics"
)

// upstreamParam is glimpse's own parameter of Target.createBrowserContext:
// the caller's proxy (a URL, credentials included) that the context's
// traffic leaves through after the egress guard. The filter replaces it
// with the guard's route through that proxy, so Chromium never sees it.
const upstreamParam = "glimpseUpstream"

// refuseAllProxy is a proxyServer nothing listens on: a context whose
// route could not be opened loads nothing rather than leaving some other
// way.
const refuseAllProxy = "http://127.0.0.1:1"

// withUpstreams lets contexts name a caller's proxy, opened by open.
func (f *cdpFilter) withUpstreams(open func(proxy string, unfiltered bool) (string, error), unfilteredAddr string) *cdpFilter {
	f.upstream = open
	if unfilteredAddr != "" {
		f.unfiltered = "http://" + unfilteredAddr
	}
	return f
}

// createContext is the message of Target.createBrowserContext as the
// filter reads and rewrites it.
type createContext struct {
	ID        int64  `json:"id"`
	SessionID string `json:"sessionId,omitempty"`
	Method    string `json:"method"`
	Params    struct {
		DisposeOnDetach *bool  `json:"disposeOnDetach,omitempty"`
		ProxyServer     string `json:"proxyServer,omitempty"`
		ProxyBypassList string `json:"proxyBypassList,omitempty"`
		Upstream        string `json:"glimpseUpstream,omitempty"`
	} `json:"params"`
}

// checkCreateBrowserContextUpstream is checkCreateBrowserContext for a
// context that may name a caller's proxy: the rest of the message passes
// the usual check, and the route through the proxy must open.
func checkCreateBrowserContextUpstream(f *cdpFilter, msg []byte) *refusal {
	var c createContext
	if err := jsonv2.Unmarshal(msg, &c); err != nil || c.Params.Upstream == "" {
		return checkCreateBrowserContext(f, msg)
	}
	rest := c
	rest.Params.Upstream = ""
	plain, err := jsonv2.Marshal(rest)
	if err != nil {
		return badParams("its params do not have the types Target.createBrowserContext takes")
	}
	if r := checkCreateBrowserContext(f, plain); r != nil {
		return r
	}
	if f.upstream == nil {
		return &refusal{reason: metrics.CDPRefusedProxy, code: cdpInvalidParams,
			message: "glimpse's sidecar refused a browser context with an upstream proxy: this sidecar does not route through one"}
	}
	if _, err := f.upstream(c.Params.Upstream, c.Params.ProxyServer != "" && c.Params.ProxyServer == f.unfiltered); err != nil {
		return &refusal{reason: metrics.CDPRefusedProxy, code: cdpInvalidParams,
			message: "glimpse's sidecar refused a browser context with an upstream proxy: " + err.Error()}
	}
	return nil
}

// routedUpstream rewrites a passed Target.createBrowserContext that names
// a caller's proxy: its proxyServer becomes the guard's route through it.
func (f *cdpFilter) routedUpstream(method string, msg []byte) ([]byte, bool) {
	if method != "Target.createBrowserContext" {
		return nil, false
	}
	var c createContext
	if err := jsonv2.Unmarshal(msg, &c); err != nil || c.Params.Upstream == "" {
		return nil, false
	}
	unfiltered := c.Params.ProxyServer != "" && c.Params.ProxyServer == f.unfiltered
	addr, err := "", error(nil)
	if f.upstream != nil {
		addr, err = f.upstream(c.Params.Upstream, unfiltered)
	}
	c.Params.Upstream = ""
	c.Params.ProxyServer = refuseAllProxy
	if f.upstream != nil && err == nil {
		c.Params.ProxyServer = "http://" + addr
	}
	c.Params.ProxyBypassList = "<-loopback>"
	out, merr := jsonv2.Marshal(c)
	if merr != nil {
		return nil, false
	}
	return out, true
}
