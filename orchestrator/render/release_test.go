package render

import (
	"context"
	"errors"
	"testing"
	"time"
)

// After a render gives its page back, the browser may go away for the
// pool's own reasons (a recycle closes its connection); a later failure of
// the render is then its own, never the browser's.
func TestAFailureAfterAnEarlyReleaseIsNotTheBrowserLost(t *testing.T) {
	t.Parallel()
	errOwn := errors.New("storing the answer failed")
	cases := []struct {
		name  string
		fail  func(ctx context.Context) error
		check func(t *testing.T, err error)
	}{
		{"a deadline that passes afterwards answers as a time-out",
			func(ctx context.Context) error {
				<-ctx.Done()
				return timeoutError(ctx, "The probes did not finish within the `timeout`")
			},
			func(t *testing.T, err error) {
				if kindOf(err) != TimedOut {
					t.Errorf("the render failed with %v (kind %v); want a time-out", err, kindOf(err))
				}
			}},
		{"an error of its own is answered as it is",
			func(context.Context) error { return errOwn },
			func(t *testing.T, err error) {
				if !errors.Is(err, errOwn) || errors.Is(err, errLeaseLost) || kindOf(err) == BrowserLost {
					t.Errorf("the render failed with %v (kind %v); want its own error", err, kindOf(err))
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := newBrowser(t, served{})
			bs := &browsers{next: []*scriptedBrowser{b, newBrowser(t, served{})}}
			r, _ := newRenderer(bs)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := r.Render(ctx, parse(t, "url="+startURL+"&prerender=true"), func(ctx context.Context, p *Page) error {
				p.Release()
				b.conn.Close() // the pool closes the released browser's connection
				return tc.fail(ctx)
			})
			tc.check(t, err)
			if n := len(bs.leases()); n != 1 {
				t.Errorf("the render leased %d browsers; want one, without a retry", n)
			}
		})
	}
}

// A render whose browser goes away while it holds the page, as the
// request's time runs out, answers with the time-out the caller can act
// on.
func TestABrowserLostAtTheDeadlineIsATimeOut(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, served{})
	r, _ := newRenderer(&browsers{next: []*scriptedBrowser{b}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := r.Render(ctx, parse(t, "url="+startURL+"&prerender=true"), func(ctx context.Context, p *Page) error {
		<-ctx.Done()
		b.conn.Close()
		return errors.New("the page went away")
	})
	if kindOf(err) != TimedOut {
		t.Errorf("the render failed with %v (kind %v); want a time-out", err, kindOf(err))
	}
}
