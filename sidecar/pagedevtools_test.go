package sidecar

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/gorilla/websocket"

	"github.com/glimpse/glimpse/cdp"
)

func TestPageTargetIDs(t *testing.T) {
	cases := []struct {
		id string
		ok bool
	}{
		{"9A3F1C0DE2B4A6C8E0F1D2C3B4A5F6E7", true},
		{"abc123", true},
		{"", false},
		{strings.Repeat("A", 65), false},
		{"..", false},
		{"A/B", false},
		{"A%2FB", false},
		{"A?x=1", false},
		{"A\x00", false},
	}
	for _, tc := range cases {
		if got := validTargetID(tc.id); got != tc.ok {
			t.Errorf("validTargetID(%q) = %v, want %v", tc.id, got, tc.ok)
		}
	}
}

func TestPageEndpointIsDerivedFromTheBrowsers(t *testing.T) {
	got, err := pageEndpoint("ws://127.0.0.1:40123/devtools/browser/5c1e", "ABC")
	if err != nil || got != "ws://127.0.0.1:40123/devtools/page/ABC" {
		t.Errorf("pageEndpoint = %q, %v; want ws://127.0.0.1:40123/devtools/page/ABC", got, err)
	}
	if _, err := pageEndpoint("ws://127.0.0.1:40123/other", "ABC"); err == nil {
		t.Error("pageEndpoint accepted an address that is not a browser endpoint")
	}
}

// A page's own connection reaches that page, passes the filter, carries
// no browser-level command, and a reply over its read limit ends it alone.
func TestAPagesOwnConnectionThroughTheSidecar(t *testing.T) {
	_, srv := startSidecar(t, Config{})
	browser := dialDevTools(t, srv.URL)
	id := createPage(t, browser)
	pageURL := "ws" + strings.TrimPrefix(srv.URL, "http") + "/devtools/page/" + string(id)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pc, err := cdp.Dial(ctx, pageURL, cdp.WithPageTarget(id), cdp.WithReadLimit(64<<10))
	if err != nil {
		t.Fatalf("connecting to the page's own endpoint: %v", err)
	}
	defer pc.Close()
	page := pc.Browser()

	t.Run("a command for the page reaches it", func(t *testing.T) {
		res, err := cdp.Execute(ctx, page, runtime.Evaluate, runtime.EvaluateParams{Expression: "6*7"})
		if err != nil || res.Result == nil || string(res.Result.Value) != "42" {
			t.Fatalf("Runtime.evaluate on the page's connection = %+v, %v; want 42", res, err)
		}
	})
	t.Run("a browser-level command is refused on the page's connection", func(t *testing.T) {
		_, err := cdp.Execute(ctx, page, target.CreateBrowserContext, target.CreateBrowserContextParams{})
		var e *cdp.Error
		if !errors.As(err, &e) || e.Code != cdpMethodNotFound || !strings.Contains(e.Message, "/devtools/browser") {
			t.Fatalf("Target.createBrowserContext on a page's connection = %v, want the sidecar's refusal", err)
		}
	})
	t.Run("the filter applies on the page's connection", func(t *testing.T) {
		err := page.Call(ctx, "Page.navigate", map[string]string{"url": "file:///etc/passwd"}, nil)
		var e *cdp.Error
		if !errors.As(err, &e) {
			t.Fatalf("navigating the page to a file: URL = %v, want the sidecar's refusal", err)
		}
	})
	t.Run("a reply over the read limit ends the page's connection and not the browser's", func(t *testing.T) {
		_, err := cdp.Execute(ctx, page, runtime.Evaluate, runtime.EvaluateParams{Expression: `"x".repeat(200000)`})
		if !errors.Is(err, cdp.ErrMessageTooLarge) {
			t.Fatalf("a 200 kB reply on a 64 kB limit = %v, want ErrMessageTooLarge", err)
		}
		res, err := cdp.Execute(ctx, browser.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			t.Fatalf("the browser's connection failed after the page's ended: %v", err)
		}
		found := false
		for _, ti := range res.TargetInfos {
			found = found || ti.TargetID == id
		}
		if !found {
			t.Error("the page is gone after its connection ended; only the connection should have")
		}
	})

	for _, tc := range []struct {
		name, id string
		status   int
	}{
		{"an id that is not one is refused", "not-an-id", http.StatusBadRequest},
		{"a page Chromium does not have is not found", strings.Repeat("0", 32), http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/devtools/page/"+tc.id, nil)
			if err == nil || resp == nil || resp.StatusCode != tc.status {
				code := 0
				if resp != nil {
					code = resp.StatusCode
				}
				t.Fatalf("dialing /devtools/page/%s answered HTTP %d (%v), want %d", tc.id, code, err, tc.status)
			}
		})
	}
}
