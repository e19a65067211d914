package render

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"

	"github.com/glimpse/glimpse/cdp"
)

// netState is what a page's network has been doing: the requests still in
// flight, and when one last started or ended. The navigation keeps it from
// the first request on; while the page is scrolled through, a follower
// goroutine keeps it, so it is guarded.
type netState struct {
	mu       sync.Mutex
	inflight map[network.RequestID]flight
	last     time.Time
	// asked is when the page's scripts last sent a fetch or an XHR to
	// each site, ended or not.
	asked map[string]time.Time
	// catchUp, while a follower keeps the state, returns once it has
	// noted every event that had arrived when it was called.
	catchUp func()
}

// flight is one request in flight: when it started, and the site it went
// to.
type flight struct {
	start time.Time
	site  string
	fetch bool // a script's fetch or XHR
}

// note follows one of the page's network events.
func (s *netState) note(ev cdp.Event) {
	var e struct {
		RequestID network.RequestID    `json:"requestId"`
		Type      network.ResourceType `json:"type"`
		Request   struct {
			URL string `json:"url"`
		} `json:"request"`
	}
	switch ev.Method {
	case "Network.requestWillBeSent", "Network.loadingFinished", "Network.loadingFailed":
	default:
		return
	}
	if jsonv2.Unmarshal(ev.Params, &e) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inflight == nil {
		s.inflight = map[network.RequestID]flight{}
		s.asked = map[string]time.Time{}
	}
	s.last = time.Now()
	switch {
	case ev.Method != "Network.requestWillBeSent":
		delete(s.inflight, e.RequestID)
	case e.Type != network.ResourceTypeEventSource:
		// A stream of server events never ends: it would keep the
		// network busy for good.
		f := flight{start: s.last, fetch: e.Type == network.ResourceTypeFetch || e.Type == network.ResourceTypeXHR}
		if u, err := url.Parse(e.Request.URL); err == nil {
			f.site = siteOf(u).domain
		}
		s.inflight[e.RequestID] = f
		if f.fetch && f.site != "" {
			s.asked[f.site] = f.start
		}
	}
}

// awaited counts the requests to site still in flight that the page may
// add to its document once they end: what it asked its own server for
// after t (the last scroll), and its scripts' fetches and XHRs to that
// server whenever they started (a list's part asked for before the scroll
// reached the end, which the page waits for before it asks for the next).
func (s *netState) awaited(t time.Time, site string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, f := range s.inflight {
		if f.site != "" && f.site == site && (f.fetch || f.start.After(t)) {
			n++
		}
	}
	return n
}

// askedSince reports whether the page's scripts sent a fetch or an XHR to
// site after t, whether it has ended or not.
func (s *netState) askedSince(t time.Time, site string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return site != "" && s.asked[site].After(t)
}

// quietFor reports how much longer the network must stay as it is to have
// been quiet for d: nothing in flight, and nothing started or ended for d.
// ok is false while a request is in flight.
func (s *netState) quietFor(d time.Duration) (wait time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.inflight) > 0 {
		return 0, false
	}
	return max(0, d-time.Since(s.last)), true
}

// follow keeps n.net up to date from the page's events until the returned
// function is called, which returns once the follower has stopped. It is
// for the time between the wait for load and the capture, when nothing
// else reads the events.
//
// Meanwhile n.net.catchUp makes the follower note, before it returns,
// every event already received. The browser sends a page's events in the
// order they happen, and the session queues each before the answer to a
// later call, so after an answer the state can be as up to date as the
// answer: a request the page sent before it is known.
func (n *navigation) follow() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	asks := make(chan chan struct{})
	n.net.catchUp = func() {
		reply := make(chan struct{})
		select {
		case asks <- reply:
			<-reply
		case <-done:
		}
	}
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case reply := <-asks:
				n.noteQueued()
				close(reply)
			case ev, ok := <-n.events:
				if !ok {
					return
				}
				n.net.note(ev)
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		n.net.catchUp = nil
	}
}

// noteQueued notes the page's events already received, without waiting
// for more.
func (n *navigation) noteQueued() {
	for {
		select {
		case ev, ok := <-n.events:
			if !ok {
				return
			}
			n.net.note(ev)
		default:
			return
		}
	}
}

// scrolledQuiet is how long the network must have been quiet after a
// scroll-through, which has itself waited for every picture of the page
// to load and for the page to react to the scroll: what is left to catch
// is a request that one ending starts (a script's, a font's, a
// background's), and nothing in flight is ever cut short.
const scrolledQuiet = 250 * time.Millisecond

// awaitQuiet is waitUntil=auto's wait for the network of a render with
// pixels that was scrolled through: nothing in flight for scrolledQuiet,
// counted from the last request that started or ended, so the scroll's own
// time counts toward it. It is bounded by autoSettle and by a share of the
// request's time, and reports whether the network went quiet.
func (n *navigation) awaitQuiet(ctx context.Context) bool {
	bound := min(autoSettle, revealBudget(time.Until(deadlineOf(ctx, n.req.Timeout))))
	limit := time.NewTimer(bound)
	defer limit.Stop()
	for {
		wait, ok := n.net.quietFor(scrolledQuiet)
		if ok && wait == 0 {
			return true
		}
		if !ok {
			wait = 50 * time.Millisecond
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-limit.C:
			t.Stop()
			return false
		case <-ctx.Done():
			t.Stop()
			return false
		case <-n.lease.Lost():
			t.Stop()
			return false
		}
	}
}
