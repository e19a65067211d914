package meta

import "testing"

func TestPublisher(t *testing.T) {
	tests := []struct {
		name, html, pageURL, want string
	}{
		{"the main JSON-LD item's publisher comes first",
			`<meta property="og:site_name" content="Site Name"><script type="application/ld+json">{"@type":"NewsArticle","publisher":{"@type":"Organization","name":"The Publisher"}}</script>`,
			testPage, "The Publisher"},
		{"a publisher given by @id is resolved",
			`<script type="application/ld+json">{"@graph":[{"@type":"Article","publisher":{"@id":"https://x.example/#org"}},{"@type":"NewsMediaOrganization","@id":"https://x.example/#org","name":"Resolved Org"}]}</script>`,
			testPage, "Resolved Org"},
		{"og:site_name comes next", `<meta property="og:site_name" content=" Site   Name ">`, testPage, "Site Name"},
		{"application-name is read", `<meta name="application-name" content="App Name">`, testPage, "App Name"},
		{"the site's app name is read", `<meta property="al:iphone:app_name" content="NYTimes">`, testPage, "NYTimes"},
		{"the JSON-LD WebSite's name is read",
			`<script type="application/ld+json">{"@type":"WebSite","name":"Web Site"}</script>`, testPage, "Web Site"},
		{"Dublin Core publisher is read", `<meta name="dc.publisher" content="Dublin Press">`, testPage, "Dublin Press"},
		{"microdata publisher name is read",
			`<div itemprop="publisher" itemscope itemtype="https://schema.org/Organization"><meta itemprop="name" content="Micro Press"></div>`,
			testPage, "Micro Press"},
		{"the site name after the document title is read",
			`<title>A story about things | Title Site</title>`, testPage, "Title Site"},
		{"the title part that names the domain is the site, first or last",
			`<title>Example Daily | Rain expected all week</title>`, "https://www.exampledaily.com/a", "Example Daily"},
		{"the title part that names the domain wins over a last part that is a section",
			`<title>Rain expected all week - Example Daily - Weather</title>`, "https://exampledaily.co.uk/a", "Example Daily"},
		{"a title part beginning with the domain's name names the site",
			`<title>Rain expected all week :: Acme News</title>`, "https://acme.example/a", "Acme News"},
		{"with no part naming the site, the last short part is taken",
			`<title>Rain expected all week | Weather Desk</title>`, "https://www.exampledaily.com/a", "Weather Desk"},
		{"a long tail of the document title is no site name",
			`<title>Chapter one - in which a great many things happen to everyone</title>`, testPage, "news.example.com"},
		{"the site logo's alternative text names the publisher",
			`<header><a href="/"><img class="site-logo" src="/l.png" alt="Acme Corp logo"></a></header>`, testPage, "Acme Corp"},
		{"the domain is the last resort", `<p>x</p>`, "https://www.example.org/a", "example.org"},
		{"an IP address is no publisher", `<p>x</p>`, "http://127.0.0.1:8080/a", ""},
		{"a URL is no publisher", `<meta property="og:site_name" content="https://example.com/home">`, "http://127.0.0.1/", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extract(parseHTML(t, tt.html), mustURL(t, tt.pageURL), testNow)
			if got := value(r.Publisher); got != tt.want {
				t.Errorf("publisher = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTitleIsNotCutByAPublisherReadOffTheTitle(t *testing.T) {
	r := extract(parseHTML(t, `<title>Random thoughts - awk driven IoT</title>`), mustURL(t, "http://127.0.0.1/a"), testNow)
	if value(r.Publisher) != "awk driven IoT" || value(r.Title) != "Random thoughts - awk driven IoT" {
		t.Errorf("publisher %q, title %q: want the title whole and its tail as the publisher", value(r.Publisher), value(r.Title))
	}
}

func TestATitlePartThatStartsTheDomainNameIsThePublisher(t *testing.T) {
	doc := parseHTML(t, `<title>Acme | Ten trends to watch</title>`)
	r := extract(doc, mustURL(t, "https://www.acmecorp.com/blog/trends"), testNow)
	if got := value(r.Publisher); got != "Acme" {
		t.Errorf("publisher = %q, want Acme", got)
	}
	doc = parseHTML(t, `<title>Ac | Ten trends to watch</title>`)
	r = extract(doc, mustURL(t, "https://www.acmecorp.com/blog/trends"), testNow)
	if got := value(r.Publisher); got == "Ac" {
		t.Errorf("publisher = %q: a two-letter start of the domain's name is too little to say", got)
	}
}
