package orchestrator

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"golang.org/x/net/publicsuffix"

	"github.com/glimpse/glimpse/cdp"
)

// adblockHostsText is the embedded list; adblock/README.md says where it
// comes from and how to update it.
//
//go:embed adblock/hosts.txt
var adblockHostsText string

// adblockTestHosts are hosts added to the list by tests, which serve
// their "ads" from names such as `tracker.localhost` that resolve to
// loopback without DNS: no real list can contain such a name. It is nil
// in the service.
var adblockTestHosts atomic.Pointer[[]string]

// hostList is a set of host suffixes: a listed host blocks itself and
// every name under it.
type hostList struct {
	hosts    map[string]bool
	patterns []*network.BlockPattern // for Network.setBlockedURLs, one per host
	globs    []*fetch.RequestPattern // for Fetch.enable, one per host
}

// adblockHosts is the embedded list, parsed once.
var adblockHosts = sync.OnceValue(func() *hostList {
	l, _ := parseHostList(adblockHostsText)
	return l
})

// parseHostList reads one host per line; blank lines and lines starting
// with # are skipped. Lines that are not host names are returned apart
// (a test keeps the embedded list free of them) and left out.
func parseHostList(text string) (*hostList, []string) {
	l := &hostList{hosts: map[string]bool{}}
	var bad []string
	for line := range strings.Lines(text) {
		h := strings.ToLower(strings.TrimSpace(line))
		if h == "" || strings.HasPrefix(h, "#") {
			continue
		}
		if !isListHost(h) {
			bad = append(bad, h)
			continue
		}
		if !l.hosts[h] {
			l.hosts[h] = true
			l.patterns = append(l.patterns, &network.BlockPattern{URLPattern: hostPattern(h), Block: true})
			l.globs = append(l.globs, hostGlob(h))
		}
	}
	return l, bad
}

// isListHost accepts lower-case DNS names of two labels or more. The
// name goes into URL patterns unescaped, so nothing else may pass.
func isListHost(h string) bool {
	if len(h) > 253 || !strings.Contains(h, ".") {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// hostPattern is a URLPattern matching every URL on host and its
// subdomains, on any scheme and port. Chromium's URLPattern syntax leaves
// out a port that is not named, so `:*` is needed for a non-default port.
func hostPattern(host string) string {
	return "*://{*.}?" + host + ":*/*"
}

// hostGlob pauses every request whose URL mentions host after the
// scheme. It catches more than the host and its subdomains (a path or a
// query naming it too); the paused request's host decides.
func hostGlob(host string) *fetch.RequestPattern {
	return &fetch.RequestPattern{URLPattern: "*://*" + host + "*", RequestStage: fetch.RequestStageRequest}
}

// blocks reports whether host or one of its parents is listed.
func (l *hostList) blocks(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for host != "" {
		if l.hosts[host] {
			return true
		}
		_, parent, ok := strings.Cut(host, ".")
		if !ok {
			return false
		}
		host = parent
	}
	return false
}

// adblockRules are the list as it applies to one target: the embedded
// hosts and any test hosts, except the target's own site when it is
// listed, so that a listed company's own home page still renders.
type adblockRules struct {
	list  *hostList
	extra []string
	spare string // the target's registrable domain when listed; "" otherwise
}

func newAdblockRules(target *url.URL) adblockRules {
	r := adblockRules{list: adblockHosts()}
	if p := adblockTestHosts.Load(); p != nil {
		r.extra = *p
	}
	host := strings.TrimSuffix(strings.ToLower(target.Hostname()), ".")
	if r.listed(host) && net.ParseIP(host) == nil && isListHost(host) {
		site, err := publicsuffix.EffectiveTLDPlusOne(host)
		if err != nil || !isListHost(site) {
			site = host
		}
		r.spare = site
	}
	return r
}

func (r adblockRules) listed(host string) bool {
	if r.list.blocks(host) {
		return true
	}
	for _, h := range r.extra {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// blocks decides for one request's host.
func (r adblockRules) blocks(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if r.spare != "" && (host == r.spare || strings.HasSuffix(host, "."+r.spare)) {
		return false
	}
	return r.listed(host)
}

// blockPatterns are the rules for Network.setBlockedURLs. The exemption
// comes first, as Chromium applies the first pattern that matches.
func (r adblockRules) blockPatterns() []*network.BlockPattern {
	if r.spare == "" && len(r.extra) == 0 {
		return r.list.patterns
	}
	out := make([]*network.BlockPattern, 0, len(r.list.patterns)+len(r.extra)+1)
	if r.spare != "" {
		out = append(out, &network.BlockPattern{URLPattern: hostPattern(r.spare), Block: false})
	}
	out = append(out, r.list.patterns...)
	for _, h := range r.extra {
		out = append(out, &network.BlockPattern{URLPattern: hostPattern(h), Block: true})
	}
	return out
}

// fetchPatterns are the requests Fetch interception pauses for a decision.
func (r adblockRules) fetchPatterns() []*fetch.RequestPattern {
	if len(r.extra) == 0 {
		return r.list.globs
	}
	out := make([]*fetch.RequestPattern, 0, len(r.list.globs)+len(r.extra))
	out = append(out, r.list.globs...)
	for _, h := range r.extra {
		out = append(out, hostGlob(h))
	}
	return out
}

// blockAds installs the list in the page before it loads. Requests to a
// listed host then fail in the browser (net::ERR_BLOCKED_BY_CLIENT)
// without leaving it.
//
// Chromium takes a long time to install hundreds of Network.setBlockedURLs
// patterns (from tens to hundreds of milliseconds per page on a busy
// machine), and only a few milliseconds for as many Fetch interception
// patterns, which cost a round trip only for the requests they match. So
// Fetch it is, unless forwarding `headers` already owns Fetch for the page
// (fetchOwned): then the blocked URLs. Interception also lets the page
// itself through when the target redirects to a listed host, since the
// caller asked for that page; the blocked URLs cannot tell it apart.
func blockAds(ctx context.Context, sess *cdp.Session, target *url.URL, mainFrame string, fetchOwned bool) error {
	rules := newAdblockRules(target)
	if fetchOwned {
		_, err := cdp.Execute(ctx, sess, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: rules.blockPatterns()})
		return err
	}
	events, cancel := sess.Subscribe("Fetch.requestPaused")
	if _, err := cdp.Execute(ctx, sess, fetch.Enable, fetch.EnableParams{Patterns: rules.fetchPatterns()}); err != nil {
		cancel()
		return err
	}
	// The loop ends when the page's session does, with the lease.
	go func() {
		defer cancel()
		for raw := range events {
			var ev fetch.EventRequestPaused
			if jsonv2.Unmarshal(raw, &ev) != nil || ev.Request == nil {
				continue
			}
			u, err := url.Parse(ev.Request.URL)
			blocked := err == nil && rules.blocks(u.Hostname()) &&
				!(ev.ResourceType == network.ResourceTypeDocument && string(ev.FrameID) == mainFrame)
			// Answered off this loop so one slow reply never holds the
			// other paused requests of the page.
			go func() {
				actx, acancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer acancel()
				if blocked {
					_, _ = cdp.Execute(actx, sess, fetch.FailRequest, fetch.FailRequestParams{
						RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient,
					})
					return
				}
				_, _ = cdp.Execute(actx, sess, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			}()
		}
	}()
	return nil
}

// consentCSS hides the banners and overlays of the common consent
// managers when a page hosts their script itself, so the blocked hosts
// do not catch it: OneTrust, Cookiebot, Quantcast Choice, TrustArc,
// Didomi, Usercentrics, Sourcepoint, consentmanager, Cookie Script,
// CookieYes, iubenda, Osano, Complianz and Google Funding Choices. It
// also gives back the scrolling that some of them lock while they show.
const consentCSS = `
#onetrust-consent-sdk, #onetrust-banner-sdk, #onetrust-pc-sdk, .onetrust-pc-dark-filter,
#CybotCookiebotDialog, #CybotCookiebotDialogBodyUnderlay,
#qc-cmp2-container, .qc-cmp2-container, #qcCmpUi, .qc-cmp-ui-container,
#truste-consent-track, #truste-consent-content, #consent_blackbar, .truste_overlay, .truste_box_overlay, #trustarc-banner-overlay,
#didomi-host, #didomi-notice, #didomi-popup, .didomi-popup-backdrop,
#usercentrics-root, #usercentrics-cmp-ui,
div[id^="sp_message_container_"],
#cmpbox, #cmpbox2, .cmpboxBG,
#cookiescript_injected, #cookiescript_injected_wrapper,
.cky-consent-container, .cky-overlay, .cky-modal,
#iubenda-cs-banner,
.osano-cm-window, .osano-cm-dialog,
#cmplz-cookiebanner-container, .cmplz-cookiebanner,
.fc-consent-root, .fc-ab-root {
  display: none !important;
}
html.sp-message-open, body.didomi-popup-open, body.qc-cmp-showing {
  overflow: auto !important;
}
`

// adoptStyleSheet adds css to the document as a constructed stylesheet:
// it styles the page, its PDF and its screenshot without adding a node,
// so the DOM that metadata and data rules read stays the page's own.
// Constructed stylesheets also work when JavaScript is off and are not
// subject to the page's Content-Security-Policy.
func adoptStyleSheet(ctx context.Context, sess *cdp.Session, css string) error {
	js := fmt.Sprintf(`((css) => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return true;
})(%s)`, jsString(css))
	var ok bool
	return evaluate(ctx, sess, js, &ok)
}
