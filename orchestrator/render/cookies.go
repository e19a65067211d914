package render

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/network"

	"github.com/glimpse/glimpse/cdp"
)

// maxCookieNames bounds the cookie names kept of one page.
const maxCookieNames = 64

// cookieNames adds the names of the cookies the Set-Cookie values set to
// names, each once, within maxCookieNames. Only names are kept: a
// cookie's value may be a credential, and what is built with what shows
// in the name alone.
func cookieNames(names []string, setCookies ...string) []string {
	for _, line := range setCookies {
		for v := range strings.SplitSeq(line, "\n") {
			c, err := http.ParseSetCookie(strings.TrimSpace(v))
			if err != nil {
				continue
			}
			names = addCookieName(names, c.Name)
		}
	}
	return names
}

func addCookieName(names []string, name string) []string {
	if name == "" || len(name) > 128 || len(names) >= maxCookieNames || slices.Contains(names, name) {
		return names
	}
	return append(names, name)
}

// pageCookies adds the names of the cookies the page holds once loaded
// to the response's: those its scripts set (an analytics tag's) as well
// as the server's, which Chromium may keep out of the response event.
// One DevTools call on the page's session; no request leaves the browser.
func pageCookies(ctx context.Context, sess *cdp.Session, resp *Response) {
	if resp == nil {
		return
	}
	res, err := cdp.Execute(ctx, sess, network.GetCookies, network.GetCookiesParams{})
	if err != nil {
		return // the names only add to a detection; the answer goes on without them
	}
	for _, c := range res.Cookies {
		resp.Cookies = addCookieName(resp.Cookies, c.Name)
	}
}
