package render

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/glimpse/glimpse/cdp/cdptest"
)

// answer makes the page answer the scripts that hold phrase with reply;
// the others get the defaults.
func answer(phrase string, reply func(c *cdptest.Call)) func(c *cdptest.Call, p evalParams) bool {
	return func(c *cdptest.Call, p evalParams) bool {
		if !strings.Contains(p.Expression, phrase) {
			return false
		}
		reply(c)
		return true
	}
}

// answerWith is answer with one value.
func answerWith(phrase string, v any) func(c *cdptest.Call, p evalParams) bool {
	return answer(phrase, func(c *cdptest.Call) { _ = c.Reply(value(v)) })
}

// paramsSent decodes the params of the first command of method that b
// received.
func paramsSent(t *testing.T, b *scriptedBrowser, method string) map[string]any {
	t.Helper()
	sent := b.sent(method)
	if len(sent) == 0 {
		t.Fatalf("the browser was sent no %s", method)
	}
	return paramsOf[map[string]any](t, sent[0])
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTheDeviceAndMediaAreEmulatedBeforeThePageLoads(t *testing.T) {
	t.Parallel()
	runNavCases(t, []navCase{
		{
			name:  "a device, a dark scheme, no motion and no JavaScript are set up on the page",
			serve: served{}, query: "&device=iPhone%2015&colorScheme=dark&animations=false&javascript=false",
			check: func(t *testing.T, _ rendered, run *navRun) {
				b := run.browsers[0]
				media := jsonOf(paramsSent(t, b, "Emulation.setEmulatedMedia")["features"])
				if media != `[{"name":"prefers-color-scheme","value":"dark"},{"name":"prefers-reduced-motion","value":"reduce"}]` {
					t.Errorf("the media features are %s", media)
				}
				m := paramsSent(t, b, "Emulation.setDeviceMetricsOverride")
				if m["width"] != 393.0 || m["screenWidth"] != 393.0 || m["deviceScaleFactor"] != 3.0 || m["mobile"] != true ||
					jsonOf(m["screenOrientation"]) != `{"angle":0,"type":"portraitPrimary"}` {
					t.Errorf("the device metrics are %s; want the iPhone 15's, upright", jsonOf(m))
				}
				if len(b.sent("Emulation.setTouchEmulationEnabled")) != 1 || len(b.sent("Browser.getVersion")) != 1 {
					t.Error("touch was not enabled, or the browser's version not read for the user agent")
				}
				if ua, _ := paramsSent(t, b, "Emulation.setUserAgentOverride")["userAgent"].(string); !strings.Contains(ua, "iPhone") {
					t.Errorf("the user agent is %q; want the device's", ua)
				}
				if v := jsonOf(paramsSent(t, b, "Emulation.setScriptExecutionDisabled")); v != `{"value":true}` {
					t.Errorf("JavaScript was switched with %s", v)
				}
				for _, m := range b.sent("Runtime.evaluate") {
					if strings.Contains(string(m.Params), "MutationObserver") || strings.Contains(string(m.Params), "2166136261") {
						t.Error("a page without JavaScript was waited on for its scripts")
					}
				}
			},
		},
		{
			name:  "a landscape viewport is turned on its side",
			serve: served{}, query: "&viewport.width=800&viewport.height=400&viewport.isMobile=true&viewport.isLandscape=true",
			check: func(t *testing.T, _ rendered, run *navRun) {
				m := paramsSent(t, run.browsers[0], "Emulation.setDeviceMetricsOverride")
				if m["width"] != 800.0 || jsonOf(m["screenOrientation"]) != `{"angle":90,"type":"landscapePrimary"}` {
					t.Errorf("the device metrics are %s", jsonOf(m))
				}
			},
		},
		{
			name:  "the default viewport is the window's, set on every render",
			serve: served{},
			check: func(t *testing.T, _ rendered, run *navRun) {
				m := paramsSent(t, run.browsers[0], "Emulation.setDeviceMetricsOverride")
				if m["width"] != 1280.0 || m["height"] != 800.0 || m["deviceScaleFactor"] != 1.0 || m["mobile"] != false || m["screenOrientation"] != nil {
					t.Errorf("the device metrics are %s", jsonOf(m))
				}
			},
		},
	})
}

func TestEmulationTheBrowserRefusesIsTheServicesFailure(t *testing.T) {
	t.Parallel()
	const all = "&device=iPhone%2015&javascript=false"
	var cases []navCase
	for method, step := range map[string]string{
		"Emulation.setEmulatedMedia":           "setting the media type",
		"Emulation.setDeviceMetricsOverride":   "setting the viewport",
		"Emulation.setTouchEmulationEnabled":   "enabling touch",
		"Browser.getVersion":                   "reading the browser's version",
		"Emulation.setUserAgentOverride":       "setting the device's user agent",
		"Emulation.setScriptExecutionDisabled": "turning JavaScript off",
	} {
		cases = append(cases, navCase{
			name:  "a refused " + method + " fails the render " + step,
			serve: served{}, query: all,
			setup: func(b *scriptedBrowser) { b.handle(method, cdptest.Error(-32000, "Not allowed")) },
			err:   step,
			check: func(t *testing.T, _ rendered, run *navRun) {
				if len(run.browsers[0].sent("Page.navigate")) != 0 {
					t.Error("the page was navigated although its emulation failed")
				}
			},
		})
	}
	runNavCases(t, cases)
}

func TestTheCallersActionsRunOnTheLoadedPage(t *testing.T) {
	t.Parallel()
	var polls atomic.Int64
	appearsLate := answer(`? "found" : "none"`, func(c *cdptest.Call) {
		if polls.Add(1) < 3 {
			_ = c.Reply(value("none"))
			return
		}
		_ = c.Reply(value("found"))
	})
	var attempts atomic.Int64
	replacedOnce := answer(`? "found" : "none"`, func(c *cdptest.Call) {
		if attempts.Add(1) == 1 {
			_ = c.Fail(-32000, "Execution context was destroyed.")
			return
		}
		_ = c.Reply(value("found"))
	})
	evaluated := func(t *testing.T, b *scriptedBrowser, phrase string) int {
		n := 0
		for _, m := range b.sent("Runtime.evaluate") {
			if strings.Contains(paramsOf[evalParams](t, m).Expression, phrase) {
				n++
			}
		}
		return n
	}
	runNavCases(t, []navCase{
		{
			name:  "waitForSelector looks again until the element is there",
			serve: served{Eval: appearsLate}, query: "&waitForSelector=%23late",
			check: func(t *testing.T, _ rendered, run *navRun) {
				if polls.Load() != 3 || run.took < 2*selectorPoll {
					t.Errorf("the selector was looked for %d times in %v; want three looks, %v apart", polls.Load(), run.took, selectorPoll)
				}
			},
		},
		{name: "waitForSelector looks again in a document that replaced the first", serve: served{Eval: replacedOnce}, query: "&waitForSelector=main"},
		{
			name:  "a waitForSelector the browser cannot parse is the caller's to fix",
			serve: served{Eval: answerWith(`? "found" : "none"`, "syntax")}, query: "&waitForSelector=div%5B",
			kind: BadInput, err: "is not a valid CSS selector",
		},
		{
			name:  "a waitForSelector that never matches ends before the deadline and names the selector",
			serve: served{Eval: answerWith(`? "found" : "none"`, "none")}, query: "&waitForSelector=%23never", limit: 2 * time.Second,
			kind: TimedOut, err: "No element matched `waitForSelector` `#never`",
		},
		{name: "waitForTimeout waits as long as it says", serve: served{}, query: "&waitForTimeout=300ms", check: took(300 * time.Millisecond)},
		{
			name:  "a waitForTimeout longer than the time left ends with ETIMEOUT",
			serve: served{}, query: "&waitForTimeout=10s", limit: 2 * time.Second,
			kind: TimedOut, err: "did not finish `waitForTimeout`",
		},
		{
			name:  "styles are adopted by the page",
			serve: served{}, query: "&styles=body%7Bcolor%3Ared%7D",
			check: func(t *testing.T, _ rendered, run *navRun) {
				if evaluated(t, run.browsers[0], "body{color:red}") != 1 {
					t.Error("the caller's style did not reach the page")
				}
			},
		},
		{
			name:  "styles the page refuses fail the render",
			serve: served{Eval: answer("CSSStyleSheet", func(c *cdptest.Call) { _ = c.Reply(exception("SyntaxError: bad")) })}, query: "&styles=a%7B%7D",
			kind: Unreadable, err: "adding `styles`",
		},
		{
			name:  "scripts run in order with a user gesture",
			serve: served{}, query: "&scripts.0=window.a%3D1&scripts.1=window.b%3D2",
			check: func(t *testing.T, _ rendered, run *navRun) {
				var ran []string
				for _, m := range run.browsers[0].sent("Runtime.evaluate") {
					if p := paramsOf[evalParams](t, m); p.UserGesture {
						ran = append(ran, callerSource(t, p.Expression))
					}
				}
				if strings.Join(ran, ";") != "window.a=1;window.b=2" {
					t.Errorf("the scripts run were %q", ran)
				}
			},
		},
		{
			name:  "a script that throws is the caller's to fix, named by its place in the list",
			serve: served{Eval: answer("window.b", func(c *cdptest.Call) { _ = c.Reply(exception("TypeError: x is undefined\n    at <anonymous>:1:1")) })},
			query: "&scripts.0=window.a%3D1&scripts.1=window.b.x()",
			kind:  BadInput, err: "The script in `scripts.1` failed in the page: `TypeError: x is undefined`;",
		},
		{
			name:  "a script that threw is told by the bounded description the page gives back",
			serve: served{Eval: answer("window.b", func(c *cdptest.Call) { _ = c.Reply(stringValue("!TypeError: x is undefined")) })},
			query: "&scripts.0=window.a%3D1&scripts.1=window.b.x()",
			kind:  BadInput, err: "The script in `scripts.1` failed in the page: `TypeError: x is undefined`;",
		},
		{
			name:  "a script's own value is not an exception, whatever it says",
			serve: served{Eval: answer("window.a", func(c *cdptest.Call) { _ = c.Reply(stringValue("TypeError: a value, not a failure")) })},
			query: "&scripts=window.a",
		},
		{
			name:  "a script that never ends runs into the timeout",
			serve: served{Eval: answer("while", func(*cdptest.Call) {})}, query: "&scripts=while(true)%7B%7D", limit: 2 * time.Second,
			kind: TimedOut, err: "did not finish within the `timeout`",
		},
		{
			name:  "a script the browser refuses is the service's failure",
			serve: served{Eval: answer("window.a", func(c *cdptest.Call) { _ = c.Fail(-32000, "Cannot find default execution context") })},
			query: "&scripts=window.a%3D1",
			err:   "running `scripts`",
		},
		{
			name:  "a visible element is clicked with the mouse at its centre",
			serve: served{}, query: "&click=%23buy",
			check: func(t *testing.T, _ rendered, run *navRun) {
				var kinds []string
				for _, m := range run.browsers[0].sent("Input.dispatchMouseEvent") {
					p := paramsOf[map[string]any](t, m)
					if p["x"] != 40.0 || p["y"] != 30.0 {
						t.Errorf("a mouse event went to %v,%v", p["x"], p["y"])
					}
					kinds = append(kinds, p["type"].(string))
				}
				if strings.Join(kinds, ",") != "mouseMoved,mousePressed,mouseReleased" {
					t.Errorf("the mouse events were %v", kinds)
				}
			},
		},
		{
			name:  "a hidden element gets a click event, not the mouse",
			serve: served{Eval: answerWith("elementFromPoint", map[string]any{"problem": "", "mouse": false})}, query: "&click=%23hidden",
			check: func(t *testing.T, _ rendered, run *navRun) {
				if n := len(run.browsers[0].sent("Input.dispatchMouseEvent")); n != 0 {
					t.Errorf("%d mouse events were sent to a hidden element", n)
				}
			},
		},
		{
			name:  "a click that matches nothing is the caller's to fix",
			serve: served{Eval: answerWith("elementFromPoint", map[string]any{"problem": "none"})}, query: "&click=%23gone",
			kind: BadInput, err: "`click` `#gone` matches no element",
		},
		{
			name:  "a click selector the browser cannot parse is the caller's to fix",
			serve: served{Eval: answerWith("elementFromPoint", map[string]any{"problem": "syntax"})}, query: "&click=a%5B",
			kind: BadInput, err: "`click` `a[` is not a valid CSS selector",
		},
		{
			name:  "a mouse the browser refuses is the service's failure",
			serve: served{}, query: "&click=%23buy",
			setup: func(b *scriptedBrowser) { b.handle("Input.dispatchMouseEvent", cdptest.Error(-32000, "busy")) },
			err:   "clicking `click`",
		},
		{name: "scroll brings the element into view", serve: served{}, query: "&scroll=%23footer"},
		{
			name:  "a scroll that matches nothing is the caller's to fix",
			serve: served{Eval: answerWith(`block: "start"`, "none")}, query: "&scroll=%23gone",
			kind: BadInput, err: "`scroll` `#gone` matches no element",
		},
		{
			name:  "a scroll selector the browser cannot parse is the caller's to fix",
			serve: served{Eval: answerWith(`block: "start"`, "syntax")}, query: "&scroll=a%5B",
			kind: BadInput, err: "is not a valid CSS selector",
		},
		{
			name:  "consent banners are hidden and animations finished before and after the actions",
			serve: served{}, query: "&click=%23buy&animations=false",
			check: func(t *testing.T, _ rendered, run *navRun) {
				b := run.browsers[0]
				if evaluated(t, b, "onetrust") != 1 || evaluated(t, b, "transition: none") != 1 || evaluated(t, b, "getAnimations") != 2 {
					t.Error("the page was not tidied once before the actions, with animations finished again after them")
				}
			},
		},
		{
			name:  "with adblock off consent banners stay",
			serve: served{}, query: "&click=%23buy&adblock=false",
			check: func(t *testing.T, _ rendered, run *navRun) {
				if evaluated(t, run.browsers[0], "onetrust") != 0 {
					t.Error("consent banners were hidden with adblock=false")
				}
			},
		},
		{
			name:  "a page that refuses to be tidied is still captured",
			serve: served{Eval: answer("CSSStyleSheet", func(c *cdptest.Call) { _ = c.Fail(-32000, "no document") })}, query: "&click=%23buy",
		},
	})
}

func TestAPageThatTookTheWholeTimeoutToLoad(t *testing.T) {
	t.Parallel()
	// The navigation answers after the load budget (60 % of the 8 s) and
	// the page never loads, so the request's deadline passes while the page
	// is loading. The margins either side are wide for a loaded machine.
	late := func(b *scriptedBrowser) {
		b.handle("Page.navigate", cdptest.After(5500*time.Millisecond, b.navigate))
	}
	runNavCases(t, []navCase{
		{
			name:  "is read as it is when nothing was asked of it",
			serve: served{NoLoad: true, NoDCL: true}, setup: late, limit: 8 * time.Second,
			check: func(t *testing.T, got rendered, _ *navRun) {
				if !got.page.CutShort || got.page.Doc == nil {
					t.Errorf("the page was cut short %t with a document %v; want it read as it was", got.page.CutShort, got.page.Doc != nil)
				}
			},
		},
		{
			name:  "is not acted on, since the answer would claim the actions happened",
			serve: served{NoLoad: true, NoDCL: true}, setup: late, limit: 8 * time.Second, query: "&click=%23buy",
			kind: TimedOut, err: "leaving no time for",
		},
	})
}

// callerSource is the caller's script inside the expression that runs it
// (callerScript), which it ends as a string literal.
func callerSource(t *testing.T, expr string) string {
	t.Helper()
	i := strings.LastIndex(expr, "})(")
	var src string
	if i < 0 || !strings.HasSuffix(expr, ")") || json.Unmarshal([]byte(expr[i+3:len(expr)-1]), &src) != nil {
		t.Fatalf("the expression does not end with the caller's script as a literal: %q", expr)
	}
	return src
}

// stringValue is Runtime.evaluate's answer for an expression that gave the
// string s.
func stringValue(s string) map[string]any {
	return map[string]any{"result": map[string]any{"type": "string", "value": s}}
}
