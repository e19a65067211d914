package meta

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestFingerprintsCompile(t *testing.T) {
	if fingerprintsErr != nil {
		t.Fatal(fingerprintsErr)
	}
	names := map[string]bool{}
	for _, f := range fingerprints {
		if names[f.Name] {
			t.Errorf("%s is in the set twice", f.Name)
		}
		names[f.Name] = true
		if len(f.Categories) == 0 || f.Website == "" {
			t.Errorf("%s has no categories or website", f.Name)
		}
	}
	for _, f := range fingerprints {
		for _, imp := range f.Implies {
			if !names[imp] {
				t.Errorf("%s implies %s, which is not in the set", f.Name, imp)
			}
		}
	}
}

func TestDetectTechnologies(t *testing.T) {
	tests := []struct {
		name    string
		html    string
		headers map[string]string
		cookies []string
		want    map[string]string // name → version ("" for none)
		absent  []string
	}{
		{name: "a WordPress blog behind nginx, with PHP named by its header",
			html: `<meta name="generator" content="WordPress 6.4.2"><link rel="stylesheet" href="/wp-content/themes/x/style.css">
				<script src="/wp-includes/js/jquery/jquery.min.js?ver=3.7.1"></script>`,
			headers: map[string]string{"server": "nginx/1.25.3", "x-powered-by": "PHP/8.2.1"},
			want:    map[string]string{"WordPress": "6.4.2", "Nginx": "1.25.3", "PHP": "8.2.1", "MySQL": "", "jQuery": ""},
			absent:  []string{"Drupal", "Cloudflare"}},
		{name: "a Next.js site on Vercel, React implied",
			html:    `<div id="__next"></div><script id="__NEXT_DATA__" type="application/json">{}</script><script src="/_next/static/chunks/main-abc.js"></script>`,
			headers: map[string]string{"server": "Vercel", "x-vercel-id": "fra1::abc", "x-powered-by": "Next.js"},
			want:    map[string]string{"Next.js": "", "React": "", "Node.js": "", "Vercel": ""}},
		{name: "a static page behind Cloudflare, known by its headers and cookie, with Google Analytics",
			html:    `<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123"></script>`,
			headers: map[string]string{"server": "cloudflare", "cf-ray": "8a1b2c3d4e5f-FRA"},
			cookies: []string{"__cf_bm"},
			want:    map[string]string{"Cloudflare": "", "Google Analytics": "", "Google Tag Manager": ""}},
		{name: "a Drupal site by its generator and headers",
			html:    `<meta name="Generator" content="Drupal 10 (https://www.drupal.org)">`,
			headers: map[string]string{"x-drupal-cache": "HIT", "x-generator": "Drupal 10 (https://www.drupal.org)"},
			want:    map[string]string{"Drupal": "10", "PHP": ""}},
		{name: "an Angular app and Bootstrap from a CDN with versions",
			html: `<app-root ng-version="17.0.1"></app-root><script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.2/dist/js/bootstrap.bundle.min.js"></script>
				<script src="https://code.jquery.com/jquery-3.6.0.min.js"></script>`,
			want: map[string]string{"Angular": "", "TypeScript": "", "Bootstrap": "5.3.2", "jQuery": "3.6.0"}},
		{name: "an ASP.NET site on IIS, by headers and a session cookie prefix",
			headers: map[string]string{"server": "Microsoft-IIS/10.0", "x-aspnet-version": "4.0.30319"},
			cookies: []string{"ASPSESSIONIDQQ"},
			want:    map[string]string{"Microsoft IIS": "10.0", "Windows Server": "", "Microsoft ASP.NET": "4.0.30319"}},
		{name: "a plain page built with nothing known gives nothing",
			html: `<p>hello</p><script src="/app.js"></script>`, headers: map[string]string{"server": "my-own-server"}, want: map[string]string{}},
	}
	pageURL, _ := url.Parse("https://site.example.net/")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, "<html><head>"+tc.html+"</head><body></body></html>")
			got := DetectTechnologies(PageSignals{Doc: doc, URL: pageURL, Headers: tc.headers, Cookies: tc.cookies})
			byName := map[string]Technology{}
			for _, g := range got {
				byName[g.Name] = g
				if g.Confidence < 1 || g.Confidence > 100 || g.Categories == nil {
					t.Errorf("%s: confidence %d, categories %v", g.Name, g.Confidence, g.Categories)
				}
			}
			for name, version := range tc.want {
				g, ok := byName[name]
				if !ok {
					t.Errorf("%s not detected; got %+v", name, got)
					continue
				}
				if version != "" && g.Version != version {
					t.Errorf("%s version %q, want %q", name, g.Version, version)
				}
			}
			for _, name := range tc.absent {
				if _, ok := byName[name]; ok {
					t.Errorf("%s detected, but the page does not use it", name)
				}
			}
			if len(tc.want) == 0 && slices.ContainsFunc(got, func(g Technology) bool { return g.Name != "Open Graph" }) {
				t.Errorf("detected %+v on a page built with nothing known", got)
			}
		})
	}
}

func TestWeakSignsWeighLess(t *testing.T) {
	pageURL, _ := url.Parse("https://site.example.net/")
	got := DetectTechnologies(PageSignals{URL: pageURL, Headers: map[string]string{"x-runtime": "0.0123"}})
	if len(got) != 1 || got[0].Name != "Ruby on Rails" || got[0].Confidence != 50 {
		t.Errorf("got %+v, want Ruby on Rails at 50", got)
	}
	// A cookie many frameworks set is a weak sign of one of them; with a
	// strong one beside it, the weights add up to at most 100.
	got = DetectTechnologies(PageSignals{URL: pageURL, Cookies: []string{"XSRF-TOKEN"}})
	if len(got) != 2 || got[0].Name != "Laravel" || got[0].Confidence != 50 || got[1].Name != "PHP" {
		t.Errorf("got %+v, want Laravel at 50 implying PHP", got)
	}
	got = DetectTechnologies(PageSignals{URL: pageURL, Cookies: []string{"XSRF-TOKEN", "laravel_session"}})
	if len(got) < 1 || got[0].Name != "Laravel" || got[0].Confidence != 100 {
		t.Errorf("got %+v, want Laravel at 100", got)
	}
}

// BenchmarkDetectTechnologies is one detection over a page of 60 scripts,
// 20 stylesheets and a dozen meta tags, with a CDN's headers.
func BenchmarkDetectTechnologies(b *testing.B) {
	var page strings.Builder
	page.WriteString(`<html><head><meta name="generator" content="WordPress 6.4.2">`)
	for i := range 12 {
		fmt.Fprintf(&page, `<meta name="m%d" content="value %d">`, i, i)
	}
	for i := range 20 {
		fmt.Fprintf(&page, `<link rel="stylesheet" href="/wp-content/plugins/p%d/style.css">`, i)
	}
	for i := range 60 {
		fmt.Fprintf(&page, `<script src="https://cdn.example.net/lib%d.min.js?ver=%d"></script>`, i, i)
	}
	page.WriteString(`</head><body><div id="app"><p>text</p></div></body></html>`)
	doc, err := ParseDocument(strings.NewReader(page.String()))
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse("https://blog.example.net/post")
	s := PageSignals{Doc: doc, URL: u, Headers: map[string]string{"server": "cloudflare", "cf-ray": "x", "x-powered-by": "PHP/8.2"},
		Cookies: []string{"__cf_bm", "PHPSESSID"}}
	b.ReportAllocs()
	for b.Loop() {
		if len(DetectTechnologies(s)) == 0 {
			b.Fatal("nothing detected")
		}
	}
}
