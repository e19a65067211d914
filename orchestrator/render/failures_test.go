package render

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/glimpse/glimpse/cdp/cdptest"
	"github.com/glimpse/glimpse/pool"
)

// navigateThen answers Page.navigate with the document's request only,
// then does what fault does: the page's browser fails mid-navigation.
func navigateThen(fault func(c *cdptest.Call)) func(b *scriptedBrowser) {
	return func(b *scriptedBrowser) {
		b.handle("Page.navigate", func(c *cdptest.Call) {
			_ = c.Event("Network.requestWillBeSent", documentRequest(startURL, false, hop{}))
			fault(c)
		})
	}
}

// readThen serves the page, then does what fault does when the DOM is
// read.
func readThen(fault func(c *cdptest.Call)) served {
	return served{Eval: func(c *cdptest.Call, p evalParams) bool {
		if !strings.Contains(p.Expression, "root.outerHTML") {
			return false
		}
		fault(c)
		return true
	}}
}

func retried(n float64) func(t *testing.T, got rendered, run *navRun) {
	return func(t *testing.T, _ rendered, run *navRun) {
		t.Helper()
		if v := testutil.ToFloat64(run.r.m.Retries); v != n {
			t.Errorf("the render was retried %v times; want %v", v, n)
		}
	}
}

func TestCrashesAndLostBrowsersEndOrRetryTheRender(t *testing.T) {
	t.Parallel()
	crash := func(c *cdptest.Call) { _ = c.Crash(pageTarget, pageSession) }
	drop := func(c *cdptest.Call) { c.Drop() }
	detach := func(c *cdptest.Call) {
		_ = c.EventOn("", "Target.detachedFromTarget", `{"sessionId":"S1","targetId":"T1"}`)
	}
	notRetried := func(t *testing.T, got rendered, run *navRun) {
		leasedWith(t, run, false)
		retried(0)(t, got, run)
	}
	runNavCases(t, []navCase{
		{
			name:  "a tab that crashes while it loads is unreadable and not retried",
			serve: served{}, setup: navigateThen(crash),
			kind: Unreadable, err: "crashed the browser tab", check: notRetried,
		},
		{
			name:  "a tab that crashes while it is read is unreadable and not retried",
			serve: readThen(crash),
			kind:  Unreadable, err: "crashed the browser tab", check: notRetried,
		},
		{
			name:  "a browser lost while the page loads is replaced once",
			serve: served{}, setup: navigateThen(drop), then: &served{},
			check: retried(1),
		},
		{
			name:  "a browser lost while the page is read is replaced once",
			serve: readThen(drop), then: &served{},
			check: retried(1),
		},
		{
			name:  "a page closed under the render is replaced once",
			serve: served{}, setup: navigateThen(detach), then: &served{},
			check: retried(1),
		},
		{
			name:  "a browser lost while the render waits for waitForTimeout is replaced once",
			serve: served{}, query: "&waitForTimeout=1s", limit: renderLimit,
			setup: func(b *scriptedBrowser) {
				b.handle("Page.navigate", func(c *cdptest.Call) {
					b.navigate(c)
					time.AfterFunc(100*time.Millisecond, c.Drop)
				})
			},
			then: &served{},
			check: func(t *testing.T, got rendered, run *navRun) {
				retried(1)(t, got, run)
				if got.page == nil {
					t.Fatal("the second browser gave no page")
				}
			},
		},
		{
			name:  "a second lost browser ends the render with EBROWSERLOST",
			serve: served{}, setup: navigateThen(drop), then: &served{Eval: func(c *cdptest.Call, p evalParams) bool {
				if strings.Contains(p.Expression, "root.outerHTML") {
					c.Drop()
					return true
				}
				return false
			}},
			kind: BrowserLost, err: "stopped unexpectedly",
			check: retried(1),
		},
	})
}

func TestDialogsAreDismissedSoThePageCanBeRead(t *testing.T) {
	t.Parallel()
	// While a dialog is open the page's main thread waits, and with it
	// every script glimpse runs in the page: scripts are answered only
	// once the dialog is handled, as in Chromium.
	handled := make(chan struct{})
	var once sync.Once
	var self atomic.Pointer[scriptedBrowser]
	b := newBrowser(t, served{Eval: func(c *cdptest.Call, p evalParams) bool {
		select {
		case <-handled:
			return false
		default:
		}
		go func() {
			select {
			case <-handled:
				self.Load().evaluate(c)
			case <-time.After(cdptest.WaitLimit):
			}
		}()
		return true
	}})
	self.Store(b)
	b.handle("Page.navigate", func(c *cdptest.Call) {
		b.navigate(c)
		_ = c.Event("Page.javascriptDialogOpening", `{"url":"https://example.test/start","message":"Leave?","type":"beforeunload","hasBrowserHandler":false}`)
	})
	b.handle("Page.handleJavaScriptDialog", func(c *cdptest.Call) {
		_ = c.Reply(nil)
		once.Do(func() { close(handled) })
	})
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	got := render(t, r, "url="+startURL, renderLimit)
	if got.err != nil {
		t.Fatalf("the render failed: %v", got.err)
	}
	sent := b.sent("Page.handleJavaScriptDialog")
	if len(sent) != 1 || string(sent[0].Params) != `{"accept":false}` {
		t.Errorf("the dialog was answered with %v; want one dismissal", sent)
	}
}

func TestLeaseFailuresSayWhatToDo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		err   error
		wait  bool // the leaser waits for the request's context to end
		kind  Kind
		retry time.Duration
		says  string
	}{
		{name: "a full queue is EBUSY, retried after a short wait", err: pool.ErrBusy, kind: Busy, retry: 2 * time.Second, says: "queue is full"},
		{name: "no healthy browser is EBUSY, retried in a few seconds", err: pool.ErrUnavailable, kind: Busy, retry: 5 * time.Second, says: "No browser is healthy"},
		{name: "a pool shutting down is EBUSY, retried at once elsewhere", err: pool.ErrClosed, kind: Busy, retry: time.Second, says: "shutting down"},
		{name: "no free browser within the timeout is ETIMEOUT", wait: true, kind: TimedOut, says: "No browser became free"},
		{name: "any other failure is the service's", err: errors.New("the sidecar list is empty"), says: "leasing a browser"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var l Leaser = &browsers{err: tc.err}
			if tc.wait {
				l = leaserFunc(func(ctx context.Context, _ pool.LeaseOptions) (Lease, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				})
			}
			r, m := newRenderer(l)
			got := render(t, r, "url="+startURL, 200*time.Millisecond)
			if kindOf(got.err) != tc.kind || !strings.Contains(got.err.Error(), tc.says) {
				t.Fatalf("the render failed with %v (kind %v); want kind %v saying %q", got.err, kindOf(got.err), tc.kind, tc.says)
			}
			var re *Error
			if errors.As(got.err, &re) && re.RetryAfter != tc.retry {
				t.Errorf("Retry-After is %v; want %v", re.RetryAfter, tc.retry)
			}
			busy := testutil.ToFloat64(m.BusyRejections)
			if want := tc.err == pool.ErrBusy || tc.err == pool.ErrUnavailable; busy != map[bool]float64{true: 1}[want] {
				t.Errorf("busy rejections counted %v", busy)
			}
		})
	}
	t.Run("a request whose caller went away ends with the caller's cancellation", func(t *testing.T) {
		r, _ := newRenderer(leaserFunc(func(ctx context.Context, _ pool.LeaseOptions) (Lease, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		err := r.Render(ctx, parse(t, "url="+startURL), func(context.Context, *Page) error { return nil })
		if !errors.Is(err, context.Canceled) || kindOf(err) != 0 {
			t.Fatalf("the render failed with %v; want the context's cancellation", err)
		}
	})
	t.Run("a renderer without browsers says so", func(t *testing.T) {
		r, _ := newRenderer(nil)
		got := render(t, r, "url="+startURL, time.Second)
		if got.err == nil || !strings.Contains(got.err.Error(), "no browser pool is configured") {
			t.Fatalf("the render failed with %v", got.err)
		}
	})
}

// leaserFunc is a Leaser of a function.
type leaserFunc func(ctx context.Context, o pool.LeaseOptions) (Lease, error)

func (f leaserFunc) Lease(ctx context.Context, o pool.LeaseOptions) (Lease, error) { return f(ctx, o) }
