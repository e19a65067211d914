package render

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/glimpse/glimpse/cdp/cdptest"
)

// scrollRecorder answers the scroll-through's script and the document's
// height it asks first, and keeps the script it was sent.
type scrollRecorder struct {
	mu     sync.Mutex
	script string
	height int64 // the document's height before the scroll-through
}

func (s *scrollRecorder) eval(c *cdptest.Call, p evalParams) bool {
	switch {
	case strings.HasSuffix(p.Expression, ").scrollHeight"):
		_ = c.Reply(value(s.height))
	case strings.Contains(p.Expression, "a reader scrolling through"):
		s.mu.Lock()
		s.script = p.Expression
		s.mu.Unlock()
		_ = c.Reply(value(map[string]any{"steps": 2, "height": s.height}))
	default:
		return false
	}
	return true
}

// told reports whether the scroll-through's options held each of want.
func (s *scrollRecorder) told(t *testing.T, want ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script == "" {
		t.Fatal("the page was not scrolled through")
	}
	opts := s.script[strings.LastIndex(s.script, ")(")+2:]
	for _, w := range want {
		if !strings.Contains(opts, w) {
			t.Errorf("the scroll-through was not told %s: %s", w, opts)
		}
	}
}

// viewportHeights lists the heights of the viewports the render set, in
// order.
func viewportHeights(t *testing.T, b *scriptedBrowser) []int64 {
	var out []int64
	for _, m := range b.sent("Emulation.setDeviceMetricsOverride") {
		out = append(out, paramsOf[struct {
			Height int64 `json:"height"`
		}](t, m).Height)
	}
	return out
}

// The end of the scroll-through is short only for a page the browser says
// nothing in hears a scroll; one it cannot tell about is taken to listen.
func TestTheScrollThroughsEndFollowsThePagesScrollListeners(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		answer  cdptest.Handler
		want    string
		windows int // how many of the page's objects were asked about
	}{
		{"no listener for scroll events", cdptest.Result(`{"listeners":[{"type":"click","useCapture":false,"passive":false,"once":false,"scriptId":"1","lineNumber":0,"columnNumber":0}]}`), `"tail":100`, 2},
		{"a scroll listener", cdptest.Result(`{"listeners":[{"type":"scroll","useCapture":false,"passive":true,"once":false,"scriptId":"1","lineNumber":0,"columnNumber":0}]}`), `"tail":250`, 1},
		{"a browser that cannot tell", cdptest.NotFound, `"tail":250`, 1},
	} {
		rec := &scrollRecorder{height: 1600}
		runNavCases(t, []navCase{{
			name:  c.name,
			serve: served{Eval: rec.eval},
			query: "&pdf=true",
			setup: func(b *scriptedBrowser) { b.handle("DOMDebugger.getEventListeners", c.answer) },
			check: func(t *testing.T, got rendered, run *navRun) {
				rec.told(t, c.want, `"calm":250`)
				if n := len(run.browsers[0].sent("DOMDebugger.getEventListeners")); n != c.windows {
					t.Errorf("the listeners of %d objects were asked for; want %d", n, c.windows)
				}
				if n := len(run.browsers[0].sent("Runtime.releaseObjectGroup")); n != 1 {
					t.Errorf("the objects named were released %d times; want once", n)
				}
			},
		}})
	}
}

// The viewport is made taller for the scroll-through only when the
// document still scrolls in it, and the caller's is set back after it.
// When the browser refuses either, the capture still goes on.
func TestTheScrollThroughsTallerViewportIsTheCallersAgainAfterIt(t *testing.T) {
	t.Parallel()
	// failAfter refuses the viewport from its nth setting on.
	failAfter := func(n int32) func(b *scriptedBrowser) {
		return func(b *scriptedBrowser) {
			var calls atomic.Int32
			b.handle("Emulation.setDeviceMetricsOverride", func(c *cdptest.Call) {
				if calls.Add(1) >= n {
					_ = c.Fail(-32000, "Target closed")
					return
				}
				_ = c.Reply(map[string]any{})
			})
		}
	}
	for _, c := range []struct {
		name        string
		height      int64
		setup       func(b *scriptedBrowser)
		wantHeights []int64
		want        []string
	}{
		{"a long document: 3,200 pixels, then the caller's 800", 20000, nil, []int64{800, 3200, 800},
			[]string{`"grown":true`, `"bottom":16000`, `"doc":20000`}},
		// 2,000 - 800: a taller viewport would hold it all.
		{"a document that scrolls once: as tall as still scrolls", 2000, nil, []int64{800, 1200, 800},
			[]string{`"grown":true`}},
		{"a document that would not scroll in a taller viewport: the caller's", 1500, nil, []int64{800},
			[]string{`"grown":false`, `"bottom":16000`}},
		{"a browser that refuses the taller viewport: the caller's", 20000, failAfter(2), []int64{800, 3200},
			[]string{`"grown":false`}},
		{"a browser that refuses the caller's back: the capture goes on", 20000, failAfter(3), []int64{800, 3200, 800},
			[]string{`"grown":true`}},
	} {
		rec := &scrollRecorder{height: c.height}
		runNavCases(t, []navCase{{
			name:  c.name,
			serve: served{Eval: rec.eval},
			query: "&pdf=true",
			setup: c.setup,
			check: func(t *testing.T, got rendered, run *navRun) {
				rec.told(t, c.want...)
				if got := viewportHeights(t, run.browsers[0]); jsonOf(got) != jsonOf(c.wantHeights) {
					t.Errorf("the viewport was set to heights %v; want %v", got, c.wantHeights)
				}
				if got.page == nil {
					t.Error("no page to capture")
				}
			},
		}})
	}
}
