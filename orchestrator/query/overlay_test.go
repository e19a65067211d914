package query

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

func overlayShot(typ string, quality int, browser, background string) func(*testing.T, *Request) {
	return wantShot(ScreenshotOptions{Type: typ, Quality: quality, Overlay: Overlay{Browser: browser, Background: background}})
}

var overlayCases = []requestCase{
	{name: "overlay.browser=light turns the screenshot on with a light window", query: "screenshot.overlay.browser=light",
		check: overlayShot("png", 0, "light", "")},
	{name: "overlay.browser is read in any case and trimmed", query: "screenshot.overlay.browser=+DARK+",
		check: overlayShot("png", 0, "dark", "")},
	{name: "a hex background, sent percent-encoded", query: "screenshot.overlay.background=%23c1c1c1",
		check: overlayShot("png", 0, "", "#c1c1c1")},
	{name: "a hex background in capitals is kept in lower case", query: "screenshot.overlay.background=%23C1C1C1",
		check: overlayShot("png", 0, "", "#c1c1c1")},
	{name: "a short hex background", query: "screenshot.overlay.background=%23abc", check: overlayShot("png", 0, "", "#abc")},
	{name: "a hex background with alpha", query: "screenshot.overlay.background=%23c1c1c180", check: overlayShot("png", 0, "", "#c1c1c180")},
	{name: "an rgb() background", query: "screenshot.overlay.background=rgb(193,+193,+193)", check: overlayShot("png", 0, "", "rgb(193, 193, 193)")},
	{name: "an rgba() background", query: "screenshot.overlay.background=rgba(0,0,0,0.5)", check: overlayShot("png", 0, "", "rgba(0,0,0,0.5)")},
	{name: "an rgb() background in space syntax", query: "screenshot.overlay.background=rgb(10+20+30+%2F+50%25)",
		check: overlayShot("png", 0, "", "rgb(10 20 30 / 50%)")},
	{name: "a named colour", query: "screenshot.overlay.background=RebeccaPurple", check: overlayShot("png", 0, "", "rebeccapurple")},
	{name: "transparent", query: "screenshot.overlay.background=transparent", check: overlayShot("png", 0, "", "transparent")},
	{name: "Microlink's documented gradient with a dark browser",
		query: "screenshot.overlay.background=linear-gradient(225deg%2C%20%23FF057C%200%25%2C%20%238D0B93%2050%25%2C%20%23321575%20100%25)&screenshot.overlay.browser=dark",
		check: overlayShot("png", 0, "dark", "linear-gradient(225deg, #ff057c 0%, #8d0b93 50%, #321575 100%)")},
	{name: "a gradient towards a side", query: "screenshot.overlay.background=linear-gradient(to+right,red,blue)",
		check: overlayShot("png", 0, "", "linear-gradient(to right,red,blue)")},
	{name: "a radial gradient", query: "screenshot.overlay.background=radial-gradient(circle+at+top+left,%23fff,%23000)",
		check: overlayShot("png", 0, "", "radial-gradient(circle at top left,#fff,#000)")},
	{name: "an image URL background, normalised", query: "screenshot.overlay.background=HTTPS%3A%2F%2FExample.COM%2Fbg.png",
		check: overlayShot("png", 0, "", "https://example.com/bg.png")},
	{name: "overlay with jpeg keeps its quality", query: "screenshot.type=jpeg&screenshot.quality=60&screenshot.overlay.browser=light",
		check: overlayShot("jpeg", 60, "light", "")},
	{name: "a browser on a named colour", query: "screenshot.overlay.browser=dark&screenshot.overlay.background=white",
		check: overlayShot("png", 0, "dark", "white")},

	{name: "an unknown browser is refused", query: "screenshot.overlay.browser=blue", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.browser", msg: []string{"`light` or `dark`", "got `blue`"}},
	{name: "an empty browser is refused", query: "screenshot.overlay.browser=", code: apierr.CodeInvalidQuery, param: "screenshot.overlay.browser"},
	{name: "an empty background is refused", query: "screenshot.overlay.background=", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"is empty"}},
	{name: "an unknown colour name is refused", query: "screenshot.overlay.background=blurple", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`blurple`", "not a colour"}},
	{name: "a hex colour of the wrong length is refused", query: "screenshot.overlay.background=%23c1c1c", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"not a hex colour"}},
	{name: "a hex colour with a non-hex digit is refused", query: "screenshot.overlay.background=%23c1c1cg", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"not a hex colour"}},
	{name: "an rgb() with two channels is refused", query: "screenshot.overlay.background=rgb(1,2)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"not an rgb() colour"}},
	{name: "an rgb() with a word is refused", query: "screenshot.overlay.background=rgb(1,2,x)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background"},
	{name: "an unsupported colour function is refused", query: "screenshot.overlay.background=hsl(0,0%25,50%25)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`hsl()`"}},
	{name: "a gradient with one stop is refused", query: "screenshot.overlay.background=linear-gradient(90deg,red)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"at least two"}},
	{name: "a gradient with a bad angle is refused", query: "screenshot.overlay.background=linear-gradient(90degrees,red,blue)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`90degrees`"}},
	{name: "a gradient with a bad direction is refused", query: "screenshot.overlay.background=linear-gradient(to+middle,red,blue)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`to middle`"}},
	{name: "a gradient stop in pixels is refused", query: "screenshot.overlay.background=linear-gradient(red+10px,blue)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"percentages"}},
	{name: "a gradient with a bad colour is refused", query: "screenshot.overlay.background=linear-gradient(red,nocolour)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`nocolour`"}},
	{name: "an unclosed gradient is refused", query: "screenshot.overlay.background=linear-gradient(red,blue", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background"},
	{name: "a conic gradient is refused", query: "screenshot.overlay.background=conic-gradient(red,blue)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`conic-gradient()`"}},
	{name: "a radial size in pixels is refused", query: "screenshot.overlay.background=radial-gradient(circle+40px,red,blue)", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background"},
	{name: "a background URL that is not http(s) is refused", query: "screenshot.overlay.background=file%3A%2F%2F%2Fetc%2Fpasswd", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"`file`", "http or https"}},
	{name: "a data: URL background is refused", query: "screenshot.overlay.background=data%3Aimage%2Fpng%3Bbase64%2CAAAA", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"http or https"}},
	{name: "an http URL without a host is refused", query: "screenshot.overlay.background=http%3A%2F%2F", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"not a usable image URL"}},
	{name: "a huge background is refused", query: "screenshot.overlay.background=%23" + repeat("a", 5000), code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay.background", msg: []string{"up to 4096 bytes"}},
	{name: "webp with an overlay is refused", query: "screenshot.type=webp&screenshot.overlay.browser=dark", code: apierr.CodeInvalidQuery,
		param: "screenshot.type", msg: []string{"png", "jpeg"}},
	{name: "an overlay beside screenshot=false is a contradiction", query: "screenshot=false&screenshot.overlay.browser=dark", code: apierr.CodeInvalidQuery,
		param: "screenshot"},
	{name: "a bare overlay is not an option", query: "screenshot.overlay=dark", code: apierr.CodeInvalidQuery,
		param: "screenshot.overlay", msg: []string{"not a screenshot option"}},
}

func repeat(s string, n int) string {
	b := make([]byte, 0, len(s)*n)
	for range n {
		b = append(b, s...)
	}
	return string(b)
}

func TestParseRequestReadsTheOverlay(t *testing.T) {
	checkRequestCases(t, overlayCases)
}

func TestABackgroundURLsUserInfoIsMaskedInTheRefusal(t *testing.T) {
	cases := []struct{ name, background, secret string }{
		{"a user and password", "https://ada:s3cr3t@example.com/bg.png", "s3cr3t"},
		{"a token as the user", "http://tok-9f86d0@example.com/bg.png", "tok-9f86d0"},
		{"an at sign inside the password", "https://ada:p@ss@example.com/bg.png", "p@ss"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(exampleTarget+"&screenshot.overlay.background="+url.QueryEscape(tc.background), Limits{})
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != apierr.CodeInvalidQuery || e.Param != "screenshot.overlay.background" {
				t.Fatalf("gave %v, want EINVALQUERY naming screenshot.overlay.background", err)
			}
			if strings.Contains(e.Message, tc.secret) || strings.Contains(fmt.Sprint(e.Data), tc.secret) {
				t.Errorf("the refusal repeats %q: %s %v", tc.secret, e.Message, e.Data)
			}
			if !strings.Contains(e.Message, "***@example.com") || strings.Contains(e.Message, "headers.") {
				t.Errorf("the refusal says %q; want the URL masked, and no advice to send credentials a background fetch never carries", e.Message)
			}
		})
	}
}
