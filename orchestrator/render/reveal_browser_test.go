//go:build linux

package render

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/internal/testtool"
)

// growingList asks its site for ten more items whenever its end comes
// into view.
const growingList = `<!doctype html><html><head><title>List</title>
<style>body { margin: 0 } li { height: 150px }</style></head><body><ul id="list"></ul><div id="end" style="height: 10px"></div>
<script>
let part = 0, busy = false;
const end = document.getElementById("end"), list = document.getElementById("list");
async function next() {
  if (busy) return;
  busy = true;
  for (const t of await (await fetch("/items?part=" + part++)).json()) {
    const li = document.createElement("li"); li.textContent = t; list.append(li);
  }
  busy = false;
  if (end.getBoundingClientRect().top < innerHeight) next();
}
new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) next(); }).observe(end);
</script></body></html>`

// The scroll-through pauses at the end of a list whose next part is on
// its way, and its caller then looks at the page's network. The caller
// reads the time of the scroll off its own clock, a message late, so a
// part that ends just then may look to it as asked for before the scroll:
// told to finish, the step resumes when a part the page asked its site
// for came while it was paused, and finishes when none came.
func TestTheScrollThroughResumesForAPartThatCameWhileItWasPaused(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser's tests do not run with -short")
	}
	t.Parallel()
	ws, _ := testtool.StartChromium(t, testtool.ChromiumPath(t), "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--disable-dev-shm-usage", "--remote-debugging-port=0")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := cdp.Dial(ctx, ws, cdp.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()

	for _, c := range []struct {
		name string
		// comes: the held part comes while the step is paused.
		comes bool
		want  func(items int) bool
	}{
		{"a part that came while it was paused", true, func(n int) bool { return n > 20 }},
		{"no part came", false, func(n int) bool { return n == 10 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/items" {
					w.Header().Set("content-type", "text/html")
					fmt.Fprint(w, growingList)
					return
				}
				// The second part waits for the test.
				p, _ := strconv.Atoi(r.URL.Query().Get("part"))
				if p == 1 {
					select {
					case <-release:
					case <-r.Context().Done():
						return
					}
				}
				items := make([]string, 10)
				for i := range items {
					items[i] = fmt.Sprintf("Item %d", p*10+i+1)
				}
				w.Header().Set("content-type", "application/json")
				_ = json.NewEncoder(w).Encode(items)
			}))
			released := false
			defer func() {
				if !released {
					close(release)
				}
				srv.Close()
			}()

			sess := openPage(ctx, t, conn, srv.URL)
			count := func() (n int) {
				if err := evaluate(ctx, sess, `document.querySelectorAll("li").length`, &n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			waitFor(t, func() bool { return count() == 10 }, "the list's first part")

			opts, _ := json.Marshal(map[string]any{
				"budget": 20000, "settle": 0, "minText": 200, "bottom": 6000, "grown": false, "doc": 0,
				"step": 400, "frame": 1000, "tail": 100, "calm": 250, "site": "127.0.0.1", "ask": true,
			})
			var out revealed
			if err := evaluate(ctx, sess, fmt.Sprintf("(%s)(%s)", revealJS, opts), &out); err != nil {
				t.Fatal(err)
			}
			if !out.Paused || out.Changed {
				t.Fatalf("the step did not pause at the end of the list for its part on the way: %+v", out)
			}
			if c.comes {
				close(release)
				released = true
				waitFor(t, func() bool { return count() == 20 }, "the part that came")
			}
			out = revealed{}
			if err := evaluate(ctx, sess, "globalThis.revealer.finish()", &out); err != nil {
				t.Fatal(err)
			}
			if n := count(); out.Paused || !c.want(n) {
				t.Errorf("told to finish, the step left the list with %d items: %+v", n, out)
			}
		})
	}
}

// openPage opens url in a browser context of its own and waits for its
// load event.
func openPage(ctx context.Context, t *testing.T, conn *cdp.Conn, url string) *cdp.Session {
	t.Helper()
	bc, err := cdp.Execute(ctx, conn.Browser(), target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = cdp.Execute(context.Background(), conn.Browser(), target.DisposeBrowserContext,
			target.DisposeBrowserContextParams{BrowserContextID: bc.BrowserContextID})
	})
	tg, err := cdp.Execute(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := conn.Attach(ctx, tg.TargetID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.Execute(ctx, sess, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	loads, stop := sess.Subscribe(page.LoadEventFired.Method)
	defer stop()
	if nav, err := cdp.Execute(ctx, sess, page.Navigate, page.NavigateParams{URL: url}); err != nil || nav.ErrorText != "" {
		t.Fatalf("navigating to the test page: %v %+v", err, nav)
	}
	select {
	case <-loads:
	case <-ctx.Done():
		t.Fatal("the test page did not load")
	}
	return sess
}

// waitFor polls ok for up to ten seconds.
func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited ten seconds for %s", what)
		}
	}
}
