package meta

import "testing"

func TestURL(t *testing.T) {
	tests := []struct {
		name, html, pageURL, want string
	}{
		{"og:url comes first", `<link rel="canonical" href="https://example.com/canonical"><meta property="og:url" content="https://example.com/og">`,
			testPage, "https://example.com/og"},
		{"the canonical link is read", `<link rel="canonical" href="https://example.com/canonical">`, testPage, "https://example.com/canonical"},
		{"a relative canonical is resolved against the final URL", `<link rel="canonical" href="/2024/03/story">`,
			testPage, "https://news.example.com/2024/03/story"},
		{"a protocol-relative canonical takes the page's scheme", `<link rel="canonical" href="//news.example.com/s">`,
			testPage, "https://news.example.com/s"},
		{"a canonical on another host is kept", `<link rel="canonical" href="https://www.radiolab.org/podcast/wubi-effect">`,
			testPage, "https://www.radiolab.org/podcast/wubi-effect"},
		{"a bare host gets its slash", `<meta property="og:url" content="https://learnnode.com">`, testPage, "https://learnnode.com/"},
		{"a javascript: canonical is skipped", `<link rel="canonical" href="javascript:void(0)">`, testPage, testPage},
		{"an empty og:url is skipped", `<meta property="og:url" content=""><link rel="canonical" href="/c">`, testPage, "https://news.example.com/c"},
		{"the fragment is dropped", `<link rel="canonical" href="https://example.com/a#comments">`, testPage, "https://example.com/a"},
		{"the x-default alternate is read", `<link rel="alternate" hreflang="x-default" href="https://example.com/intl">`, testPage, "https://example.com/intl"},
		{"<base href> is honoured", `<base href="https://cdn.example.net/dir/"><link rel="canonical" href="page">`, testPage, "https://cdn.example.net/dir/page"},
		{"without any the final URL is the answer", `<p>x</p>`, "http://127.0.0.1:8080/case/", "http://127.0.0.1:8080/case/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extract(parseHTML(t, tt.html), mustURL(t, tt.pageURL), testNow)
			if got := value(r.URL); got != tt.want {
				t.Errorf("url = %q, want %q", got, tt.want)
			}
		})
	}
}
