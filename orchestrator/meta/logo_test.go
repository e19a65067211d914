package meta

import (
	"reflect"
	"testing"
)

func TestLogo(t *testing.T) {
	const fav = "https://news.example.com/favicon.ico"
	tests := []struct {
		name, html string
		want       []string // every candidate, the favicon guess included
	}{
		{"og:logo comes before any icon",
			`<link rel="apple-touch-icon" sizes="180x180" href="/t.png"><meta property="og:logo" content="/brand.png">`,
			[]string{"https://news.example.com/brand.png", "https://news.example.com/t.png", fav}},
		{"a microdata logo image comes first",
			`<link rel="icon" sizes="192x192" href="/i.png"><img itemprop="logo" src="/logo.svg">`,
			[]string{"https://news.example.com/logo.svg", "https://news.example.com/i.png", fav}},
		{"a microdata ImageObject logo declared wide goes after the icons",
			`<div itemprop="publisher" itemscope><div itemprop="logo" itemscope itemtype="https://schema.org/ImageObject"><meta itemprop="url" content="/wide.png"><meta itemprop="width" content="300"><meta itemprop="height" content="60"></div></div><link rel="apple-touch-icon" href="/t.png">`,
			[]string{"https://news.example.com/t.png", "https://news.example.com/wide.png", fav}},
		{"a square JSON-LD publisher logo comes before icons",
			`<link rel="icon" sizes="192x192" href="/i.png"><script type="application/ld+json">{"@type":"NewsArticle","publisher":{"@type":"Organization","logo":{"@type":"ImageObject","url":"https://cdn.example.com/sq.png","width":512,"height":512}}}</script>`,
			[]string{"https://cdn.example.com/sq.png", "https://news.example.com/i.png", fav}},
		{"a wide JSON-LD logo goes after the icons",
			`<link rel="icon" sizes="32x32" href="/i.png"><script type="application/ld+json">{"@graph":[{"@type":"Organization","logo":{"url":"https://cdn.example.com/wide.png","width":600,"height":60}}]}</script>`,
			[]string{"https://news.example.com/i.png", "https://cdn.example.com/wide.png", fav}},
		{"a JSON-LD SVG logo declared 1×1 counts as square",
			`<script type="application/ld+json">{"@type":"Organization","logo":{"url":"https://cdn.example.com/logo.svg","width":1,"height":1}}</script>`,
			[]string{"https://cdn.example.com/logo.svg", fav}},
		{"icons are ranked by declared size",
			`<link rel="icon" sizes="16x16" href="/16.png"><link rel="icon" sizes="192x192" href="/192.png"><link rel="apple-touch-icon" sizes="180x180" href="/180.png">`,
			[]string{"https://news.example.com/192.png", "https://news.example.com/180.png", "https://news.example.com/16.png", fav}},
		{"the size in an icon's file name counts when sizes is missing",
			`<link rel="icon" href="/favicon-32x32.png"><link rel="icon" href="/android-chrome-512x512.png">`,
			[]string{"https://news.example.com/android-chrome-512x512.png", "https://news.example.com/favicon-32x32.png", fav}},
		{"a declared 144 px icon beats an apple-touch-icon of unknown size",
			`<link rel="apple-touch-icon" href="/apple.png"><link rel="apple-touch-icon-precomposed" sizes="144×144" href="/ipad.png">`,
			[]string{"https://news.example.com/ipad.png", "https://news.example.com/apple.png", fav}},
		{"an apple-touch-icon of unknown size beats a favicon",
			`<link rel="shortcut icon" href="/favicon.ico"><link rel="apple-touch-icon" href="/apple.png">`,
			[]string{"https://news.example.com/apple.png", fav}},
		{"a mask-icon ranks below colour icons but above a bare .ico",
			`<link rel="mask-icon" href="/pinned-500x500.svg"><link rel="shortcut icon" href="/icons/f.ico"><link rel="apple-touch-icon" sizes="180x180" href="/t.png">`,
			[]string{"https://news.example.com/t.png", "https://news.example.com/pinned-500x500.svg", "https://news.example.com/icons/f.ico", fav}},
		{"a Windows tile of unknown size comes last among icons",
			`<meta name="msapplication-TileImage" content="/tile"><link rel="icon" href="/icons/f.ico">`,
			[]string{"https://news.example.com/icons/f.ico", "https://news.example.com/tile", fav}},
		{"a fluid-icon counts as large",
			`<link rel="fluid-icon" href="/fluidicon.png"><link rel="icon" type="image/svg+xml" href="/f.svg">`,
			[]string{"https://news.example.com/fluidicon.png", "https://news.example.com/f.svg", fav}},
		{"a protocol-relative icon takes the page's scheme",
			`<link rel="icon" href="//static.example.com/i.png">`, []string{"https://static.example.com/i.png", fav}},
		{"the same icon under several rels is listed once",
			`<link rel="icon" sizes="192x192" href="/site.png"><link rel="apple-touch-icon" href="/site.png">`,
			[]string{"https://news.example.com/site.png", fav}},
		{"an icon that is a data: URI is skipped", `<link rel="icon" href="data:image/x-icon;base64,AAAB">`, []string{fav}},
		{"a page's own /favicon.ico link is not repeated", `<link rel="shortcut icon" href="/favicon.ico">`, []string{fav}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := urls(extractHTML(t, tt.html).Logo); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("logo candidates = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestADeclaredFaviconKeepsItsSourceAtTheEnd(t *testing.T) {
	r := extractHTML(t, `<link rel="shortcut icon" href="/favicon.ico" type="image/x-icon"><link rel="icon" href="/a.png">`)
	last := r.Logo[len(r.Logo)-1]
	if len(r.Logo) != 2 || last.URL != "https://news.example.com/favicon.ico" || last.Source != "link:icon" {
		t.Errorf("logo candidates = %+v, want a.png then the declared favicon.ico, marked as declared", r.Logo)
	}
}

func TestLogoCandidatesCarryTypeAndDeclaredSize(t *testing.T) {
	r := extractHTML(t, `<link rel="icon" type="image/png" sizes="48x48 96x96" href="/get-icon?id=1">`)
	want := Candidate{URL: "https://news.example.com/get-icon?id=1", Type: "png", Width: 96, Height: 96, Source: "link:icon"}
	if !reflect.DeepEqual(r.Logo[0], want) {
		t.Errorf("first logo candidate = %+v, want %+v", r.Logo[0], want)
	}
}

func TestManifestURL(t *testing.T) {
	u := mustURL(t, testPage)
	tests := []struct{ name, html, want string }{
		{"a relative manifest is resolved", `<link rel="manifest" href="/site.webmanifest">`, "https://news.example.com/site.webmanifest"},
		{"a protocol-relative manifest takes the page's scheme", `<link rel="manifest" href="//cdn.example.com/m.json">`, "https://cdn.example.com/m.json"},
		{"<base href> is honoured", `<base href="https://static.example.com/app/"><link rel="manifest" href="m.json">`, "https://static.example.com/app/m.json"},
		{"a page without a manifest has none", `<link rel="wlwmanifest" href="/wlw.xml">`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ManifestURL(parseHTML(t, tt.html), u); got != tt.want {
				t.Errorf("ManifestURL = %q, want %q", got, tt.want)
			}
		})
	}
	if got := ManifestURL(nil, u); got != "" {
		t.Errorf("ManifestURL(nil) = %q, want empty", got)
	}
}

func TestIconsFromManifest(t *testing.T) {
	manifest := mustURL(t, "https://static.example.com/app/manifest.json")
	body := []byte(`{"name":"App","icons":[
		{"src":"icons/192.png","sizes":"192x192","type":"image/png"},
		{"src":"/icons/512.png","sizes":"512x512","type":"image/png","purpose":"any maskable"},
		{"src":"icons/mono.png","sizes":"1024x1024","purpose":"monochrome"},
		{"src":"https://cdn.example.com/i.webp","sizes":"256x256"},
		{"src":"javascript:alert(1)","sizes":"999x999"},
		{"src":"icons/any.svg","sizes":"any","type":"image/svg+xml"}
	]}`)
	got := IconsFromManifest(body, manifest)
	want := []Candidate{
		{URL: "https://static.example.com/icons/512.png", Type: "png", Width: 512, Height: 512, Source: sourceManifest},
		{URL: "https://cdn.example.com/i.webp", Type: "webp", Width: 256, Height: 256, Source: sourceManifest},
		{URL: "https://static.example.com/app/icons/192.png", Type: "png", Width: 192, Height: 192, Source: sourceManifest},
		{URL: "https://static.example.com/app/icons/any.svg", Type: "svg", Source: sourceManifest},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IconsFromManifest =\n%+v\nwant\n%+v", got, want)
	}
	for name, body := range map[string]string{
		"not JSON": "<html>404</html>", "no icons": `{"name":"x"}`, "icons of the wrong shape": `{"icons":"x"}`, "empty": ``,
	} {
		if got := IconsFromManifest([]byte(body), manifest); len(got) != 0 {
			t.Errorf("IconsFromManifest(%s) = %+v, want nothing", name, got)
		}
	}
	if got := IconsFromManifest([]byte(`{"icons":[{"src":"a.png",},]}`), manifest); len(got) != 1 {
		t.Errorf("IconsFromManifest with trailing commas = %+v, want the icon read", got)
	}
	if got := IconsFromManifest(body, nil); got != nil {
		t.Errorf("IconsFromManifest without a URL = %+v, want nil", got)
	}
}

func TestMergeLogos(t *testing.T) {
	r := extractHTML(t, `<meta property="og:logo" content="/brand.png"><link rel="icon" sizes="32x32" href="/32.png">
		<script type="application/ld+json">{"@type":"Organization","logo":{"url":"/wide.png","width":600,"height":60}}</script>`)
	manifest := IconsFromManifest([]byte(`{"icons":[{"src":"/m192.png","sizes":"192x192"},{"src":"/32.png","sizes":"32x32"}]}`),
		mustURL(t, "https://news.example.com/manifest.json"))
	got := urls(MergeLogos(r.Logo, manifest))
	want := []string{
		"https://news.example.com/brand.png", "https://news.example.com/m192.png", "https://news.example.com/32.png",
		"https://news.example.com/wide.png", "https://news.example.com/favicon.ico",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergeLogos = %q, want %q", got, want)
	}
	if got := MergeLogos(nil, nil); len(got) != 0 {
		t.Errorf("MergeLogos(nil, nil) = %v, want nothing", got)
	}
}
