package render

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// Wall is a bot wall that answered instead of the page: a challenge, a
// CAPTCHA or a block by the vendor named.
type Wall struct {
	Vendor  string   // one of WallVendors
	Status  int      // the status the wall answered with
	Signals []string // what gave it away, for the log
}

// The vendors a wall is attributed to. The list is closed, so the metric
// that counts walls by vendor has bounded labels; "captcha" is a CAPTCHA
// page of no known bot-management vendor.
const (
	VendorAkamai      = "akamai"
	VendorAWSWAF      = "aws-waf"
	VendorCloudflare  = "cloudflare"
	VendorDataDome    = "datadome"
	VendorImperva     = "imperva"
	VendorKasada      = "kasada"
	VendorPerimeterX  = "perimeterx"
	VendorVercel      = "vercel"
	VendorDDoSGuard   = "ddos-guard"
	VendorCaptcha     = "captcha"
	wallScoreRequired = 3
)

// WallVendors lists every vendor a Wall may name: the vendor label's
// values of the metric that counts walls.
var WallVendors = metrics.WallVendors

// VendorName is how a message names a vendor.
func VendorName(v string) string {
	switch v {
	case VendorAkamai:
		return "Akamai"
	case VendorAWSWAF:
		return "AWS WAF"
	case VendorCloudflare:
		return "Cloudflare"
	case VendorDataDome:
		return "DataDome"
	case VendorImperva:
		return "Imperva (Incapsula)"
	case VendorKasada:
		return "Kasada"
	case VendorPerimeterX:
		return "PerimeterX (HUMAN)"
	case VendorVercel:
		return "Vercel"
	case VendorDDoSGuard:
		return "DDoS-Guard"
	}
	return "a CAPTCHA"
}

// A wall is decided by a score: each signal adds its weight, to a vendor
// when it names one. Only a score of wallScoreRequired with a vendor
// makes a wall, so no single weak sign does: a page served by Cloudflare
// carries __cf_bm, an article may mention Cloudflare or embed a
// newsletter's reCAPTCHA, a login form may hold a CAPTCHA. What a page
// says about itself (its title, its scripts) only counts when the page
// has almost nothing else to say: a wall is a thin page.
type wallScore struct {
	total    int
	byVendor map[string]int
	signals  []string
}

func (s *wallScore) add(weight int, vendor, signal string) {
	s.total += weight
	if vendor != "" {
		if s.byVendor == nil {
			s.byVendor = map[string]int{}
		}
		s.byVendor[vendor] += weight
	}
	s.signals = append(s.signals, signal)
}

// vendor is the vendor with the most weight; ties go to the first in
// WallVendors' order, except that a CAPTCHA vendor yields to any
// bot-management vendor seen beside it.
func (s *wallScore) vendor() string {
	best, bestScore := "", 0
	for _, v := range WallVendors {
		w := s.byVendor[v]
		if v == VendorCaptcha && len(s.byVendor) > 1 {
			continue
		}
		if w > bestScore {
			best, bestScore = v, w
		}
	}
	return best
}

// headerSignal is a response header whose presence (with the value
// matching, when one is given) marks a vendor's block or challenge.
type headerSignal struct {
	name, value string // value "" matches any value; compared case-insensitively as a substring
	vendor      string
	weight      int
}

var headerSignals = []headerSignal{
	// Answers that say outright that the request was challenged.
	{"cf-mitigated", "challenge", VendorCloudflare, 3},
	{"x-vercel-mitigated", "challenge", VendorVercel, 3},
	{"x-vercel-mitigated", "deny", VendorVercel, 3},
	{"x-amzn-waf-action", "challenge", VendorAWSWAF, 3},
	{"x-amzn-waf-action", "captcha", VendorAWSWAF, 3},
	{"x-datadome", "protected", VendorDataDome, 2},
	{"x-dd-b", "", VendorDataDome, 1},
	{"x-kpsdk-ct", "", VendorKasada, 2},
	{"x-kpsdk-cd", "", VendorKasada, 1},
	{"x-iinfo", "", VendorImperva, 1},
	{"x-cdn", "incapsula", VendorImperva, 1},
	{"x-px", "", VendorPerimeterX, 1},
}

// serverSignals are `server` values of a vendor's edge: a sign only on a
// refusal, since the same edge serves the site's ordinary pages.
var serverSignals = []struct{ value, vendor string }{
	{"cloudflare", VendorCloudflare},
	{"akamaighost", VendorAkamai},
	{"akamai", VendorAkamai},
	{"ddos-guard", VendorDDoSGuard},
	{"datadome", VendorDataDome},
	{"awselb", VendorAWSWAF},
}

// cookieSignals are the cookies a vendor's bot management sets, by name
// or name prefix. They come with every page of a protected site, so they
// only name the vendor; they never make a wall alone.
var cookieSignals = []struct {
	prefix string
	exact  bool
	vendor string
}{
	{"__cf_bm", true, VendorCloudflare},
	{"cf_clearance", true, VendorCloudflare},
	{"cf_chl_", false, VendorCloudflare},
	{"datadome", true, VendorDataDome},
	{"_px", false, VendorPerimeterX},
	{"ak_bmsc", true, VendorAkamai},
	{"bm_sz", true, VendorAkamai},
	{"_abck", true, VendorAkamai},
	{"incap_ses_", false, VendorImperva},
	{"visid_incap_", false, VendorImperva},
	{"reese84", true, VendorImperva},
	{"aws-waf-token", true, VendorAWSWAF},
	{"kp_uidz", false, VendorKasada},
	{"__ddg", false, VendorDDoSGuard},
	{"_vcrcs", true, VendorVercel},
}

// resourceSignals are addresses of challenge and CAPTCHA code in the
// document's scripts, frames and forms.
var resourceSignals = []struct{ needle, vendor string }{
	{"/cdn-cgi/challenge-platform/", VendorCloudflare},
	{"/cdn-cgi/l/chk_", VendorCloudflare},
	{"captcha-delivery.com", VendorDataDome},
	{"px-captcha", VendorPerimeterX},
	{"px-cdn.net", VendorPerimeterX},
	{"perimeterx.net", VendorPerimeterX},
	{"/_incapsula_resource", VendorImperva},
	{"awswaf.com", VendorAWSWAF},
	{"/ips.js", VendorKasada},
	{"ddos-guard.net", VendorDDoSGuard},
	{"/.well-known/vercel/security/", VendorVercel},
}

// captchaSignals are CAPTCHA widgets: their scripts and their mount
// points. A widget is no wall on a page with content of its own.
var captchaSignals = []string{
	"hcaptcha.com", "google.com/recaptcha", "recaptcha.net", "gstatic.com/recaptcha",
	"challenges.cloudflare.com/turnstile", "arkoselabs.com", "funcaptcha.com", "geetest.com",
	"friendlycaptcha", "captcha.px-cdn.net",
}

var captchaMounts = `.h-captcha, .g-recaptcha, .cf-turnstile, #px-captcha, .frc-captcha, #captcha-container, [data-sitekey]`

// wallTitles are titles of challenge and block pages; a vendor when the
// title names one. Compared in lower case, with the ellipsis spelled out.
var wallTitles = []struct {
	re     *regexp.Regexp
	vendor string
}{
	{regexp.MustCompile(`^just a moment(\.\.\.|…)?$`), ""},
	{regexp.MustCompile(`^attention required! \| cloudflare$`), VendorCloudflare},
	{regexp.MustCompile(`cloudflare$`), VendorCloudflare},
	{regexp.MustCompile(`^vercel security checkpoint$`), VendorVercel},
	{regexp.MustCompile(`^access to this page has been denied\.?$`), ""},
	{regexp.MustCompile(`^pardon our interruption\.?$`), VendorImperva},
	{regexp.MustCompile(`^ddos-guard$`), VendorDDoSGuard},
	{regexp.MustCompile(`^access denied$`), ""},
	{regexp.MustCompile(`^(please )?verify (that )?you are (a )?human\.?$`), ""},
	{regexp.MustCompile(`^are you a (robot|human)\??$`), ""},
	{regexp.MustCompile(`^robot or human\??$`), ""},
	{regexp.MustCompile(`^human verification$`), ""},
	{regexp.MustCompile(`^security check(point)?$`), ""},
	{regexp.MustCompile(`^one more step$`), ""},
	{regexp.MustCompile(`^checking your browser`), ""},
	{regexp.MustCompile(`^captcha`), ""},
}

// wallPhrases are sentences of challenge pages' bodies, read only on a
// thin page.
var wallPhrases = []string{
	"checking if the site connection is secure", "checking your browser before accessing",
	"verify you are human", "verifying you are human", "enable javascript and cookies to continue",
	"please complete the security check", "press & hold", "press and hold",
	"why have i been blocked", "you don't have permission to access", "request unsuccessful. incapsula incident id",
	"access to this page has been denied because we believe you are using automation tools",
	"unusual traffic from your computer network", "are you a robot",
}

// maxThinText is the most text (in bytes, scripts and styles left out,
// runs of white space as one) a page may have and still be read as a wall
// by its own words.
const maxThinText = 1500

// thinText is the text of the document's body, and whether it is thin. It
// stops reading past maxThinText, so an ordinary page costs little: the
// detector reads every page rendered.
func thinText(doc *goquery.Document) (string, bool) {
	var b strings.Builder
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		switch {
		case n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style" || n.Data == "noscript" || n.Data == "template"):
			return true
		case n.Type == html.TextNode:
			for w := range strings.FieldsSeq(n.Data) {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(w)
				if b.Len() > maxThinText {
					return false
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	for _, body := range doc.Find("body").Nodes {
		if !walk(body) {
			return "", false
		}
	}
	return b.String(), true
}

// DetectWall reads what the target answered and, when given, its
// document, and says whether a bot wall answered instead of the page.
// cookies are the names of the cookies the answer set.
func DetectWall(resp *Response, cookies []string, doc *goquery.Document) *Wall {
	if resp == nil && doc == nil {
		return nil
	}
	var s wallScore
	status := 0
	headers := map[string]string{}
	if resp != nil {
		status = resp.StatusCode
		if resp.Headers != nil {
			headers = resp.Headers
		}
	}
	refused := status == http.StatusForbidden || status == http.StatusTooManyRequests ||
		status == http.StatusServiceUnavailable || status == http.StatusUnauthorized
	if refused {
		s.add(1, "", "status "+http.StatusText(status))
	}
	for _, h := range headerSignals {
		v, ok := headers[h.name]
		if ok && (h.value == "" || strings.Contains(strings.ToLower(v), h.value)) {
			s.add(h.weight, h.vendor, "header "+h.name)
		}
	}
	// Kasada answers its challenge with 429 and any x-kpsdk-* header.
	for name := range headers {
		if strings.HasPrefix(name, "x-kpsdk-") && name != "x-kpsdk-ct" && name != "x-kpsdk-cd" {
			s.add(1, VendorKasada, "header "+name)
			break
		}
	}
	if server := strings.ToLower(headers["server"]); server != "" && refused {
		for _, sv := range serverSignals {
			if strings.Contains(server, sv.value) {
				s.add(1, sv.vendor, "server "+sv.value)
				break
			}
		}
	}
	seen := map[string]bool{}
	for _, c := range cookies {
		c = strings.ToLower(c)
		for _, cs := range cookieSignals {
			if (cs.exact && c == cs.prefix) || (!cs.exact && strings.HasPrefix(c, cs.prefix)) {
				if !seen[cs.vendor] {
					seen[cs.vendor] = true
					// A name, no weight: every page of the site has it.
					s.add(0, cs.vendor, "cookie "+c)
				}
			}
		}
	}
	if doc != nil {
		readWallDocument(&s, doc)
	}
	vendor := s.vendor()
	if vendor == "" && len(seen) > 0 && s.total >= wallScoreRequired {
		// The page is a challenge by its own words; the cookies say whose.
		for _, v := range WallVendors {
			if seen[v] {
				vendor = v
				break
			}
		}
	}
	if s.total < wallScoreRequired || vendor == "" {
		return nil
	}
	if status == 0 {
		status = http.StatusOK
	}
	return &Wall{Vendor: vendor, Status: status, Signals: s.signals}
}

// readWallDocument adds the document's signals: the challenge code it
// loads, its CAPTCHA widgets, its title and its words, each counted only
// on a thin page, which every wall is.
func readWallDocument(s *wallScore, doc *goquery.Document) {
	text, thin := thinText(doc)
	if !thin {
		return
	}
	var refs []string
	doc.Find("script[src], iframe[src], form[action], link[href], img[src]").Each(func(_ int, sel *goquery.Selection) {
		for _, a := range []string{"src", "action", "href"} {
			if v, ok := sel.Attr(a); ok {
				refs = append(refs, strings.ToLower(v))
			}
		}
	})
	inline := strings.ToLower(doc.Find("script:not([src])").Text())
	if len(inline) > 64<<10 {
		inline = inline[:64<<10]
	}
	found := map[string]bool{}
	for _, rs := range resourceSignals {
		if found[rs.vendor] {
			continue
		}
		if slices.ContainsFunc(refs, func(r string) bool { return strings.Contains(r, rs.needle) }) || strings.Contains(inline, rs.needle) {
			found[rs.vendor] = true
			s.add(2, rs.vendor, "challenge code "+rs.needle)
		}
	}
	// Imperva's and PerimeterX's markers are ids and globals, not URLs.
	if !found[VendorPerimeterX] && (doc.Find("#px-captcha").Length() > 0 || strings.Contains(inline, "window._pxappid")) {
		found[VendorPerimeterX] = true
		s.add(2, VendorPerimeterX, "challenge code px-captcha")
	}
	if !found[VendorCloudflare] && (strings.Contains(inline, "window._cf_chl_opt") || doc.Find("#challenge-form, #cf-challenge-running, #challenge-stage").Length() > 0) {
		found[VendorCloudflare] = true
		s.add(2, VendorCloudflare, "challenge code _cf_chl_opt")
	}
	captcha := doc.Find(captchaMounts).Length() > 0
	for _, c := range captchaSignals {
		if slices.ContainsFunc(refs, func(r string) bool { return strings.Contains(r, c) }) {
			captcha = true
			break
		}
	}
	if captcha {
		s.add(2, VendorCaptcha, "captcha widget")
	}
	title := strings.ToLower(strings.Join(strings.Fields(doc.Find("title").First().Text()), " "))
	for _, t := range wallTitles {
		if title != "" && t.re.MatchString(title) {
			s.add(2, t.vendor, "title "+title)
			break
		}
	}
	lower := strings.ToLower(text)
	for _, p := range wallPhrases {
		if strings.Contains(lower, p) {
			s.add(1, "", "text "+p)
			break
		}
	}
}

// setCookieNames are the names of the cookies in Set-Cookie values.
func setCookieNames(values ...string) []string {
	var out []string
	for _, v := range values {
		for line := range strings.SplitSeq(v, "\n") {
			name, _, ok := strings.Cut(line, "=")
			name = strings.TrimSpace(name)
			if ok && name != "" && len(out) < 64 {
				out = append(out, name)
			}
		}
	}
	return out
}

// staticWall is the page of a refusal read by a plain fetch with
// prerender=false, when a bot wall made it: no browser will look, so the
// wall is told as it is rather than as an unreadable page. nil when the
// refusal is no wall.
func (r *Renderer) staticWall(req *query.Request, resp *http.Response, final *url.URL, chain []Redirect, static *staticFetcher) *Page {
	body, err := charset.NewReader(io.LimitReader(resp.Body, maxStaticBytes), resp.Header.Get("Content-Type"))
	if err != nil {
		return nil
	}
	doc, err := meta.ParseDocument(body)
	if err != nil {
		return nil
	}
	answered := answeredBy(resp, chain)
	wall := DetectWall(answered, setCookieNames(resp.Header.Values("Set-Cookie")...), doc)
	if wall == nil {
		return nil
	}
	return &Page{URL: final, Doc: doc, FetchMode: "fetch", log: r.log, m: r.m, Response: answered, Wall: wall,
		Assets: httpSource{f: static, site: siteOf(req.Target), headers: req.Headers}}
}

// extraInfoCookies are the names of the cookies a
// Network.responseReceivedExtraInfo event of the main document's request
// set; nil for another request's.
func extraInfoCookies(params jsonv2.Value, mainReq network.RequestID) []string {
	var e struct {
		RequestID network.RequestID `json:"requestId"`
		Headers   network.Headers   `json:"headers"`
	}
	if mainReq == "" || jsonv2.Unmarshal(params, &e) != nil || e.RequestID != mainReq {
		return nil
	}
	return setCookieNames(headerValue(e.Headers, "set-cookie"))
}
