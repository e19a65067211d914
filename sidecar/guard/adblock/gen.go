//go:build ignore

// gen writes hosts.txt, the list of hosts glimpse blocks with adblock on,
// from the entities of the third-party-web package (see README.md):
//
//	npm pack third-party-web@0.30.0 && tar xzf third-party-web-0.30.0.tgz
//	go run gen.go package/dist/entities.json > hosts.txt
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// source names the data in the file's header; change it with the package.
const source = "third-party-web 0.30.0 (https://github.com/patrickhulce/third-party-web, MIT License, Copyright (c) 2019 Patrick Hulce)"

// minOccurrences drops ad and analytics entities seen on fewer pages of
// the HTTP Archive crawl: the long tail is mostly defunct companies, and
// a short list is cheap to install in every page and easy to review.
const minOccurrences = 100

// categories are the third-party-web categories blocked. Consent
// providers are taken whatever their count: they are what draws the
// banners that adblock removes.
var categories = map[string]bool{"ad": true, "analytics": true, "consent-provider": true}

// excluded are hosts third-party-web files as ads or analytics that also
// serve ordinary content: a company's own site and images, a shared CDN,
// sign-in, video players, site search, and review or comment widgets that
// are part of a page. Blocking them would break pages, not remove ads.
var excluded = strings.Fields(`
	01net.com answers.com apple.com bbb.org quora.com sas.com ibmcloud.com s81c.com
	aol.com aol.net aol.co.uk aolcdn.com blogsmithmedia.com oath.com hostingprod.com
	yahoo.com yahoo.net yahooapis.com yimg.com zenfs.com s.yimg.jp
	bing.com microsoft.com msn.com s-msft.com s-msn.com msecnd.net
	ebay.com ebayimg.com force.com salesforce.com okta.com wayfair.com rakuten-static.com
	licdn.com www.linkedin.com line.me line-scdn.net snapchat.com
	theguardian.com guardian.co.uk onet.pl wp.pl o2.pl ui-portal.de zoover.nl zoover.co.uk
	de.com net.net net.pl cloudfront.ne
	gigya.com janrain.com janrainbackplane.com rpxnow.com loginradius.com lrcontent.com
	jwplayer.com jwpcdn.com jwplatform.com jwpsrv.com longtailvideo.com ooyala.com
	brcdn.com searchanise.com clerk.io flix360.com flixcar.com flixfacts.co.uk flixfacts.com flixsyndication.net
	trustpilot.com bazaarvoice.com feefo.com reviews.io reviews.co.uk reevoo.com stamped.io powerreviews.com avis-verifies.com
	viafoura.co viafoura.net flockler.com qualtrics.com surveymonkey.com
	hootsuite.com spiceworks.com aweber.com wowcher.co.uk hotukdeals.com myunidays.com unidays.world imrg.org
	jsonip.com purch.com rebelmouse.com unbounce.com sidereel.com
`)

// added are hosts third-party-web files under other categories (or not at
// all) that are plainly consent managers or trackers: the consent banners
// of Cookiebot, TrustArc, Sourcepoint, Quantcast and others, the IAB's
// CMP domain, the conversion pixels of large sites whose main domain
// stays open, and Google's tag manager (a "tag-manager" there), whose
// container exists to load a site's analytics, ads and pixels and which
// EasyPrivacy blocks too. Other tag managers stay: their domains serve
// CDNs and video too (Tealium's), or a script a site keeps its page
// hidden for until it loads (Adobe's).
var added = strings.Fields(`
	googletagmanager.com
	mgr.consensu.org cookiebot.com cookiebot.eu cookiepro.com trustarc.com truste.com
	cookie-script.com cdn-cookieyes.com privacy-mgmt.com sp-prod.net consentmanager.net
	cookiefirst.com app.termly.io cdn.iubenda.com cmp.quantcast.com policy.app.cookieinformation.com
	clarity.ms bat.bing.com snap.licdn.com tr.snapchat.com ct.pinterest.com analytics.tiktok.com
	sp.analytics.yahoo.com ads.yahoo.com
`)

var hostname = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

type entity struct {
	Name             string   `json:"name"`
	Category         string   `json:"category"`
	Domains          []string `json:"domains"`
	TotalOccurrences int      `json:"totalOccurrences"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: go run gen.go path/to/third-party-web/dist/entities.json > hosts.txt")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var entities []entity
	if err := json.Unmarshal(raw, &entities); err != nil {
		fmt.Fprintln(os.Stderr, "reading the entities:", err)
		os.Exit(1)
	}
	skip := map[string]bool{}
	for _, h := range excluded {
		skip[h] = true
	}
	hosts := map[string]bool{}
	for _, e := range entities {
		if !categories[e.Category] || (e.Category != "consent-provider" && e.TotalOccurrences < minOccurrences) {
			continue
		}
		for _, d := range e.Domains {
			h := strings.TrimPrefix(strings.ToLower(d), "*.")
			if !skip[h] && hostname.MatchString(h) {
				hosts[h] = true
			}
		}
	}
	for _, h := range added {
		hosts[h] = true
	}
	// Blocking is by suffix, so a host under a listed one adds nothing.
	var out []string
	for h := range hosts {
		covered := false
		for rest := h; !covered; {
			_, parent, ok := strings.Cut(rest, ".")
			if !ok || !strings.Contains(parent, ".") {
				break
			}
			covered, rest = hosts[parent], parent
		}
		if !covered {
			out = append(out, h)
		}
	}
	sort.Strings(out)
	fmt.Printf("# Hosts glimpse blocks when adblock is on (the default), with every\n")
	fmt.Printf("# subdomain. Generated by gen.go from %s;\n", source)
	fmt.Printf("# see README.md. Do not edit by hand: change gen.go and run it again.\n")
	for _, h := range out {
		fmt.Println(h)
	}
}
