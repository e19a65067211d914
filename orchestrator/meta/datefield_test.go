package meta

import "testing"

func TestDatePublishedAndDateModified(t *testing.T) {
	checkDates(t, []datesCase{
		{"JSON-LD gives both, and date is the modification",
			`<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2020-11-19T10:00:00Z","dateModified":"2021-06-08T16:13:03.209Z"}</script>`,
			"2020-11-19T10:00:00.000Z", "2021-06-08T16:13:03.209Z", "2021-06-08T16:13:03.209Z"},
		{"article meta tags give both",
			`<meta property="article:published_time" content="2016-05-02T10:03:18Z"><meta property="article:modified_time" content="2016-05-03T10:03:18Z">`,
			"2016-05-02T10:03:18.000Z", "2016-05-03T10:03:18.000Z", "2016-05-03T10:03:18.000Z"},
		{"a page that states no modification has a null dateModified and its publication as date",
			`<meta property="article:published_time" content="2016-05-02T10:03:18Z">`,
			"2016-05-02T10:03:18.000Z", "", "2016-05-02T10:03:18.000Z"},
		{"a page that states only a modification gives that date for its publication too",
			`<meta property="og:updated_time" content="2016-05-03T10:03:18Z">`,
			"2016-05-03T10:03:18.000Z", "2016-05-03T10:03:18.000Z", "2016-05-03T10:03:18.000Z"},
		{"a page that prints only when it was updated gives that day for its publication too",
			`<h1>Visiting the park</h1><p>Last updated: November 13, 2025</p>`,
			"2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z"},
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
		{"a date printed as time ago is read from its tooltip",
			`<h1>Development update</h1><div class="post-meta"><span class="moment-time" data-tippy-content="Friday, October 4th, 2024 at 3:43:10 PM GMT+03:00">1 year ago</span></div><p>What we worked on.</p>`,
			"2024-10-04T12:43:10.000Z", "", "2024-10-04T12:43:10.000Z"},
		{"a Bootstrap tooltip's date",
			`<h1>Development update</h1><div class="post-meta"><span class="time" data-bs-original-title="2024-10-04 15:43">a year ago</span></div><p>What we worked on.</p>`,
			"2024-10-04T15:43:00.000Z", "", "2024-10-04T15:43:00.000Z"},

		// Printed dates, by their labels.
		{"a date labelled published is the publication, one labelled updated the modification",
			`<h1>A story</h1><p>Updated 6 March 2019</p><p>Published 5 March 2019</p>`,
			"2019-03-05T12:00:00.000Z", "2019-03-06T12:00:00.000Z", "2019-03-06T12:00:00.000Z"},
		{"both labels in one line are told apart",
			`<h1>A story</h1><p class="meta">Published May 3, 2024 · Last updated June 1, 2024</p>`,
			"2024-05-03T12:00:00.000Z", "2024-06-01T12:00:00.000Z", "2024-06-01T12:00:00.000Z"},
		{"a page that prints only its update gives that date for both: the content is at least that old",
			`<h1>A guide</h1><div class="byline">By Jane Doe · Updated on November 20, 2025</div>`,
			"2025-11-20T12:00:00.000Z", "2025-11-20T12:00:00.000Z", "2025-11-20T12:00:00.000Z"},
		{"a post's permalink holds its date",
			`<h1>Turning off the LEDs</h1><div class="post"><p class="author"><a href="story.html?p=12#p12">Sun Dec 17, 2023 11:23 am</a></p><p>How?</p></div>`,
			"2023-12-17T11:23:00.000Z", "", "2023-12-17T11:23:00.000Z"},
		{"a linked date of another page is not the page's",
			`<h1>Turning off the LEDs</h1><div class="post"><p><a href="/forum/viewtopic.php?t=99">Sun Dec 17, 2023 11:23 am</a></p></div>`,
			"", "", ""},
		{"a site-logo headline does not hide the post's date",
			`<div id="brd"><h1><a href="/">Example Forums</a></h1><div class="blockpost"><h2><a href="story.html?pid=5#p5">2024-08-03 10:59:47</a></h2>` +
				`<div class="postright"><h3>Open source forum software?</h3><p>Looking for one.</p>` +
				`<p class="postedit"><em>Last edited by jane (2024-08-03 11:02:20)</em></p></div></div></div>`,
			"2024-08-03T10:59:47.000Z", "2024-08-03T11:02:20.000Z", "2024-08-03T11:02:20.000Z"},
		{"an edit date in German is a modification",
			`<h1>Ein Artikel</h1><p>Veröffentlicht am 5. März 2019</p><p>Aktualisiert am 7. März 2019</p>`,
			"2019-03-05T12:00:00.000Z", "2019-03-07T12:00:00.000Z", "2019-03-07T12:00:00.000Z"},
		{"a date labelled 配信 is the publication and one labelled 更新 the modification",
			`<h1>見出しの記事</h1><div>更新 2019年3月6日</div><div>配信 2019年3月5日</div>`,
			"2019-03-05T12:00:00.000Z", "2019-03-06T12:00:00.000Z", "2019-03-06T12:00:00.000Z"},
		{"the date a member registered is no date of the post",
			`<h1>A question about sourdough</h1><div class="post"><div class="author">baker42 Registered: 2024-01-27 Posts: 98</div><p>My starter died.</p></div>`,
			"", "", ""},

		// Other spellings and places.
		{"an itemprop spelled published-date is read",
			`<h1>A story</h1><span itemprop="published-date" content="Published Oct 20, 2025 at 5:00 PM PST">Oct 20</span>`,
			"2025-10-21T01:00:00.000Z", "", "2025-10-21T01:00:00.000Z"},
		{"a date at the start of a path segment is read",
			`<link rel="canonical" href="https://blog.example.org/articles/2025-12-15-a-backend-update">`,
			"2025-12-15T12:00:00.000Z", "", "2025-12-15T12:00:00.000Z"},
		{"og:url gives a dated path too",
			`<meta property="og:url" content="https://news.example.com/2016/04/19/a-story/">`,
			"2016-04-19T12:00:00.000Z", "", "2016-04-19T12:00:00.000Z"},
		{"a URL escaped whole still gives its path's date",
			`<meta property="og:url" content="https://blog.example.org%2Farticles%2F2025-12-15%2BA%2Bbackend">`,
			"2025-12-15T12:00:00.000Z", "", "2025-12-15T12:00:00.000Z"},
		{"a year and a number in a path are no date",
			`<link rel="canonical" href="https://shop.example.com/2024-13-05-sale">`, "", "", ""},

		// Only the main entity's dates.
		{"a comment's microdata date is not the question's",
			`<div itemscope itemtype="https://schema.org/Question"><h1 itemprop="name">Why is my bread flat?</h1>` +
				`<div itemprop="comment" itemscope itemtype="https://schema.org/Comment"><span itemprop="dateCreated">2018-05-21 20:37:55Z</span></div>` +
				`<div itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"><time itemprop="dateCreated" datetime="2014-02-05T10:00:00Z">Feb 5</time></div>` +
				`<time datetime="2014-02-04T13:02:51Z">asked Feb 4, 2014</time></div>`,
			"2014-02-04T13:02:51.000Z", "", "2014-02-04T13:02:51.000Z"},
		{"a time in the comments is not the article's",
			`<article><h1>A story</h1><p>Text.</p><section class="comments"><p class="date">January 2, 2020</p>` +
				`<time datetime="2020-01-02T00:00:00Z">Jan 2</time></section><p>Posted March 5, 2019</p></article>`,
			"2019-03-05T12:00:00.000Z", "", "2019-03-05T12:00:00.000Z"},
	})
}

// datesCase is a page and the three dates it must give; "" is null.
type datesCase struct {
	name, html                string
	published, modified, date string
}

// checkDates extracts each case's page and compares its datePublished,
// dateModified and date.
func checkDates(t *testing.T, tests []datesCase) {
	t.Helper()
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
