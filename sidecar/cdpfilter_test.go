package sidecar

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/glimpse/glimpse/metrics"
)

// The egress guard's addresses as the filter under test knows them.
const (
	testGuard      = "127.0.0.1:8118"
	testUnfiltered = "127.0.0.1:8119"
)

// message encodes a command as the cdp package does.
func message(t testing.TB, id int64, session, method string, params any) []byte {
	t.Helper()
	raw, err := jsonv2.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonv2.Marshal(struct {
		ID        int64        `json:"id"`
		SessionID string       `json:"sessionId,omitzero"`
		Method    string       `json:"method"`
		Params    jsonv2.Value `json:"params"`
	}{id, session, method, raw})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFilterPassesWhatGlimpseSends(t *testing.T) {
	f := newCDPFilter(testGuard, testUnfiltered)
	yes := true
	deny := browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: "CTX"}
	tests := []struct {
		name   string
		method string
		params any
	}{
		{"the pool's browser context passes", target.CommandCreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: &yes}},
		{"the pool's unfiltered browser context passes", target.CommandCreateBrowserContext,
			target.CreateBrowserContextParams{DisposeOnDetach: &yes, ProxyServer: "http://" + testUnfiltered, ProxyBypassList: "<-loopback>"}},
		{"the pool's blank page passes", target.CommandCreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: "CTX"}},
		{"attaching a flattened session passes", target.CommandAttachToTarget, target.AttachToTargetParams{TargetID: "T", Flatten: &yes}},
		{"detaching passes", target.CommandDetachFromTarget, target.DetachFromTargetParams{SessionID: "S"}},
		{"disposing a context passes", target.CommandDisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: "CTX"}},
		{"listing targets passes", target.CommandGetTargets, target.GetTargetsParams{}},
		{"listing contexts passes", target.CommandGetBrowserContexts, cdproto.Empty{}},
		{"the version probe passes", browser.CommandGetVersion, cdproto.Empty{}},
		{"denying downloads passes", browser.CommandSetDownloadBehavior, deny},
		{"navigating to https passes", page.CommandNavigate, page.NavigateParams{URL: "https://example.com/a?b#c"}},
		{"navigating to http on loopback passes (the guard decides)", page.CommandNavigate, page.NavigateParams{URL: "http://127.0.0.1:8080/"}},
		{"navigating to HTTPS in capitals passes", page.CommandNavigate, page.NavigateParams{URL: "HTTPS://EXAMPLE.COM/"}},
		{"the page events are switched on", page.CommandEnable, page.EnableParams{}},
		{"network events are switched on", network.CommandEnable, network.EnableParams{}},
		{"the page's own cookies are listed", network.CommandGetCookies, network.GetCookiesParams{}},
		{"a load is stopped", page.CommandStopLoading, cdproto.Empty{}},
		{"a dialog is dismissed", page.CommandHandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}},
		{"the layout is measured", page.CommandGetLayoutMetrics, cdproto.Empty{}},
		{"a screenshot is taken", page.CommandCaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}},
		{"a PDF is streamed", page.CommandPrintToPDF, page.PrintToPDFParams{TransferMode: page.PrintToPDFTransferModeReturnAsStream}},
		{"a stream is read", cdpio.CommandRead, cdpio.ReadParams{Handle: "H", Size: 1 << 20}},
		{"a stream is closed", cdpio.CommandClose, cdpio.CloseParams{Handle: "H"}},
		{"a script runs in the page", runtime.CommandEvaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: &yes}},
		{"a world of its own is made for the data rules", page.CommandCreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: "F", WorldName: "glimpse-data"}},
		{"a data rule's script runs in its world, bounded", runtime.CommandEvaluate,
			runtime.EvaluateParams{Expression: "1", ContextID: 7, ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes, Timeout: 1000}},
		{"requests are paused to add headers", fetch.CommandEnable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}},
		{"a paused request continues with headers", fetch.CommandContinueRequest,
			fetch.ContinueRequestParams{RequestID: "R", Headers: []*fetch.HeaderEntry{{Name: "Cookie", Value: "a=b"}}}},
		{"pausing ends", fetch.CommandDisable, cdproto.Empty{}},
		{"a click is dispatched", input.CommandDispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMousePressed, X: 1, Y: 2}},
		{"the viewport is emulated", emulation.CommandSetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 800, DeviceScaleFactor: 1}},
		{"the media type is emulated", emulation.CommandSetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}},
		{"scripts are switched off", emulation.CommandSetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}},
		{"touch is emulated", emulation.CommandSetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true}},
		{"the user agent is set", emulation.CommandSetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: "glimpse"}},
		{"the background is made transparent", "Emulation.setDefaultBackgroundColorOverride", map[string]any{"color": map[string]int{"r": 0, "g": 0, "b": 0, "a": 0}}},
		{"the page's window is named for its listeners", runtime.CommandEvaluate, runtime.EvaluateParams{Expression: "window", ObjectGroup: "g"}},
		{"the window's scroll listeners are read", "DOMDebugger.getEventListeners", map[string]any{"objectId": "1.2.3", "depth": 1, "pierce": true}},
		{"the objects named are released", runtime.CommandReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: "g"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answer, r, method := f.check(message(t, 9, "S1", tc.method, tc.params))
			if r != nil || answer != nil {
				t.Fatalf("%s was refused: %s %s", tc.method, r.message, answer)
			}
			if method != tc.method {
				t.Errorf("the filter read the method %q, want %q", method, tc.method)
			}
		})
	}
	for _, n := range f.Refusals() {
		if n != 0 {
			t.Errorf("refusals were counted for allowed commands: %v", f.Refusals())
			break
		}
	}
}

func TestFilterRefusesWhatGlimpseDoesNotSend(t *testing.T) {
	yes := true
	type params = map[string]any
	tests := []struct {
		name   string
		raw    string // the whole message, when set
		method string
		params any
		reason string
	}{
		// A browser context around the egress guard.
		{name: "a browser context with a proxy of its own is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": "http://10.0.0.9:3128", "proxyBypassList": "<-loopback>"}, reason: metrics.CDPRefusedProxy},
		{name: "a browser context with a SOCKS proxy is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": "socks5://127.0.0.1:1080"}, reason: metrics.CDPRefusedProxy},
		{name: "a browser context that connects directly is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": "direct://"}, reason: metrics.CDPRefusedProxy},
		{name: "the guard's address spelled differently is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": testGuard, "proxyBypassList": "<-loopback>"}, reason: metrics.CDPRefusedProxy},
		{name: "the guard with a bypass list that skips it is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": "http://" + testGuard, "proxyBypassList": "*"}, reason: metrics.CDPRefusedProxy},
		{name: "the guard without <-loopback>, so loopback goes direct, is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": "http://" + testUnfiltered}, reason: metrics.CDPRefusedProxy},
		{name: "a bypass list alone is refused", method: "Target.createBrowserContext",
			params: params{"proxyBypassList": "*"}, reason: metrics.CDPRefusedProxy},
		{name: "a context with universal network access is refused", method: "Target.createBrowserContext",
			params: params{"disposeOnDetach": true, "originsWithUniversalNetworkAccess": []string{"http://a.test"}}, reason: metrics.CDPRefusedParams},
		{name: "a proxy given as a number is refused", method: "Target.createBrowserContext",
			params: params{"proxyServer": 3128}, reason: metrics.CDPRefusedParams},

		{name: "cookies of URLs the caller names are refused", method: "Network.getCookies",
			params: params{"urls": []string{"https://bank.example/"}}, reason: metrics.CDPRefusedParams},

		// Files.
		{name: "allowing downloads into a path is refused", method: "Browser.setDownloadBehavior",
			params: params{"behavior": "allow", "downloadPath": "/var/run/secrets"}, reason: metrics.CDPRefusedDownload},
		{name: "allowing and naming downloads is refused", method: "Browser.setDownloadBehavior",
			params: params{"behavior": "allowAndName", "downloadPath": "/tmp"}, reason: metrics.CDPRefusedDownload},
		{name: "denying with a download path is refused", method: "Browser.setDownloadBehavior",
			params: params{"behavior": "deny", "downloadPath": "/tmp"}, reason: metrics.CDPRefusedDownload},
		{name: "the default download behavior is refused", method: "Browser.setDownloadBehavior",
			params: params{"behavior": "default"}, reason: metrics.CDPRefusedDownload},
		{name: "download events are refused", method: "Browser.setDownloadBehavior",
			params: params{"behavior": "deny", "eventsEnabled": true}, reason: metrics.CDPRefusedParams},
		{name: "the page's download behavior is refused", method: "Page.setDownloadBehavior",
			params: params{"behavior": "allow", "downloadPath": "/tmp"}, reason: metrics.CDPRefusedMethod},

		// Schemes.
		{name: "navigating to a file is refused", method: "Page.navigate",
			params: params{"url": "file:///var/run/secrets/kubernetes.io/serviceaccount/token"}, reason: metrics.CDPRefusedURL},
		{name: "a file URL in capitals is refused", method: "Page.navigate", params: params{"url": "FILE:///etc/passwd"}, reason: metrics.CDPRefusedURL},
		{name: "a file URL behind blanks and a tab is refused", method: "Page.navigate", params: params{"url": " \tfile:///etc/passwd"}, reason: metrics.CDPRefusedURL},
		{name: "a newline inside the scheme does not make it http", method: "Page.navigate", params: params{"url": "fi\nle:///etc/passwd"}, reason: metrics.CDPRefusedURL},
		{name: "a tab inside http does not hide another scheme", method: "Page.navigate", params: params{"url": "ht\ttps-x://a"}, reason: metrics.CDPRefusedURL},
		{name: "a Kelvin sign is not a k", method: "Page.navigate", params: params{"url": "https\u212a://a"}, reason: metrics.CDPRefusedURL},
		{name: "javascript: is refused", method: "Page.navigate", params: params{"url": "javascript:alert(1)"}, reason: metrics.CDPRefusedURL},
		{name: "data: is refused", method: "Page.navigate", params: params{"url": "data:text/html,hi"}, reason: metrics.CDPRefusedURL},
		{name: "view-source of http is refused", method: "Page.navigate", params: params{"url": "view-source:http://a.test/"}, reason: metrics.CDPRefusedURL},
		{name: "chrome: pages are refused", method: "Page.navigate", params: params{"url": "chrome://settings"}, reason: metrics.CDPRefusedURL},
		{name: "about:blank as a navigation is refused (glimpse only opens it)", method: "Page.navigate", params: params{"url": "about:blank"}, reason: metrics.CDPRefusedURL},
		{name: "a navigation without a URL is refused", method: "Page.navigate", params: params{}, reason: metrics.CDPRefusedURL},
		{name: "a page on a file is refused", method: "Target.createTarget", params: params{"url": "file:///etc/passwd"}, reason: metrics.CDPRefusedURL},
		{name: "a page on about:srcdoc is refused", method: "Target.createTarget", params: params{"url": "about:srcdoc"}, reason: metrics.CDPRefusedURL},
		{name: "a page in a new window is refused", method: "Target.createTarget", params: params{"url": "about:blank", "newWindow": true}, reason: metrics.CDPRefusedParams},
		{name: "a paused request sent elsewhere is refused", method: "Fetch.continueRequest",
			params: params{"requestId": "R", "url": "file:///etc/passwd"}, reason: metrics.CDPRefusedParams},

		// Methods glimpse never sends.
		{name: "exposing the protocol to a page is refused", method: "Target.exposeDevToolsProtocol", params: params{"targetId": "T"}, reason: metrics.CDPRefusedMethod},
		{name: "closing the browser is refused", method: "Browser.close", params: params{}, reason: metrics.CDPRefusedMethod},
		{name: "crashing the browser is refused", method: "Browser.crash", params: params{}, reason: metrics.CDPRefusedMethod},
		{name: "crashing the GPU process is refused", method: "Browser.crashGpuProcess", params: params{}, reason: metrics.CDPRefusedMethod},
		{name: "reading system information is refused", method: "SystemInfo.getInfo", params: params{}, reason: metrics.CDPRefusedMethod},
		{name: "listing processes is refused", method: "SystemInfo.getProcessInfo", params: params{}, reason: metrics.CDPRefusedMethod},
		{name: "binding a port with tethering is refused", method: "Tethering.bind", params: params{"port": 9222}, reason: metrics.CDPRefusedMethod},
		{name: "a message to a target that the filter cannot read is refused", method: "Target.sendMessageToTarget",
			params: params{"message": `{"id":1,"method":"Browser.close"}`}, reason: metrics.CDPRefusedMethod},
		{name: "a session on the browser target is refused", method: "Target.attachToBrowserTarget", params: params{}, reason: metrics.CDPRefusedMethod},
		{name: "a flattened session with unknown options is refused", method: "Target.attachToTarget",
			params: params{"targetId": "T", "flatten": yes, "waitForDebuggerOnStart": true}, reason: metrics.CDPRefusedParams},
		{name: "an isolated world with universal access is refused", method: "Page.createIsolatedWorld",
			params: params{"frameId": "F", "grantUniveralAccess": true}, reason: metrics.CDPRefusedParams},
		{name: "an isolated world with a policy of its own is refused", method: "Page.createIsolatedWorld",
			params: params{"frameId": "F", "contentSecurityPolicy": "script-src *"}, reason: metrics.CDPRefusedParams},
		{name: "a method with a different case is not the allowed one", method: "page.navigate", params: params{"url": "https://a.test"}, reason: metrics.CDPRefusedMethod},

		// Messages Chromium might read differently from the filter.
		{name: "a second method name is refused, whichever came first",
			raw: `{"id":1,"method":"Page.enable","method":"Browser.close"}`, reason: metrics.CDPRefusedMalformed},
		{name: "a second url in the params is refused",
			raw: `{"id":1,"method":"Page.navigate","params":{"url":"https://a.test","url":"file:///etc/passwd"}}`, reason: metrics.CDPRefusedMalformed},
		{name: "a method name in another case beside the right one is ignored by both, and the right one is judged",
			raw: `{"id":1,"Method":"Page.enable","method":"Browser.close"}`, reason: metrics.CDPRefusedMethod},
		{name: "invalid UTF-8 is refused", raw: "{\"id\":1,\"method\":\"Page.navigate\",\"params\":{\"url\":\"https://a.test/\xff\"}}", reason: metrics.CDPRefusedMalformed},
		{name: "a message without an id is refused", raw: `{"method":"Page.enable"}`, reason: metrics.CDPRefusedMalformed},
		{name: "a fractional id is refused", raw: `{"id":1.5,"method":"Page.enable"}`, reason: metrics.CDPRefusedMalformed},
		{name: "a message without a method is refused", raw: `{"id":4}`, reason: metrics.CDPRefusedMalformed},
		{name: "an array is refused", raw: `[{"id":1,"method":"Page.enable"}]`, reason: metrics.CDPRefusedMalformed},
		{name: "trailing data after the command is refused", raw: `{"id":1,"method":"Page.enable"}{"id":2,"method":"Browser.close"}`, reason: metrics.CDPRefusedMalformed},
		{name: "params that are not an object are refused", raw: `{"id":1,"method":"Target.getTargets","params":[1]}`, reason: metrics.CDPRefusedParams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newCDPFilter(testGuard, testUnfiltered)
			msg := []byte(tc.raw)
			if tc.raw == "" {
				msg = message(t, 77, "SESSION", tc.method, tc.params)
			}
			answer, r, _ := f.check(msg)
			if r == nil {
				t.Fatalf("%s passed the filter", msg)
			}
			if r.reason != tc.reason {
				t.Errorf("refused for %q (%s), want %q", r.reason, r.message, tc.reason)
			}
			if got := f.Refusals()[tc.reason]; got != 1 {
				t.Errorf("the %q refusal was counted %d times, want once", tc.reason, got)
			}
			var reply struct {
				ID        *int64 `json:"id"`
				SessionID string `json:"sessionId"`
				Error     struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := jsonv2.Unmarshal(answer, &reply); err != nil {
				t.Fatalf("the answer %q is not JSON: %v", answer, err)
			}
			if reply.Error.Code == 0 || reply.Error.Message == "" {
				t.Errorf("the answer %s is not a DevTools error", answer)
			}
			if tc.raw == "" && (reply.ID == nil || *reply.ID != 77 || reply.SessionID != "SESSION") {
				t.Errorf("the answer %s does not carry the command's id and session", answer)
			}
		})
	}
}

func TestAllowedCDPMethodsIsSorted(t *testing.T) {
	got := AllowedCDPMethods()
	if len(got) != len(allowedMethods) {
		t.Fatalf("%d methods listed, %d allowed", len(got), len(allowedMethods))
	}
	for i := 1; i < len(got); i++ {
		if got[i-1] >= got[i] {
			t.Fatalf("not sorted at %q, %q", got[i-1], got[i])
		}
	}
}

// BenchmarkFilter measures the cost the filter adds to each command, for
// the messages a render sends most and its largest one.
func BenchmarkFilter(b *testing.B) {
	f := newCDPFilter(testGuard, testUnfiltered)
	script := strings.Repeat("document.querySelectorAll('meta');", (64<<10)/34)
	for _, bc := range []struct {
		name string
		msg  []byte
	}{
		{"small command", message(b, 1234, "9F8E7D6C5B4A39281706F5E4D3C2B1A0", "Page.stopLoading", cdproto.Empty{})},
		{"navigation", message(b, 1234, "9F8E7D6C5B4A39281706F5E4D3C2B1A0", "Page.navigate", page.NavigateParams{URL: "https://example.com/some/article?id=42"})},
		{"browser context", message(b, 1234, "", "Target.createBrowserContext", target.CreateBrowserContextParams{ProxyServer: "http://" + testUnfiltered, ProxyBypassList: "<-loopback>"})},
		{"64 KiB script", message(b, 1234, "9F8E7D6C5B4A39281706F5E4D3C2B1A0", "Runtime.evaluate", runtime.EvaluateParams{Expression: script})},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.msg)))
			b.ReportAllocs()
			for b.Loop() {
				if _, r, _ := f.check(bc.msg); r != nil {
					b.Fatal(fmt.Sprint(r.message))
				}
			}
		})
	}
}
