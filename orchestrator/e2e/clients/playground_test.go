package clients_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/internal/testtool"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// The playground, used as a person uses it: a Chromium of the test's own
// (not the sidecar's, whose guard keeps pages away from glimpse's API)
// opens glimpse, types a loopback URL, switches the PDF on with the
// keyboard, presses Fetch, and waits for the card, the screenshot, the
// PDF and the Markdown. Any console error, uncaught exception or CSP
// violation fails the test. GLIMPSE_ARTIFACTS names a directory for the
// page's screenshots (default: the test's temporary directory).

// envArtifacts names where tests leave what a person should look at.
const envArtifacts = "GLIMPSE_ARTIFACTS"

func TestPlaygroundInChromium(t *testing.T) {
	app := e2e.StartApp(t, nil)
	ps := mcpPages(t)
	tab := openTab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	tab.call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": false})
	tab.call(ctx, "Page.navigate", map[string]any{"url": app.URL() + "/"})
	tab.waitFor(ctx, "the page to load with the URL field focused", `document.readyState === 'complete' && document.activeElement && document.activeElement.id === 'url'`)
	tab.check(ctx, "the page's policy is strict", `(() => { const m = document.querySelector('meta[http-equiv]'); return !m })()`)

	target := ps.URL + "/article"
	tab.call(ctx, "Input.insertText", map[string]any{"text": target})
	// Keyboard only: from the URL field, Tab past Fetch, the card and the
	// screenshot switches to the PDF's, and Space turns it on.
	for range 4 {
		tab.key(ctx, "Tab", "Tab", 9, "")
	}
	tab.check(ctx, "Tab reaches the PDF switch", `document.activeElement.id === 'out-pdf'`)
	tab.key(ctx, " ", "Space", 32, " ")
	tab.check(ctx, "Space turns the PDF on", `document.getElementById('out-pdf').checked`)
	tab.click(ctx, "#go")

	tab.waitFor(ctx, "the card", `document.getElementById('card-title').textContent === 'A loopback article' && !document.getElementById('card-section').hidden`)
	tab.waitFor(ctx, "the card's picture and logo, through the API", `(() => { const i = document.getElementById('card-image'), l = document.getElementById('card-logo'); return !i.hidden && i.complete && i.naturalWidth === 120 && !l.hidden && l.complete && l.naturalWidth === 32 && i.src.startsWith('blob:') })()`)
	tab.waitFor(ctx, "the screenshot", `(() => { const i = document.getElementById('screenshot'); return !document.getElementById('screenshot-section').hidden && i.complete && i.naturalWidth === 1280 })()`)
	tab.waitFor(ctx, "the Markdown", `document.getElementById('markdown').textContent.includes('The first paragraph of the article') && document.getElementById('frontmatter').textContent.includes('title: A loopback article')`)
	tab.waitFor(ctx, "the PDF", `!document.getElementById('pdf-section').hidden && document.getElementById('pdf').src.endsWith('.pdf')`)
	tab.waitFor(ctx, "the status", `document.getElementById('status').textContent.startsWith('Done in')`)
	tab.check(ctx, "the card's description", `document.getElementById('card-description').textContent === 'What a page served on loopback says about itself.'`)
	tab.check(ctx, "the raw JSON", `JSON.parse(document.getElementById('json').textContent).data.title === 'A loopback article'`)
	tab.check(ctx, "the curl command", fmt.Sprintf(`document.getElementById('curl').textContent.startsWith("curl -s '%s/?url=%s")`, app.URL(), strings.ReplaceAll(strings.ReplaceAll(target, ":", "%3A"), "/", "%2F")))
	tab.check(ctx, "the mql call", `document.getElementById('mql').textContent.includes('"endpoint": "`+app.URL()+`/"') && document.getElementById('mql').textContent.includes('"markdown": {')`)
	// The curl command is the very request the page made: run, it is
	// answered from the cache with the page's answer.
	var curl string
	tab.eval(ctx, `document.getElementById('curl').textContent.split('\n')[0]`, &curl)
	_, quoted, _ := strings.Cut(curl, "'")
	apiURL, _, _ := strings.Cut(quoted, "'")
	res, err := http.Get(apiURL)
	if err != nil {
		t.Fatal(err)
	}
	var again struct {
		Data struct {
			Title    string `json:"title"`
			Markdown string `json:"markdown"`
		} `json:"data"`
	}
	err = json.NewDecoder(res.Body).Decode(&again)
	res.Body.Close()
	if err != nil || res.Header.Get("x-cache-status") != "HIT" || again.Data.Title != "A loopback article" || !strings.Contains(again.Data.Markdown, "The first paragraph") {
		t.Errorf("the curl command's request (%s) is not the page's: %v, cache %s, %+v", apiURL, err, res.Header.Get("x-cache-status"), again.Data)
	}
	tab.check(ctx, "no error shown", `document.getElementById('error').hidden`)
	// The frame shows the stored PDF in the browser's viewer: a PDF that
	// its server lets be framed.
	var pdfURL string
	tab.eval(ctx, `document.getElementById('pdf').src`, &pdfURL)
	if res, err := http.Get(pdfURL); err != nil {
		t.Error(err)
	} else {
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("content-type") != "application/pdf" || res.Header.Get("x-frame-options") != "" ||
			strings.Contains(res.Header.Get("content-security-policy"), "frame-ancestors") {
			t.Errorf("the framed PDF %s answers %d %v", pdfURL, res.StatusCode, res.Header)
		}
	}
	time.Sleep(300 * time.Millisecond) // late events of the last loads
	tab.noProblems(t)
	tab.shoot(ctx, "playground-light.png")

	// The same page in a dark colour scheme follows it.
	tab.call(ctx, "Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}})
	tab.waitFor(ctx, "the dark colour scheme", `getComputedStyle(document.body).backgroundColor === 'rgb(17, 20, 24)'`)
	tab.shoot(ctx, "playground-dark.png")
	tab.noProblems(t)

	// A failed request shows glimpse's code and message. The browser logs
	// the API's 400 as a failed load; that, and only that, is expected.
	tab.call(ctx, "Runtime.evaluate", map[string]any{"expression": `document.getElementById('url').value = 'no'`})
	tab.click(ctx, "#go")
	tab.waitFor(ctx, "the error", `!document.getElementById('error').hidden && document.getElementById('error-code').textContent === 'EINVALURL'`)
	tab.check(ctx, "the error's message", "document.getElementById('error-message').textContent.startsWith('The URL `no` is not valid')")
	tab.check(ctx, "no stale card", `document.getElementById('card-section').hidden`)
	time.Sleep(300 * time.Millisecond)
	problems := tab.takeProblems()
	for _, p := range problems {
		if !strings.Contains(p, "status of 400") {
			t.Errorf("an error request caused more than its failed load: %s", p)
		}
	}

	// The watch itself works: a picture from another origin is refused by
	// the policy, and that is seen.
	tab.call(ctx, "Runtime.evaluate", map[string]any{"expression": `window.__violations = []; document.body.appendChild(Object.assign(document.createElement('img'), {src: 'http://127.0.0.2:9/elsewhere.png'}))`})
	tab.waitFor(ctx, "the CSP violation to be reported", `window.__violations.length === 1`)
	time.Sleep(300 * time.Millisecond)
	if got := tab.takeProblems(); len(got) == 0 {
		t.Error("a CSP violation went unseen by the console watch")
	}
}

// tab is one page of a Chromium under test, with every console error,
// exception and CSP violation it reports.
type tab struct {
	t        *testing.T
	s        *cdp.Session
	dir      string
	mu       sync.Mutex
	problems []string
}

// openTab starts Chromium on loopback with a profile of its own and opens
// one page, watching its console.
func openTab(t *testing.T) *tab {
	t.Helper()
	ws, _ := testtool.StartChromium(t, "/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := cdp.Dial(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := conn.Browser().Call(ctx, "Target.createTarget", map[string]any{"url": "about:blank"}, &created); err != nil {
		t.Fatal(err)
	}
	s, err := conn.Attach(ctx, target.ID(created.TargetID))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv(envArtifacts)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, s: s, dir: dir}
	events, stop := s.Listen("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")
	t.Cleanup(stop)
	go tb.watch(events)
	for _, m := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		tb.call(ctx, m, nil)
	}
	// A policy violation is an event in the page before it is a console
	// line; both are watched.
	tb.call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI))`})
	return tb
}

func (tb *tab) watch(events <-chan cdp.Event) {
	for ev := range events {
		var problem string
		switch ev.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			if json.Unmarshal(ev.Params, &p) == nil && (p.Type == "error" || p.Type == "assert") {
				var parts []string
				for _, a := range p.Args {
					parts = append(parts, fmt.Sprint(a.Value, a.Description))
				}
				problem = "console." + p.Type + ": " + strings.Join(parts, " ")
			}
		case "Runtime.exceptionThrown":
			var p struct {
				Details struct {
					Text      string `json:"text"`
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			_ = json.Unmarshal(ev.Params, &p)
			problem = "uncaught: " + p.Details.Text + " " + p.Details.Exception.Description
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Source, Level, Text, URL string
				} `json:"entry"`
			}
			if json.Unmarshal(ev.Params, &p) == nil && p.Entry.Level == "error" {
				problem = "log (" + p.Entry.Source + "): " + p.Entry.Text + " " + p.Entry.URL
			}
		}
		if problem != "" {
			tb.mu.Lock()
			tb.problems = append(tb.problems, problem)
			tb.mu.Unlock()
		}
	}
}

func (tb *tab) takeProblems() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	p := tb.problems
	tb.problems = nil
	return p
}

// noProblems fails on anything the console reported and on any CSP
// violation the page saw.
func (tb *tab) noProblems(t *testing.T) {
	t.Helper()
	for _, p := range tb.takeProblems() {
		t.Errorf("the playground reported an error: %s", p)
	}
	var violations []string
	tb.eval(context.Background(), `window.__violations`, &violations)
	for _, v := range violations {
		t.Errorf("the playground broke its Content-Security-Policy: %s", v)
	}
}

func (tb *tab) call(ctx context.Context, method string, params any) {
	tb.t.Helper()
	if err := tb.s.Call(ctx, method, params, nil); err != nil {
		tb.t.Fatalf("%s: %v", method, err)
	}
}

// eval runs expression in the page and decodes its value into out.
func (tb *tab) eval(ctx context.Context, expression string, out any) {
	tb.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := tb.s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		tb.t.Fatalf("evaluating %s: %v", expression, err)
	}
	if r.Exception != nil {
		tb.t.Fatalf("evaluating %s threw: %s", expression, r.Exception.Text)
	}
	if out != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			tb.t.Fatalf("evaluating %s gave %s: %v", expression, r.Result.Value, err)
		}
	}
}

func (tb *tab) check(ctx context.Context, what, expression string) {
	tb.t.Helper()
	var ok bool
	tb.eval(ctx, expression, &ok)
	if !ok {
		tb.t.Errorf("%s: %s is false", what, expression)
	}
}

// waitFor polls expression until it is true, or fails naming what did
// not come, with the page's status and error line.
func (tb *tab) waitFor(ctx context.Context, what, expression string) {
	tb.t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		var ok bool
		tb.eval(ctx, expression, &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var state string
			tb.eval(ctx, `(document.getElementById('status') || {}).textContent + ' | ' + (document.getElementById('error') || {}).textContent`, &state)
			tb.shoot(ctx, "playground-failed.png")
			tb.t.Fatalf("waited 45 s for %s (%s); the page says: %s; problems: %v", what, expression, state, tb.takeProblems())
		}
		time.Sleep(150 * time.Millisecond)
	}
}

func (tb *tab) key(ctx context.Context, key, code string, vk int, text string) {
	tb.t.Helper()
	down := map[string]any{"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
	if text != "" {
		down["text"] = text
	}
	tb.call(ctx, "Input.dispatchKeyEvent", down)
	tb.call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk})
}

// click presses the mouse in the middle of the element, as a person does.
func (tb *tab) click(ctx context.Context, selector string) {
	tb.t.Helper()
	var box struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	tb.eval(ctx, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2} })()`, selector), &box)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		tb.call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": box.X, "y": box.Y, "button": "left", "clickCount": 1})
	}
}

// shoot saves the whole page as a PNG artifact.
func (tb *tab) shoot(ctx context.Context, name string) {
	tb.t.Helper()
	var metrics struct {
		Content struct {
			Width  float64 `json:"width"`
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	if err := tb.s.Call(ctx, "Page.getLayoutMetrics", nil, &metrics); err != nil {
		tb.t.Fatal(err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	clip := map[string]any{"x": 0, "y": 0, "width": metrics.Content.Width, "height": min(metrics.Content.Height, 6000), "scale": 1}
	if err := tb.s.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, &shot); err != nil {
		tb.t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		tb.t.Fatal(err)
	}
	path := filepath.Join(tb.dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("saved the playground's screenshot as %s", path)
}
