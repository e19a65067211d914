package walls_test

import (
	"fmt"
	"net/http"
	"strings"
)

// wallShape is a loopback page that answers as a vendor's bot wall
// answers: its status, its headers, the cookies it sets and its document.
type wallShape struct {
	name    string
	vendor  string // the vendor's name as the message gives it; "" for a page that is no wall
	status  int
	headers map[string]string
	cookies []string
	body    string
}

func (s wallShape) handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range s.headers {
			w.Header().Set(k, v)
		}
		for _, c := range s.cookies {
			w.Header().Add("Set-Cookie", c+"=v1."+strings.Repeat("a", 16)+"; Path=/; HttpOnly")
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(s.status)
		fmt.Fprint(w, s.body)
	}
}

var longText = strings.Repeat("The ferry timetable changes in October, when the last boat of the day leaves an hour earlier and the harbour café closes at six. ", 16)

var wallShapes = []wallShape{
	{"a Cloudflare managed challenge", "Cloudflare", 403,
		map[string]string{"cf-mitigated": "challenge", "server": "cloudflare", "cf-ray": "8c0ffee0-AMS"}, []string{"__cf_bm"},
		`<!doctype html><html><head><title>Just a moment...</title></head><body><div id="challenge-stage"></div><noscript>Enable JavaScript and cookies to continue</noscript><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8c0ffee0"></script></body></html>`},
	{"a Cloudflare block page", "Cloudflare", 403,
		map[string]string{"server": "cloudflare"}, nil,
		`<!doctype html><html><head><title>Attention Required! | Cloudflare</title></head><body><h1>Sorry, you have been blocked</h1><p>Why have I been blocked?</p></body></html>`},
	{"a Vercel security checkpoint", "Vercel", 429,
		map[string]string{"x-vercel-mitigated": "challenge", "server": "Vercel"}, nil,
		`<!doctype html><html><head><title>Vercel Security Checkpoint</title></head><body><p>We're verifying your browser.</p></body></html>`},
	{"an Akamai denial", "Akamai", 403,
		map[string]string{"server": "AkamaiGHost"}, []string{"ak_bmsc", "bm_sz"},
		`<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1>You don't have permission to access this page on this server.<p>Reference #18.6e2c1002.1700000000.1a2b3c</p></body></html>`},
	{"a denial named only by its bot-management cookies", "Akamai", 403,
		nil, []string{"ak_bmsc", "bm_sz"},
		`<html><head><title>Access Denied</title></head><body><h1>Access Denied</h1><p>Reference #18.2f3c1002.1700000001.4d5e6f</p></body></html>`},
	{"a DataDome CAPTCHA", "DataDome", 403,
		map[string]string{"x-datadome": "protected"}, []string{"datadome"},
		`<html><head><title>shop.example</title></head><body><script>var dd={'rt':'c','cid':'AHrlqAAA','host':'geo.captcha-delivery.com'}</script></body></html>`},
	{"a PerimeterX block", "PerimeterX", 403,
		nil, []string{"_px3", "_pxvid"},
		`<html><head><title>Access to this page has been denied.</title></head><body><div id="px-captcha"></div><p>Access to this page has been denied because we believe you are using automation tools to browse the website.</p></body></html>`},
	{"an Imperva interstitial", "Imperva", 200,
		map[string]string{"x-iinfo": "10-123-0 0NNN RT(1 2)", "x-cdn": "Incapsula"}, []string{"visid_incap_123", "incap_ses_1_123"},
		`<html><head><meta name="robots" content="noindex,nofollow"></head><body><iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=9&xinfo=1" frameborder="0" width="100%" height="100%"></iframe></body></html>`},
	{"an AWS WAF challenge", "AWS WAF", 405,
		map[string]string{"x-amzn-waf-action": "challenge"}, []string{"aws-waf-token"},
		`<html><head><title>Checking</title></head><body><div id="challenge-container"></div></body></html>`},
	{"a Kasada challenge", "Kasada", 429,
		map[string]string{"x-kpsdk-ct": "0Abc", "x-kpsdk-r": "1-B"}, nil,
		`<html><head></head><body><script src="/149e9513-01fa/2d206a39-8ed7/ips.js?x=1"></script></body></html>`},
	{"a CAPTCHA page", "a CAPTCHA", 200,
		nil, nil,
		`<!doctype html><html><head><title>Please verify you are a human</title></head><body><form action="/verify" method="post"><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div><button>Continue</button></form></body></html>`},
}

// lookAlikes look like walls to a careless reader and are the pages.
var lookAlikes = []wallShape{
	{"an article about Cloudflare's challenge served by Cloudflare", "", 200,
		map[string]string{"server": "cloudflare", "cf-ray": "8c0ffee1-AMS"}, []string{"__cf_bm"},
		`<!doctype html><html lang="en"><head><title>Why you see "Just a moment..." pages</title><meta name="description" content="How the Cloudflare challenge works."></head><body><article><h1>Attention Required! | Cloudflare, explained</h1><p>` + longText + `</p></article></body></html>`},
	{"an article with a newsletter reCAPTCHA", "", 200,
		nil, nil,
		`<!doctype html><html lang="en"><head><title>Autumn ferries</title></head><body><article><p>` + longText + `</p></article><form action="/subscribe"><input name="email"><div class="g-recaptcha" data-sitekey="6Lc"></div></form></body></html>`},
}
