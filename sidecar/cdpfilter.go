package sidecar

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/glimpse/glimpse/metrics"
)

// The DevTools endpoint is a filter, not a pipe: a caller that holds the
// token could otherwise drive Chromium past the egress guard (a browser
// context with a proxy of its own), read the sidecar's files (file: URLs,
// download paths), or stop the browser. Each command a client sends is read
// and passes only when its method is one the orchestrator uses, with the
// parameters it uses; anything else is answered with a DevTools error by the
// sidecar and never reaches Chromium. What Chromium sends back passes as it
// is: replies and events carry no orders.

// CDP error codes of the answers to refused commands, as Chromium's own
// dispatcher uses them.
const (
	cdpMethodNotFound = -32601
	cdpInvalidParams  = -32602
	cdpParseError     = -32700
)

// refusal is why a command was not passed on.
type refusal struct {
	reason  string // one of metrics.CDPRefusalReasons
	code    int
	message string
}

// command is the part of a client's message the filter reads on every
// message. Decoding into it validates the whole message (the JSON layer
// refuses duplicate names and invalid UTF-8, and matches names by exact
// case, so Chromium cannot read a different method or parameter from the
// same bytes) but copies none of the parameters.
type command struct {
	ID        *int64 `json:"id"`
	SessionID string `json:"sessionId"`
	Method    string `json:"method"`
}

// paramCheck judges the parameters of one allowed method; msg is the whole
// message, whose params it decodes as it needs.
type paramCheck func(f *cdpFilter, msg []byte) *refusal

// allowedMethods is every DevTools method the orchestrator, its pool and
// the cdp package send through a sidecar. A nil check passes any
// parameters: those methods act only on a page the caller already drives
// with scripts, so no parameter of theirs reaches further than the page.
// Methods that act on the browser take only the parameters the pool sends.
var allowedMethods = map[string]paramCheck{
	// The browser: leases and their teardown (pool), the version probe.
	"Browser.getVersion":           onlyKeys(),
	"Browser.setDownloadBehavior":  checkDownloadBehavior,
	"Target.createBrowserContext":  checkCreateBrowserContextUpstream,
	"Target.createTarget":          checkCreateTarget,
	"Target.attachToTarget":        onlyKeys("targetId", "flatten"),
	"Target.detachFromTarget":      onlyKeys("sessionId"),
	"Target.disposeBrowserContext": onlyKeys("browserContextId"),
	"Target.getBrowserContexts":    onlyKeys(),
	"Target.getTargets":            onlyKeys("filter"),

	// A page, with a parameter that could reach past it: where it goes.
	"Page.navigate":         checkNavigate,
	"Fetch.continueRequest": checkContinueRequest,
	// A world of the data rules' own beside the page's scripts: never
	// with universal access, which would let a script in it read any
	// origin, nor with a policy of its own.
	"Page.createIsolatedWorld": onlyKeys("frameId", "worldName"),
	// The names of the cookies of the page itself, for
	// insights.technologies: never of URLs the caller names.
	"Network.getCookies": onlyKeys(),

	// A page only: the render's steps (orchestrator).
	"Page.enable":                                 nil,
	"Page.stopLoading":                            nil,
	"Page.handleJavaScriptDialog":                 nil,
	"Page.getLayoutMetrics":                       nil,
	"Page.captureScreenshot":                      nil,
	"Page.printToPDF":                             nil,
	"IO.read":                                     nil,
	"IO.close":                                    nil,
	"Network.enable":                              nil,
	"Fetch.enable":                                nil,
	"Fetch.failRequest":                           nil,
	"Fetch.disable":                               nil,
	"Runtime.evaluate":                            nil,
	"Runtime.releaseObjectGroup":                  nil,
	"DOMDebugger.getEventListeners":               nil,
	"Input.dispatchMouseEvent":                    nil,
	"Emulation.setDeviceMetricsOverride":          nil,
	"Emulation.setEmulatedMedia":                  nil,
	"Emulation.setScriptExecutionDisabled":        nil,
	"Emulation.setTouchEmulationEnabled":          nil,
	"Emulation.setUserAgentOverride":              nil,
	"Emulation.setDefaultBackgroundColorOverride": nil,
}

// AllowedCDPMethods returns the DevTools methods the sidecar passes to
// Chromium, sorted.
func AllowedCDPMethods() []string {
	out := make([]string, 0, len(allowedMethods))
	for m := range allowedMethods {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// cdpFilter judges the commands of every client of one sidecar and counts
// what it refused.
type cdpFilter struct {
	// proxies are the proxyServer values a browser context may name: the
	// sidecar's own egress guard, filtered or not, as the pool names them.
	proxies []string
	// contextProxy, when set, is the proxyServer given to every browser
	// context created without one: the egress guard, while Chromium's own
	// proxy refuses everything.
	contextProxy string
	refused      [len(metrics.CDPRefusalReasons)]atomic.Int64
	// upstream opens the guard's route through a caller's proxy; nil: a
	// context may not name one. unfiltered is the proxyServer of the
	// guard without the ad-block list.
	upstream   func(proxy string, unfiltered bool) (string, error)
	unfiltered string
}

// routeContextsTo makes every browser context created without a proxy use
// the guard at addr, when on.
func (f *cdpFilter) routeContextsTo(addr string, on bool) *cdpFilter {
	if on && addr != "" {
		f.contextProxy = "http://" + addr
	}
	return f
}

// routed is a Target.createBrowserContext the filter passed, with the
// guard named as its proxy when it names none; any other message is
// returned as it is.
func (f *cdpFilter) routed(method string, msg []byte) []byte {
	if out, ok := f.routedUpstream(method, msg); ok {
		return out
	}
	if f.contextProxy == "" || method != "Target.createBrowserContext" {
		return msg
	}
	var c struct {
		ID        int64  `json:"id"`
		SessionID string `json:"sessionId,omitempty"`
		Method    string `json:"method"`
		Params    struct {
			DisposeOnDetach *bool  `json:"disposeOnDetach,omitempty"`
			ProxyServer     string `json:"proxyServer,omitempty"`
			ProxyBypassList string `json:"proxyBypassList,omitempty"`
		} `json:"params"`
	}
	if err := jsonv2.Unmarshal(msg, &c); err != nil || c.Params.ProxyServer != "" {
		return msg
	}
	c.Params.ProxyServer = f.contextProxy
	c.Params.ProxyBypassList = "<-loopback>"
	out, err := jsonv2.Marshal(c)
	if err != nil {
		return msg
	}
	return out
}

func newCDPFilter(proxyAddrs ...string) *cdpFilter {
	f := &cdpFilter{}
	for _, a := range proxyAddrs {
		if a != "" {
			f.proxies = append(f.proxies, "http://"+a)
		}
	}
	return f
}

// check reads one client message. It returns the answer to send back
// instead of passing the message on, or nil to pass it on unchanged.
func (f *cdpFilter) check(msg []byte) (answer []byte, r *refusal, method string) {
	var c command
	if err := jsonv2.Unmarshal(msg, &c); err != nil || c.ID == nil || c.Method == "" {
		r = &refusal{reason: metrics.CDPRefusedMalformed, code: cdpParseError,
			message: "glimpse's sidecar passes only DevTools commands: JSON objects with an integer id and a method"}
		f.count(r)
		if c.ID == nil || err != nil {
			return errorAnswer(nil, "", r), r, ""
		}
		return errorAnswer(c.ID, c.SessionID, r), r, ""
	}
	check, ok := allowedMethods[c.Method]
	if !ok {
		r = &refusal{reason: metrics.CDPRefusedMethod, code: cdpMethodNotFound,
			message: fmt.Sprintf("'%s' is not allowed by glimpse's sidecar: it passes only the DevTools methods glimpse uses", clip(c.Method))}
	} else if check != nil {
		r = check(f, msg)
	}
	if r == nil {
		return nil, nil, c.Method
	}
	f.count(r)
	return errorAnswer(c.ID, c.SessionID, r), r, c.Method
}

// refuseBinary answers a binary message: Chromium would read one as a
// CBOR-encoded command, which the filter does not read.
func (f *cdpFilter) refuseBinary() ([]byte, *refusal) {
	r := &refusal{reason: metrics.CDPRefusedMalformed, code: cdpParseError,
		message: "glimpse's sidecar passes only DevTools commands as JSON text messages, not binary ones"}
	f.count(r)
	return errorAnswer(nil, "", r), r
}

func (f *cdpFilter) count(r *refusal) {
	for i, reason := range metrics.CDPRefusalReasons {
		if reason == r.reason {
			f.refused[i].Add(1)
			return
		}
	}
}

// Refusals returns how many commands were refused, by reason.
func (f *cdpFilter) Refusals() map[string]int64 {
	out := make(map[string]int64, len(metrics.CDPRefusalReasons))
	for i, reason := range metrics.CDPRefusalReasons {
		out[reason] = f.refused[i].Load()
	}
	return out
}

// errorAnswer is the DevTools error reply to a refused command, shaped like
// Chromium's own so that any client reports it as a failed call.
func errorAnswer(id *int64, sessionID string, r *refusal) []byte {
	b := make([]byte, 0, 96+len(r.message))
	b = append(b, '{')
	if id != nil {
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, *id, 10)
		b = append(b, ',')
	}
	if sessionID != "" {
		b = append(b, `"sessionId":`...)
		b = appendJSONString(b, sessionID)
		b = append(b, ',')
	}
	b = append(b, `"error":{"code":`...)
	b = strconv.AppendInt(b, int64(r.code), 10)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, r.message)
	return append(b, "}}"...)
}

func appendJSONString(b []byte, s string) []byte {
	enc, err := jsonv2.Marshal(s)
	if err != nil {
		// s came out of a decoded message or out of this file, so it is
		// valid UTF-8; this is only a fallback.
		return append(b, `""`...)
	}
	return append(b, enc...)
}

// clip keeps a caller's method name from making the answer or a log line
// arbitrarily long.
func clip(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}

// paramsOf decodes the params of msg into a T.
func paramsOf[T any](msg []byte) (T, error) {
	var m struct {
		Params T `json:"params"`
	}
	err := jsonv2.Unmarshal(msg, &m)
	return m.Params, err
}

// onlyKeys passes a command whose params name no key outside keys.
func onlyKeys(keys ...string) paramCheck {
	return func(_ *cdpFilter, msg []byte) *refusal { return unknownKey(msg, keys...) }
}

func unknownKey(msg []byte, keys ...string) *refusal {
	params, err := paramsOf[map[string]jsonv2.Value](msg)
	if err != nil {
		return badParams("its params are not a JSON object")
	}
	for k := range params {
		known := false
		for _, want := range keys {
			if k == want {
				known = true
				break
			}
		}
		if !known {
			return badParams(fmt.Sprintf("parameter '%s' is not allowed", clip(k)))
		}
	}
	return nil
}

func badParams(why string) *refusal {
	return &refusal{reason: metrics.CDPRefusedParams, code: cdpInvalidParams,
		message: "glimpse's sidecar refused the command: " + why}
}

// checkCreateBrowserContext allows a context that uses the browser's own
// proxy, or one of the sidecar's egress guards with loopback not exempt:
// any other proxyServer would send the context's traffic around the guard.
func checkCreateBrowserContext(f *cdpFilter, msg []byte) *refusal {
	if r := unknownKey(msg, "disposeOnDetach", "proxyServer", "proxyBypassList"); r != nil {
		return r
	}
	p, err := paramsOf[struct {
		ProxyServer     string `json:"proxyServer"`
		ProxyBypassList string `json:"proxyBypassList"`
	}](msg)
	if err != nil {
		return badParams("its params do not have the types Target.createBrowserContext takes")
	}
	proxyRefusal := func(why string) *refusal {
		return &refusal{reason: metrics.CDPRefusedProxy, code: cdpInvalidParams,
			message: "glimpse's sidecar refused a browser context with " + why + ": every connection of the browser goes through the sidecar's egress guard"}
	}
	if p.ProxyServer == "" {
		if p.ProxyBypassList != "" {
			return proxyRefusal("a proxy bypass list")
		}
		return nil
	}
	known := false
	for _, allowed := range f.proxies {
		if p.ProxyServer == allowed {
			known = true
			break
		}
	}
	if !known {
		return proxyRefusal("a proxy of its own")
	}
	// Without "<-loopback>" Chromium would connect to loopback directly,
	// around the guard.
	if p.ProxyBypassList != "<-loopback>" {
		return proxyRefusal("a proxy bypass list other than <-loopback>")
	}
	return nil
}

// checkDownloadBehavior allows denying downloads, which the orchestrator
// does for every context, and nothing that writes files.
func checkDownloadBehavior(_ *cdpFilter, msg []byte) *refusal {
	if r := unknownKey(msg, "behavior", "browserContextId", "downloadPath"); r != nil {
		return r
	}
	p, err := paramsOf[struct {
		Behavior     string `json:"behavior"`
		DownloadPath string `json:"downloadPath"`
	}](msg)
	if err != nil {
		return badParams("its params do not have the types Browser.setDownloadBehavior takes")
	}
	if p.Behavior != "deny" || p.DownloadPath != "" {
		return &refusal{reason: metrics.CDPRefusedDownload, code: cdpInvalidParams,
			message: "glimpse's sidecar only denies downloads: behavior must be \"deny\", without a downloadPath"}
	}
	return nil
}

// checkCreateTarget allows a blank page, which the pool opens, or an http(s)
// one, in no window of its own.
func checkCreateTarget(_ *cdpFilter, msg []byte) *refusal {
	if r := unknownKey(msg, "url", "browserContextId"); r != nil {
		return r
	}
	p, err := paramsOf[struct {
		URL string `json:"url"`
	}](msg)
	if err != nil {
		return badParams("its params do not have the types Target.createTarget takes")
	}
	if p.URL == "about:blank" || isWebURL(p.URL) {
		return nil
	}
	return schemeRefusal()
}

func checkNavigate(_ *cdpFilter, msg []byte) *refusal {
	p, err := paramsOf[struct {
		URL string `json:"url"`
	}](msg)
	if err != nil {
		return badParams("its params do not have the types Page.navigate takes")
	}
	if !isWebURL(p.URL) {
		return schemeRefusal()
	}
	return nil
}

func schemeRefusal() *refusal {
	return &refusal{reason: metrics.CDPRefusedURL, code: cdpInvalidParams,
		message: "glimpse's sidecar opens only http and https URLs"}
}

// checkContinueRequest refuses a url: the request would go somewhere the
// page cannot see, which headers and the rest of a paused request cannot do.
func checkContinueRequest(_ *cdpFilter, msg []byte) *refusal {
	p, err := paramsOf[map[string]jsonv2.Value](msg)
	if err != nil {
		return badParams("its params are not a JSON object")
	}
	if _, ok := p["url"]; ok {
		return badParams("parameter 'url' is not allowed: a paused request continues to where it was going")
	}
	return nil
}

// isWebURL reports whether Chromium reads u as an http or https URL. Its
// URL parser first drops leading and trailing C0 controls and spaces and
// every tab and newline, and reads the scheme without regard to case, so
// "\tFILE:" and "fi\nle:" are file URLs to it.
func isWebURL(u string) bool {
	u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(u, "\t\n\r") {
		u = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, u)
	}
	scheme, _, ok := strings.Cut(u, ":")
	return ok && (asciiEqualFold(scheme, "http") || asciiEqualFold(scheme, "https"))
}

// asciiEqualFold is strings.EqualFold for ASCII only: Unicode folding would
// match letters (such as the Kelvin sign for k) that a URL scheme cannot hold.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
