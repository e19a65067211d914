package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/meta"
)

// article is a page with content of its own, long enough that its own
// words are no wall's.
var article = strings.Repeat("The harbour town rebuilt its sea wall after the winter storms, and the council published the costs line by line. ", 20)

func TestDetectWallTellsEachVendorsWallFromPagesThatLookLikeOne(t *testing.T) {
	type shape struct {
		name    string
		status  int
		headers map[string]string
		cookies []string
		html    string // "" reads the answer without its document
		want    string // the vendor, "" for no wall
	}
	cases := []shape{
		// Cloudflare
		{"a Cloudflare managed challenge says so in cf-mitigated", 403,
			map[string]string{"cf-mitigated": "challenge", "server": "cloudflare"}, []string{"__cf_bm"},
			`<html><head><title>Just a moment...</title></head><body><noscript>Enable JavaScript and cookies to continue</noscript><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=1"></script></body></html>`, VendorCloudflare},
		{"a Cloudflare challenge without cf-mitigated is known by its script and title", 503,
			map[string]string{"server": "cloudflare"}, nil,
			`<html><head><title>Just a moment…</title></head><body><div id="challenge-stage"></div><script>window._cf_chl_opt={cType:'managed'}</script></body></html>`, VendorCloudflare},
		{"a Cloudflare block page is known by its title", 403,
			map[string]string{"server": "cloudflare"}, nil,
			`<html><head><title>Attention Required! | Cloudflare</title></head><body><h1>Sorry, you have been blocked</h1><h2>You are unable to access example.com</h2><p>Why have I been blocked?</p></body></html>`, VendorCloudflare},
		{"a Cloudflare challenge read without its document is known by its header", 403,
			map[string]string{"cf-mitigated": "challenge"}, nil, "", VendorCloudflare},
		{"a Turnstile page on a Cloudflare site names Cloudflare", 403,
			map[string]string{"server": "cloudflare"}, []string{"cf_clearance"},
			`<html><head><title>Verify you are human</title></head><body><div class="cf-turnstile" data-sitekey="0x4AAA"></div><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script></body></html>`, VendorCloudflare},
		// Vercel
		{"a Vercel checkpoint says so in x-vercel-mitigated", 429,
			map[string]string{"x-vercel-mitigated": "challenge", "server": "Vercel"}, nil,
			`<html><head><title>Vercel Security Checkpoint</title></head><body><p>We're verifying your browser</p></body></html>`, VendorVercel},
		// Akamai
		{"an Akamai denial is known by its server, status and title", 403,
			map[string]string{"server": "AkamaiGHost"}, []string{"ak_bmsc", "bm_sz"},
			`<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1>You don't have permission to access "http://www.example.com/" on this server.<p>Reference&#32;&#35;18&#46;6e2c1002&#46;1700000000&#46;1a2b3c</p></body></html>`, VendorAkamai},
		// DataDome
		{"a DataDome CAPTCHA is known by its header, cookie and frame", 403,
			map[string]string{"x-datadome": "protected", "x-dd-b": "1"}, []string{"datadome"},
			`<html><head><title>example.com</title></head><body><script>var dd={'rt':'c','cid':'AHrlqAAA','hsh':'A1B2','s':17434}</script><script src="https://ct.captcha-delivery.com/c.js"></script><iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=AHrl"></iframe></body></html>`, VendorDataDome},
		// PerimeterX
		{"a PerimeterX block is known by its CAPTCHA mount and cookies", 403,
			nil, []string{"_px3", "_pxvid"},
			`<html><head><title>Access to this page has been denied.</title></head><body><div id="px-captcha"></div><p>Access to this page has been denied because we believe you are using automation tools to browse the website.</p><script>window._pxAppId='PXabc';</script><script src="/PXabc/captcha/captcha.js?a=c"></script></body></html>`, VendorPerimeterX},
		// Imperva
		{"an Imperva interstitial answers 200 with its resource frame", 200,
			map[string]string{"x-iinfo": "10-123-0 0NNN RT(1 2) q(0 -1 -1 -1) r(0 -1)", "x-cdn": "Incapsula"}, []string{"visid_incap_123", "incap_ses_1_123"},
			`<html><head><meta name="robots" content="noindex,nofollow"><script src="/_Incapsula_Resource?SWJIYLWA=5074a744"></script></head><body><iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=9&xinfo=1"></iframe></body></html>`, VendorImperva},
		{"an Imperva block says Pardon Our Interruption", 403,
			nil, []string{"reese84"},
			`<html><head><title>Pardon Our Interruption</title></head><body><p>As you were browsing something about your browser made us think you were a bot.</p></body></html>`, VendorImperva},
		// AWS WAF
		{"an AWS WAF challenge says so in x-amzn-waf-action", 202,
			map[string]string{"x-amzn-waf-action": "challenge"}, nil,
			`<html><head><script src="https://abc123.token.awswaf.com/abc123/challenge.js"></script></head><body><div id="challenge-container"></div></body></html>`, VendorAWSWAF},
		// Kasada
		{"a Kasada challenge answers 429 with its headers and ips.js", 429,
			map[string]string{"x-kpsdk-ct": "0Abc", "x-kpsdk-r": "1-B"}, nil,
			`<html><head></head><body><script>window.KPSDK={};KPSDK.now=typeof performance!=='undefined'&&performance.now?function(){return performance.now()}:Date.now;</script><script src="/149e9513-01fa-4fb0-aad4-566afd725d1b/2d206a39-8ed7-437e-a3be-862e0f06eea3/ips.js?tkrm_alpekz_s1.3=0"></script></body></html>`, VendorKasada},
		// DDoS-Guard
		{"a DDoS-Guard check is known by its server and title", 403,
			map[string]string{"server": "ddos-guard"}, []string{"__ddg1_"},
			`<html><head><title>DDoS-Guard</title></head><body><p>Checking your browser before accessing example.com.</p><script src="https://check.ddos-guard.net/check.js"></script></body></html>`, VendorDDoSGuard},
		// CAPTCHA vendors on a page of no bot-management vendor
		{"an hCaptcha page that asks to verify is a CAPTCHA wall", 200,
			nil, nil,
			`<html><head><title>Please verify you are a human</title><script src="https://hcaptcha.com/1/api.js" async></script></head><body><form action="/verify" method="post"><div class="h-captcha" data-sitekey="10000000-ffff"></div><button>Continue</button></form></body></html>`, VendorCaptcha},
		{"a reCAPTCHA page that asks whether you are a robot is a CAPTCHA wall", 429,
			nil, nil,
			`<html><head><title>Are you a robot?</title></head><body><p>Our systems have detected unusual traffic from your computer network.</p><div class="g-recaptcha" data-sitekey="6Lc"></div><script src="https://www.google.com/recaptcha/api.js"></script></body></html>`, VendorCaptcha},

		// Look-alikes: none of them is a wall.
		{"an article about Cloudflare served by Cloudflare is the page", 200,
			map[string]string{"server": "cloudflare", "cf-ray": "8a1b2c3d4e5f-AMS"}, []string{"__cf_bm", "cf_clearance"},
			`<html><head><title>How Cloudflare's "Just a moment..." challenge works</title><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></head><body><article><h1>Inside the challenge page</h1><p>Attention Required! | Cloudflare is the title of the block page. Verify you are human, it says. ` + article + `</p></article></body></html>`, ""},
		{"an article with a newsletter reCAPTCHA is the page", 200,
			nil, nil,
			`<html><head><title>Spring recipes</title><script src="https://www.google.com/recaptcha/api.js"></script></head><body><article>` + article + `</article><form action="/subscribe"><input name="email"><div class="g-recaptcha" data-sitekey="6Lc"></div></form></body></html>`, ""},
		{"a sign-in form with a CAPTCHA is the page", 200,
			nil, nil,
			`<html><head><title>Sign in</title></head><body><form action="/login"><input name="user"><input name="password" type="password"><div class="h-captcha" data-sitekey="x"></div><script src="https://js.hcaptcha.com/1/api.js"></script><button>Sign in</button></form></body></html>`, ""},
		{"a web server's own 403 page is the page's answer, not a vendor's wall", 403,
			map[string]string{"server": "nginx"}, nil,
			`<html><head><title>Access denied</title></head><body><h1>403 Forbidden</h1><hr><center>nginx</center></body></html>`, ""},
		{"a 503 maintenance page behind Cloudflare is the page's answer", 503,
			map[string]string{"server": "cloudflare"}, []string{"__cf_bm"},
			`<html><head><title>Down for maintenance</title></head><body><h1>We'll be back soon</h1><p>Our shop is being updated and reopens at noon.</p></body></html>`, ""},
		{"a page of a DataDome customer is the page", 200,
			map[string]string{"x-datadome": "protected"}, []string{"datadome"},
			`<html><head><title>Shoes</title><script src="https://js.datadome.co/tags.js"></script></head><body>` + article + `</body></html>`, ""},
		{"a page of an Akamai customer answering 200 is the page", 200,
			map[string]string{"server": "AkamaiGHost"}, []string{"ak_bmsc", "bm_sz", "_abck"},
			`<html><head><title>Flights</title></head><body><h1>Find a flight</h1></body></html>`, ""},
		{"a page about CAPTCHAs titled like one, with no widget, is the page", 200,
			nil, nil,
			`<html><head><title>Human verification</title></head><body><p>A short note on how sites tell people from programs.</p></body></html>`, ""},
		{"a 429 of an API rate limit is the page's answer", 429,
			map[string]string{"retry-after": "30", "content-type": "text/html"}, nil,
			`<html><head><title>Too many requests</title></head><body><p>Slow down.</p></body></html>`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := &Response{StatusCode: c.status, Headers: map[string]string{}}
			for k, v := range c.headers {
				addHeader(resp.Headers, k, v)
			}
			var w *Wall
			if c.html == "" {
				w = DetectWall(resp, c.cookies, nil)
			} else {
				doc, err := meta.ParseDocument(strings.NewReader(c.html))
				if err != nil {
					t.Fatal(err)
				}
				w = DetectWall(resp, c.cookies, doc)
			}
			got := ""
			if w != nil {
				got = w.Vendor
				if w.Status != c.status {
					t.Errorf("the wall's status is %d, want %d", w.Status, c.status)
				}
			}
			if got != c.want {
				var signals []string
				if w != nil {
					signals = w.Signals
				}
				t.Errorf("DetectWall = %q (signals %v), want %q", got, signals, c.want)
			}
		})
	}
}

func TestSetCookieNamesReadsNamesOnly(t *testing.T) {
	got := setCookieNames("__cf_bm=abc.def; path=/; HttpOnly\ndatadome=XYZ; Max-Age=31536000", "_px3=secret")
	want := []string{"__cf_bm", "datadome", "_px3"}
	if !slices.Equal(got, want) {
		t.Errorf("setCookieNames = %v, want %v", got, want)
	}
}

func TestEveryVendorHasANameAndASeries(t *testing.T) {
	for _, v := range WallVendors {
		if VendorName(v) == "a CAPTCHA" && v != VendorCaptcha {
			t.Errorf("vendor %q has no name for messages", v)
		}
	}
	for _, v := range []string{VendorAkamai, VendorAWSWAF, VendorCaptcha, VendorCloudflare, VendorDataDome,
		VendorDDoSGuard, VendorImperva, VendorKasada, VendorPerimeterX, VendorVercel} {
		if !slices.Contains(metrics.WallVendors, v) {
			t.Errorf("vendor %q is no value of the metric's vendor label", v)
		}
	}
}

// BenchmarkDetectWall measures the detector on what every render reads:
// an ordinary page with content (the common case, rejected early as not
// thin) and a thin challenge page.
func BenchmarkDetectWall(b *testing.B) {
	for _, c := range []struct{ name, html string }{
		{"article", `<html><head><title>News</title></head><body><article>` + strings.Repeat("<p>"+article+"</p>", 20) + `</article></body></html>`},
		{"challenge", `<html><head><title>Just a moment...</title></head><body><div id="challenge-stage"></div><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>`},
	} {
		doc, err := meta.ParseDocument(strings.NewReader(c.html))
		if err != nil {
			b.Fatal(err)
		}
		resp := &Response{StatusCode: 200, Headers: map[string]string{"server": "cloudflare"}}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				DetectWall(resp, []string{"__cf_bm"}, doc)
			}
		})
	}
}

func TestExtraInfoCookiesReadsTheMainDocumentsOnly(t *testing.T) {
	ev := []byte(`{"requestId":"R1","headers":{"Set-Cookie":"datadome=abc; Path=/\n_px3=def; Path=/","content-type":"text/html"}}`)
	if got := extraInfoCookies(ev, "R1"); !slices.Equal(got, []string{"datadome", "_px3"}) {
		t.Errorf("the main document's cookies are %v", got)
	}
	if got := extraInfoCookies(ev, "R2"); got != nil {
		t.Errorf("another request's cookies were read: %v", got)
	}
	if got := extraInfoCookies(ev, ""); got != nil {
		t.Errorf("cookies were read before the main document was known: %v", got)
	}
}
