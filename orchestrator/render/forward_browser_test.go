package render

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/cdp/cdptest"
)

// paused is Fetch.requestPaused for a request of the page.
func paused(id, url, kind string) map[string]any {
	return map[string]any{"requestId": id, "frameId": pageTarget, "resourceType": kind,
		"request": map[string]any{"url": url, "method": "GET", "headers": map[string]any{"Accept": "*/*", "Cookie": "page=1"},
			"initialPriority": "High", "referrerPolicy": "no-referrer"}}
}

// pausing makes the page's navigation pause the requests first. As in a
// browser, the page loads only once they are answered: the document's
// own request is among them, and the load event waits for the others.
func pausing(requests ...map[string]any) func(b *scriptedBrowser) {
	return func(b *scriptedBrowser) {
		b.handle("Page.navigate", func(c *cdptest.Call) {
			for _, r := range requests {
				_ = c.Event("Fetch.requestPaused", r)
			}
			go func() {
				deadline := time.Now().Add(renderLimit)
				for answers(b) < len(requests) && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				b.navigate(c)
			}()
		})
	}
}

// answers counts the paused requests the browser has heard answered.
func answers(b *scriptedBrowser) int {
	return len(b.sent("Fetch.continueRequest")) + len(b.sent("Fetch.failRequest"))
}

// answered waits until the browser has heard n answers to paused
// requests, which go out on their own goroutines.
func answered(t *testing.T, b *scriptedBrowser, n int) map[string]map[string]any {
	t.Helper()
	deadline := time.Now().Add(renderLimit)
	for {
		out := map[string]map[string]any{}
		for _, method := range []string{"Fetch.continueRequest", "Fetch.failRequest"} {
			for _, m := range b.sent(method) {
				p := paramsOf[map[string]any](t, m)
				p["method"] = method
				out[p["requestId"].(string)] = p
			}
		}
		if len(out) >= n || time.Now().After(deadline) {
			return out
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// headerList is a continued request's headers as "name: value", sorted.
func headerList(p map[string]any) string {
	hs, _ := p["headers"].([]any)
	var out []string
	for _, h := range hs {
		e := h.(map[string]any)
		out = append(out, fmt.Sprint(e["name"], ": ", e["value"]))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

func TestTheCallersHeadersGoToTheTargetsSiteOnly(t *testing.T) {
	t.Parallel()
	runNavCases(t, []navCase{
		{
			name:  "headers go with the target's own site, never to another or over plain http, and pictures are not loaded",
			serve: served{}, query: "&headers.cookie=sid%3D42",
			setup: pausing(
				paused("A", startURL, "Document"),
				paused("B", "https://cdn.example.test/app.js", "Script"),
				paused("C", "https://tracker.other.test/t.js", "Script"),
				paused("D", "http://example.test/insecure", "XHR"),
				paused("E", "https://example.test/hero.png", "Image"),
			),
			check: func(t *testing.T, _ rendered, run *navRun) {
				b := run.browsers[0]
				if p := jsonOf(paramsSent(t, b, "Fetch.enable")["patterns"]); p != `[{"requestStage":"Request","urlPattern":"*"}]` {
					t.Errorf("interception paused %s; want every request", p)
				}
				got := answered(t, b, 5)
				want := map[string]string{
					"A": "Accept: */*; Cookie: sid=42", "B": "Accept: */*; Cookie: sid=42",
					"C": "", "D": "",
				}
				for id, h := range want {
					if p := got[id]; p == nil || p["method"] != "Fetch.continueRequest" || headerList(p) != h {
						t.Errorf("request %s was answered with %s; want it continued with headers %q", id, jsonOf(p), h)
					}
				}
				if p := got["E"]; p == nil || p["method"] != "Fetch.failRequest" || p["errorReason"] != "BlockedByClient" {
					t.Errorf("the picture was answered with %s; want it failed without loading", jsonOf(p))
				}
				if len(b.sent("Fetch.disable")) != 1 {
					t.Error("interception was not ended with the lease")
				}
			},
		},
		{
			name:  "a lean render without headers pauses only what it refuses",
			serve: served{},
			check: func(t *testing.T, _ rendered, run *navRun) {
				p := jsonOf(paramsSent(t, run.browsers[0], "Fetch.enable")["patterns"])
				for _, kind := range []string{"Image", "Media", "Font"} {
					if !strings.Contains(p, `"resourceType":"`+kind+`"`) {
						t.Errorf("interception paused %s; want %s refused", p, kind)
					}
				}
				if strings.Contains(p, `"urlPattern":"*","requestStage"`) || strings.Count(p, "urlPattern") != 3 {
					t.Errorf("interception paused %s; want the three refused types only", p)
				}
			},
		},
		{
			name:  "a render for pixels without headers pauses nothing",
			serve: served{}, query: "&screenshot",
			setup: func(b *scriptedBrowser) {
				b.handle("Page.captureScreenshot", cdptest.Result(`{"data":"iVBORw0KGgo="}`))
			},
			check: func(t *testing.T, _ rendered, run *navRun) {
				if n := len(run.browsers[0].sent("Fetch.enable")); n != 0 {
					t.Errorf("interception was enabled %d times", n)
				}
			},
		},
		{
			name:  "more paused requests than a subscription holds are all answered",
			serve: served{}, query: "&headers.authorization=Bearer%20t", limit: 20 * time.Second,
			setup: func(b *scriptedBrowser) {
				var many []map[string]any
				for i := range 400 {
					many = append(many, paused(fmt.Sprint("P", i), fmt.Sprintf("https://example.test/p/%d", i), "XHR"))
				}
				pausing(many...)(b)
			},
			check: func(t *testing.T, _ rendered, run *navRun) {
				if got := answered(t, run.browsers[0], 400); len(got) != 400 {
					t.Errorf("%d of 400 paused requests were answered; a paused request waits forever", len(got))
				}
			},
		},
		{
			name:  "interception the browser refuses is the service's failure",
			serve: served{},
			setup: func(b *scriptedBrowser) {
				b.handle("Fetch.enable", cdptest.Error(-32000, "Fetch domain is not available"))
			},
			err: "intercepting the page's requests",
		},
	})
}
