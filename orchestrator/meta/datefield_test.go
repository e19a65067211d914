package meta

import "testing"

func TestDatePublishedAndDateModified(t *testing.T) {
	tests := []struct {
		name, html                string
		published, modified, date string // "" = null
	}{
		{"JSON-LD gives both, and date is the modification",
			`<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2020-11-19T10:00:00Z","dateModified":"2021-06-08T16:13:03.209Z"}</script>`,
			"2020-11-19T10:00:00.000Z", "2021-06-08T16:13:03.209Z", "2021-06-08T16:13:03.209Z"},
		{"article meta tags give both",
			`<meta property="article:published_time" content="2016-05-02T10:03:18Z"><meta property="article:modified_time" content="2016-05-03T10:03:18Z">`,
			"2016-05-02T10:03:18.000Z", "2016-05-03T10:03:18.000Z", "2016-05-03T10:03:18.000Z"},
		{"a page that states no modification has a null dateModified and its publication as date",
			`<meta property="article:published_time" content="2016-05-02T10:03:18Z">`,
			"2016-05-02T10:03:18.000Z", "", "2016-05-02T10:03:18.000Z"},
		{"a page that states only a modification has a null datePublished",
			`<meta property="og:updated_time" content="2016-05-03T10:03:18Z">`,
			"", "2016-05-03T10:03:18.000Z", "2016-05-03T10:03:18.000Z"},
		{"Dublin Core created and modified",
			`<meta name="dcterms.created" content="2019-03-05"><meta name="dcterms.modified" content="2019-04-01">`,
			"2019-03-05T00:00:00.000Z", "2019-04-01T00:00:00.000Z", "2019-04-01T00:00:00.000Z"},
		{"microdata datePublished and dateModified",
			`<article itemscope itemtype="https://schema.org/Article"><meta itemprop="datePublished" content="2015-09-30"><meta itemprop="dateModified" content="2015-10-02"></article>`,
			"2015-09-30T00:00:00.000Z", "2015-10-02T00:00:00.000Z", "2015-10-02T00:00:00.000Z"},
		{"the publication date printed beside the headline is no modification",
			`<h1>A story</h1><p>March 5, 2019</p>`,
			"2019-03-05T12:00:00.000Z", "", "2019-03-05T12:00:00.000Z"},
		{"a page without dates has neither", `<h1>A story</h1><p>text</p>`, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := extractHTML(t, tt.html)
			if got := value(r.DatePublished); got != tt.published {
				t.Errorf("datePublished = %q, want %q", got, tt.published)
			}
			if got := value(r.DateModified); got != tt.modified {
				t.Errorf("dateModified = %q, want %q", got, tt.modified)
			}
			if got := value(r.Date); got != tt.date {
				t.Errorf("date = %q, want %q", got, tt.date)
			}
		})
	}
}
