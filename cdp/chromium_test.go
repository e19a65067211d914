//go:build linux

package cdp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/internal/testtool"
)

// chromiumFlags are the flags glimpse runs Chromium with in tests.
var chromiumFlags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-dev-shm-usage",
	"--remote-debugging-port=0",
}

// startChromium launches a headless Chromium with a fresh profile and returns
// its DevTools browser endpoint and a func that kills it early. Cleanup kills
// the whole process group, then removes the profile with what Chromium put
// in its temporary directory.
func startChromium(t *testing.T) (wsURL string, kill func()) {
	t.Helper()
	if testing.Short() {
		t.Skip("the Chromium tests do not run with -short")
	}
	return testtool.StartChromium(t, testtool.ChromiumPath(t), chromiumFlags...)
}

const testPageTitle = "glimpse test page"

func TestAgainstChromium(t *testing.T) {
	wsURL, kill := startChromium(t)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body><p>hello</p></body></html>", testPageTitle)
	}))
	defer pages.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	c, err := Dial(ctx, wsURL, WithLogger(discardLogger))
	if err != nil {
		t.Fatalf("Dial %s: %v", wsURL, err)
	}
	defer c.Close()

	t.Run("Browser.getVersion answers through Execute", func(t *testing.T) {
		v, err := Execute(ctx, c.Browser(), browser.GetVersion, cdproto.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(v.Product, "Chrome") || v.ProtocolVersion == "" {
			t.Errorf("got version %+v", v)
		}
	})

	t.Run("a page in its own browser context loads, is read and is disposed", func(t *testing.T) {
		pagesBefore := countPages(ctx, t, c)
		bc, err := Execute(ctx, c.Browser(), target.CreateBrowserContext, target.CreateBrowserContextParams{})
		if err != nil {
			t.Fatal(err)
		}
		tg, err := Execute(ctx, c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Attach(ctx, tg.TargetID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Execute(ctx, s, page.Enable, page.EnableParams{}); err != nil {
			t.Fatal(err)
		}

		// cdproto's typed iterator subscribes when Events returns, before
		// the navigation starts.
		loads := cdproto.Events(ctx, s, page.LoadEventFired)
		nav, err := Execute(ctx, s, page.Navigate, page.NavigateParams{URL: pages.URL})
		if err != nil || nav.ErrorText != "" {
			t.Fatalf("navigating to the test page: %v %q", err, nav.ErrorText)
		}
		for _, err := range loads {
			if err != nil {
				t.Fatalf("waiting for Page.loadEventFired: %v", err)
			}
			break
		}
		if got := evalString(ctx, t, s, "document.title"); got != testPageTitle {
			t.Errorf("document.title = %q, want %q", got, testPageTitle)
		}

		// The same through Subscribe, on a data: URL.
		raw, stop := s.Subscribe(page.LoadEventFired.Method)
		if _, err := Execute(ctx, s, page.Navigate, page.NavigateParams{URL: "data:text/html,<title>from data</title>"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-raw:
		case <-ctx.Done():
			t.Fatal("no Page.loadEventFired for the data: URL")
		}
		stop()
		if got := evalString(ctx, t, s, "document.title"); got != "from data" {
			t.Errorf("document.title = %q after the data: URL", got)
		}

		// The browser's refusal arrives as *Error.
		_, err = Execute(ctx, s, page.Navigate, page.NavigateParams{URL: "not a url"})
		var perr *Error
		if !errors.As(err, &perr) || perr.Method != "Page.navigate" || perr.Code == 0 || perr.Message == "" {
			t.Errorf("navigating to an invalid URL returned %v, want a *Error for Page.navigate", err)
		}

		// A call whose deadline passes leaves nothing pending, and the
		// session keeps working.
		short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err = Execute(short, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "new Promise(() => {})", AwaitPromise: new(true)})
		cancelShort()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a never-settling evaluation returned %v, want the deadline", err)
		}
		if n := c.Pending(); n != 0 {
			t.Errorf("Pending() = %d after the deadline", n)
		}
		if got := evalString(ctx, t, s, "String(1 + 1)"); got != "2" {
			t.Errorf("evaluation after a timed-out one returned %q", got)
		}

		if _, err := Execute(ctx, c.Browser(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: bc.BrowserContextID}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-s.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the session's Done did not close after its browser context was disposed")
		}
		if err := s.Call(ctx, "Runtime.evaluate", runtime.EvaluateParams{Expression: "1"}, nil); !errors.Is(err, ErrSessionClosed) {
			t.Errorf("a call on the disposed page returned %v, want ErrSessionClosed", err)
		}
		if after := countPages(ctx, t, c); after != pagesBefore {
			t.Errorf("the browser has %d pages after disposal, %d before", after, pagesBefore)
		}
	})

	t.Run("a browser that dies fails pending calls with ErrClosed", func(t *testing.T) {
		tg, err := Execute(ctx, c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Attach(ctx, tg.TargetID)
		if err != nil {
			t.Fatal(err)
		}
		never := goCall(ctx, s, "Runtime.evaluate", runtime.EvaluateParams{Expression: "new Promise(() => {})", AwaitPromise: new(true)})
		// Give the call time to leave before the browser goes.
		for c.Pending() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		kill()
		if r := await(t, never); !errors.Is(r.err, ErrClosed) {
			t.Errorf("the pending call returned %v, want ErrClosed", r.err)
		}
		closedWithin(t, c.Done(), "the connection's Done")
		closedWithin(t, s.Done(), "the session's Done")
		if !errors.Is(c.Err(), ErrClosed) {
			t.Errorf("Err() = %v", c.Err())
		}
	})
}

func evalString(ctx context.Context, t *testing.T, s *Session, expr string) string {
	t.Helper()
	res, err := Execute(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: new(true)})
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluating %s threw: %s", expr, res.ExceptionDetails.Text)
	}
	var out string
	if err := jsonv2.Unmarshal(res.Result.Value, &out); err != nil {
		t.Fatalf("evaluating %s returned %s, not a string: %v", expr, res.Result.Value, err)
	}
	return out
}

func countPages(ctx context.Context, t *testing.T, c *Conn) int {
	t.Helper()
	res, err := Execute(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" {
			n++
		}
	}
	return n
}
