package render

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"golang.org/x/net/publicsuffix"

	"github.com/glimpse/glimpse/cdp"
)

// intercept pauses the page's requests that need a decision: with the
// caller's headers (cookies, authorization) every request, so the headers
// go with the navigation and the requests to the target's own site and with
// nothing else (a third-party image or script on the page never sees a
// caller's credentials); with blocked resource types those types alone,
// which fail at once without touching the network. stop ends it.
func intercept(ctx context.Context, sess *cdp.Session, target *url.URL, hdr http.Header, blocked []network.ResourceType) (stop func(), err error) {
	site := siteOf(target)
	// Every paused request waits until it is answered, so none may be
	// lost: what the buffer cannot take is answered from the overflow.
	answer := func(raw jsonv2.Value) {
		var ev fetch.EventRequestPaused
		if jsonv2.Unmarshal(raw, &ev) != nil || ev.Request == nil {
			return
		}
		// Answered off the reading loop so one slow reply never holds the
		// other paused requests of the page.
		if slices.Contains(blocked, ev.ResourceType) {
			go func() {
				cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer ccancel()
				_, _ = cdp.Execute(cctx, sess, fetch.FailRequest, fetch.FailRequestParams{
					RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}()
			return
		}
		p := fetch.ContinueRequestParams{RequestID: ev.RequestID}
		if u, err := url.Parse(ev.Request.URL); err == nil && site.holds(u) {
			p.Headers = mergeHeaders(ev.Request.Headers, hdr)
		}
		go func() {
			cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer ccancel()
			_, _ = cdp.Execute(cctx, sess, fetch.ContinueRequest, p)
		}()
	}
	patterns := []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}}
	if len(hdr) == 0 {
		// Only what is blocked pauses: a request that would merely be
		// continued costs a round trip through the sidecar for nothing.
		patterns = patterns[:0]
		for _, t := range blocked {
			patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*", ResourceType: t, RequestStage: fetch.RequestStageRequest})
		}
	}
	events, cancel := sess.SubscribeOverflow("Fetch.requestPaused", answer)
	if _, err := cdp.Execute(ctx, sess, fetch.Enable, fetch.EnableParams{Patterns: patterns}); err != nil {
		cancel()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case raw, ok := <-events:
				if !ok {
					return
				}
				answer(raw)
			}
		}
	}()
	return func() {
		// Requests paused after this would wait forever: interception ends
		// in the browser before the loop that answers it does.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer dcancel()
		_, _ = cdp.Execute(dctx, sess, fetch.Disable, cdproto.Empty{})
		close(done)
		cancel()
	}, nil
}

// site is where a caller's forwarded headers may go: the target's own
// registrable domain (eTLD+1), or its exact address for an IP host.
type site struct {
	domain string
	secure bool // the target is https: its headers never go over plain http
}

// siteOf is the site of a target.
func siteOf(u *url.URL) site {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if net.ParseIP(host) == nil {
		if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
			host = d
		}
	}
	return site{domain: host, secure: u.Scheme == "https"}
}

// holds reports whether the caller's headers go with a request to u: one
// of the target's site, over the target's scheme or upgraded to https (a
// site that redirects http to https is the same site), never downgraded.
func (s site) holds(u *url.URL) bool {
	o := siteOf(u)
	return o.domain == s.domain && (o.secure || !s.secure)
}

// mergeHeaders is the page's own request headers with the caller's on top.
func mergeHeaders(page map[string]any, extra http.Header) []*fetch.HeaderEntry {
	out := make([]*fetch.HeaderEntry, 0, len(page)+len(extra))
	for k, v := range page {
		if _, over := extra[http.CanonicalHeaderKey(k)]; over {
			continue
		}
		if s, ok := v.(string); ok {
			out = append(out, &fetch.HeaderEntry{Name: k, Value: s})
		}
	}
	for k, vs := range extra {
		out = append(out, &fetch.HeaderEntry{Name: k, Value: strings.Join(vs, ", ")})
	}
	return out
}
