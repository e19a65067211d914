package meta

import (
	"reflect"
	"testing"
)

func TestImage(t *testing.T) {
	tests := []struct {
		name, html string
		want       []string // the first candidates, in order
	}{
		{"og:image comes first, then twitter:image",
			`<meta name="twitter:image" content="https://cdn.example.com/tw.jpg"><meta property="og:image" content="https://cdn.example.com/og.jpg">`,
			[]string{"https://cdn.example.com/og.jpg", "https://cdn.example.com/tw.jpg"}},
		{"og:image:secure_url comes before its og:image",
			`<meta property="og:image" content="http://cdn.example.com/a.jpg"><meta property="og:image:secure_url" content="https://cdn.example.com/a.jpg">`,
			[]string{"https://cdn.example.com/a.jpg", "http://cdn.example.com/a.jpg"}},
		{"several og:images keep their order", `<meta property="og:image" content="/1.jpg"><meta property="og:image" content="/2.jpg">`,
			[]string{"https://news.example.com/1.jpg", "https://news.example.com/2.jpg"}},
		{"a relative og:image on an https page is https", `<meta property="og:image" content="img/a.png">`,
			[]string{"https://news.example.com/2024/03/img/a.png"}},
		{"a protocol-relative og:image takes the page's scheme", `<meta property="og:image" content="//cdn.example.com/a.png">`,
			[]string{"https://cdn.example.com/a.png"}},
		{"an empty og:image is skipped", `<meta property="og:image" content=" "><meta name="twitter:image" content="/t.png">`,
			[]string{"https://news.example.com/t.png"}},
		{"a data: URI is no image", `<meta property="og:image" content="data:image/png;base64,iVBORw0KGgo="><meta name="twitter:image" content="/t.png">`,
			[]string{"https://news.example.com/t.png"}},
		{"a 1×1 image is no image",
			`<meta property="og:image" content="/pixel-art.png"><meta property="og:image:width" content="1"><meta property="og:image:height" content="1"><meta name="twitter:image" content="/t.png">`,
			[]string{"https://news.example.com/t.png"}},
		{"a tracking pixel is no image",
			`<meta property="og:image" content="https://www.facebook.com/tr?id=1&ev=PageView"><meta name="twitter:image" content="https://cdn.example.com/spacer.gif"><meta name="twitter:image:src" content="https://pixel.wp.com/g.gif">`,
			nil},
		{"an emoji image is no image", `<meta property="og:image" content="https://s.w.org/images/core/emoji/14.0.0/72x72/1f600.png">`, nil},
		{"a video file is no image", `<meta property="og:image" content="https://cdn.example.com/clip.mp4">`, nil},
		{"parsely-image-url is read", `<meta name="parsely-image-url" content="/parsely.jpg">`, []string{"https://news.example.com/parsely.jpg"}},
		{"a JSON-LD ImageObject is read",
			`<script type="application/ld+json">{"@type":"NewsArticle","image":{"@type":"ImageObject","url":"https://cdn.example.com/ld.jpg","width":1200,"height":630}}</script>`,
			[]string{"https://cdn.example.com/ld.jpg"}},
		{"a JSON-LD array of image URLs is read in order",
			`<script type="application/ld+json">{"@type":"Article","image":["https://cdn.example.com/1.jpg","https://cdn.example.com/2.jpg"]}</script>`,
			[]string{"https://cdn.example.com/1.jpg", "https://cdn.example.com/2.jpg"}},
		{"microdata image is read", `<div itemscope itemtype="https://schema.org/Article"><img itemprop="image" src="/m.jpg"></div>`,
			[]string{"https://news.example.com/m.jpg"}},
		{"link rel=image_src is read", `<link rel="image_src" href="/src.jpg">`, []string{"https://news.example.com/src.jpg"}},
		{"a video's poster frame is read", `<video poster="/poster.gif" src="/v.mp4"></video>`, []string{"https://news.example.com/poster.gif"}},
		{"an article image comes before other page images",
			`<div><img src="/banner.jpg"></div><article><img src="/photo.jpg" width="800" height="600"></article>`,
			[]string{"https://news.example.com/photo.jpg", "https://news.example.com/banner.jpg"}},
		{"a lazy image's real address is read", `<article><img src="data:image/gif;base64,R0lGOD" data-src="/lazy.jpg"></article>`,
			[]string{"https://news.example.com/lazy.jpg"}},
		{"the widest srcset entry is read", `<article><img srcset="/s.jpg 320w, /l.jpg 1280w, /m.jpg 640w"></article>`,
			[]string{"https://news.example.com/l.jpg"}},
		{"logos, icons and small images of the page are skipped",
			`<header><img src="/head.jpg"></header><img class="site-logo" src="/l.png"><img src="/icons/brand-icon.png"><img src="/t.jpg" width="50" height="50"><img src="/avatar_72x72.jpg">`,
			nil},
		{"a personal page's only picture is taken at last",
			`<aside><img src="/images/me.jpg" alt="Photo of author Jane"></aside>`, []string{"https://news.example.com/images/me.jpg"}},
		{"an SVG icon sized by its style is no picture of the page",
			`<article><img src="/i/arrow.svg" style="width: 16px; height: 16px"><img src="/photo.jpg"></article>`,
			[]string{"https://news.example.com/photo.jpg"}},
		{"an SVG of no declared size is no picture of the page",
			`<article><img src="/i/share.svg"><img src="/photo.jpg"></article>`, []string{"https://news.example.com/photo.jpg"}},
		{"an SVG declared large is a picture",
			`<article><img src="/chart.svg" width="640" height="480"></article>`, []string{"https://news.example.com/chart.svg"}},
		{"an image declared under 100 px in its style is skipped",
			`<article><img src="/thumb.jpg" style="max-width:80px"><img src="/big.jpg" width="800"></article>`,
			[]string{"https://news.example.com/big.jpg"}},
		{"placeholder images are skipped",
			`<article><img src="/img/default-thumb.jpg"><img src="/img/missing.png"><img src="/img/spacer1.gif"><img src="/img/no_image.png"><img src="/photo.jpg"></article>`,
			[]string{"https://news.example.com/photo.jpg"}},
		{"a lazy loader's placeholder src gives way to data-src",
			`<article><img src="/img/grey.gif" data-src="/photo.jpg"></article>`, []string{"https://news.example.com/photo.jpg"}},
		{"a lazy loader's data-srcset is read",
			`<article><img src="/img/blank.gif" data-srcset="/p-400.jpg 400w, /p-800.jpg 800w"></article>`,
			[]string{"https://news.example.com/p-800.jpg"}},
		{"a URL given twice is a candidate once",
			`<meta property="og:image" content="/a.jpg"><meta name="twitter:image" content="https://news.example.com/a.jpg">`,
			[]string{"https://news.example.com/a.jpg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := urls(extractHTML(t, tt.html).Image)
			if len(got) > len(tt.want) && len(tt.want) > 0 {
				got = got[:len(tt.want)]
			}
			if len(got) != len(tt.want) || len(got) > 0 && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("image candidates = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestImageCandidateCarriesDeclaredSizeAndType(t *testing.T) {
	r := extractHTML(t, `<meta property="og:image" content="https://cdn.example.com/a.JPEG?w=1">
		<meta property="og:image:width" content="1200"><meta property="og:image:height" content="630px">
		<meta property="og:image" content="https://img.example.com/render?id=7&format=webp">
		<meta property="og:image" content="https://img.example.com/p/42"><meta property="og:image:type" content="image/png">`)
	want := []Candidate{
		{URL: "https://cdn.example.com/a.JPEG?w=1", Type: "jpg", Width: 1200, Height: 630, Source: "og:image"},
		{URL: "https://img.example.com/render?id=7&format=webp", Type: "webp", Source: "og:image"},
		{URL: "https://img.example.com/p/42", Type: "png", Source: "og:image"},
	}
	if !reflect.DeepEqual(r.Image, want) {
		t.Errorf("image candidates = %+v, want %+v", r.Image, want)
	}
}

func TestImageCandidatesAreBounded(t *testing.T) {
	html := ""
	for i := range 30 {
		html += `<meta property="og:image" content="/` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `.jpg">`
	}
	if n := len(extractHTML(t, html).Image); n != maxImages {
		t.Errorf("%d image candidates, want at most %d", n, maxImages)
	}
}

func TestBadImage(t *testing.T) {
	for in, want := range map[string]bool{
		"https://cdn.example.com/photo.jpg":                 false,
		"https://cdn.example.com/pixel-phone-review.jpg":    false,
		"https://cdn.example.com/1x1.gif":                   true,
		"https://cdn.example.com/a/blank.gif":               true,
		"https://stats.g.doubleclick.net/r/collect":         true,
		"https://www.google-analytics.com/collect?v=1":      true,
		"https://pixel.example.com/p.png":                   true,
		"https://cdn.example.com/twemoji/2/72x72/1f600.png": true,
		"https://cdn.example.com/sound.mp3":                 true,
		"http://[::1":                                       true,
	} {
		if got := badImage(in, 0, 0); got != want {
			t.Errorf("badImage(%q) = %v, want %v", in, got, want)
		}
	}
	if !badImage("https://cdn.example.com/a.png", 1, 1) {
		t.Error("a 1×1 PNG was taken for an image")
	}
	if badImage("https://cdn.example.com/logo.svg", 1, 1) {
		t.Error("an SVG declared 1×1 was refused; SVG sizes are not pixels")
	}
}

func TestImageURLsLoseNeedlessEscapes(t *testing.T) {
	tests := []struct{ name, html, want string }{
		{"escaped unreserved characters are decoded",
			`<meta property="og:image" content="https://cdn.example.com/img/a%2Db%5Fc%7Ed%2E.jpg">`, "https://cdn.example.com/img/a-b_c~d..jpg"},
		{"escaped reserved characters stay",
			`<meta property="og:image" content="https://cdn.example.com/raw/logo%3Abrand%2Fsquare.png">`, "https://cdn.example.com/raw/logo%3Abrand%2Fsquare.png"},
		{"escaped letters in the query are decoded too",
			`<meta property="og:image" content="https://cdn.example.com/i.jpg?name=%41bc&amp;sep=%26">`, "https://cdn.example.com/i.jpg?name=Abc&sep=%26"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extractHTML(t, tt.html)
			if len(r.Image) == 0 || r.Image[0].URL != tt.want {
				t.Errorf("image = %v, want %s", urls(r.Image), tt.want)
			}
		})
	}
}
