package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/sidecar/guard/adblock"
)

// adblockTestHosts are hosts added to the list by tests, which serve
// their "ads" from names such as `tracker.localhost` that resolve to
// loopback without DNS: no real list can contain such a name. It is nil
// in the service.
var adblockTestHosts atomic.Pointer[[]string]

// adblockListed reports whether host is on the ad-block list that the
// egress guard of the embedded sidecar applies (with the test hosts).
// Blocking itself happens in the guard: pages rendered with adblock on go
// through its filtered address, those with adblock off through the
// unfiltered one (pool.LeaseOptions).
func adblockListed(host string) bool {
	if adblock.Default().Blocks(host) {
		return true
	}
	if p := adblockTestHosts.Load(); p != nil {
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		for _, h := range *p {
			if host == h || strings.HasSuffix(host, "."+h) {
				return true
			}
		}
	}
	return false
}

// renderUnfiltered decides whether a render's page skips the ad-block
// list: when the caller turned adblock off, and when the target's own host
// is listed, so that a listed company's home page still renders with its
// own assets (nothing is blocked on such a page).
func renderUnfiltered(req *Request) bool {
	return req.Controls.AdblockOff || adblockListed(req.Target.Hostname())
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
