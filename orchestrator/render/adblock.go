package render

import (
	"context"
	"fmt"

	"github.com/glimpse/glimpse/cdp"
)

// consentCSS hides the banners and overlays of the common consent
// managers when a page hosts their script itself, so the blocked hosts
// do not catch it: OneTrust, Cookiebot, Quantcast Choice, TrustArc,
// Didomi, Usercentrics, Sourcepoint, consentmanager, Cookie Script,
// CookieYes, iubenda, Osano, Complianz and Google Funding Choices. It
// also gives back the scrolling that some of them lock while they show,
// and shows a page that Google's anti-flicker snippet keeps transparent
// (class async-hide on the root) until a container the list blocks, its
// tag manager's or its optimiser's, has loaded: without this, a capture
// taken before the snippet's own timeout (often 4 s) is blank.
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
html.async-hide {
  opacity: 1 !important;
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
