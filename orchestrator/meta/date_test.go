package meta

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		name, in, want string // want "" = refused
	}{
		{"ISO 8601 in UTC", "2024-02-10T00:32:11Z", "2024-02-10T00:32:11.000Z"},
		{"ISO 8601 with milliseconds", "2018-06-05T03:29:05.031Z", "2018-06-05T03:29:05.031Z"},
		{"ISO 8601 with an offset", "2016-05-24T17:27:05-04:00", "2016-05-24T21:27:05.000Z"},
		{"ISO 8601 with an offset without colon", "2016-05-24T17:27:05-0400", "2016-05-24T21:27:05.000Z"},
		{"ISO 8601 with an hour-only offset", "2016-05-24T17:27:05+02", "2016-05-24T15:27:05.000Z"},
		{"ISO 8601 without zone is UTC", "2016-05-24T21:27:05", "2016-05-24T21:27:05.000Z"},
		{"ISO 8601 with a space for the T", "2016-05-24 21:27", "2016-05-24T21:27:00.000Z"},
		{"ISO 8601 with microseconds", "2016-05-24T21:27:05.123456+00:00", "2016-05-24T21:27:05.123Z"},
		{"an ISO date alone is midnight UTC", "2016-05-26", "2016-05-26T00:00:00.000Z"},
		{"a compact ISO date", "20160526", "2016-05-26T00:00:00.000Z"},
		{"an ISO year and month", "2016-05", "2016-05-01T00:00:00.000Z"},
		{"RFC 1123 in GMT", "Tue, 24 May 2016 21:27:05 GMT", "2016-05-24T21:27:05.000Z"},
		{"RFC 1123 with a numeric zone", "Tue, 24 May 2016 17:27:05 -0400", "2016-05-24T21:27:05.000Z"},
		{"RFC 1123 with a US zone name", "Tue, 24 May 2016 17:27:05 EDT", "2016-05-24T21:27:05.000Z"},
		{"a JavaScript date string", "Tue May 24 2016 21:27:05 GMT+0000 (Coordinated Universal Time)", "2016-05-24T21:27:05.000Z"},
		{"Unix seconds", "1463398202", "2016-05-16T11:30:02.000Z"},
		{"Unix milliseconds", "1463398202123", "2016-05-16T11:30:02.123Z"},
		{"a written date is noon UTC", "November 20, 2025", "2025-11-20T12:00:00.000Z"},
		{"an abbreviated month with an ordinal day", "Nov. 20th, 2025", "2025-11-20T12:00:00.000Z"},
		{"a written date with a time and a US zone", "Nov 20, 2025 10:04 AM EST", "2025-11-20T15:04:00.000Z"},
		{"a summer date in Eastern Time is daylight time", "July 4, 2025 at 9:00 am ET", "2025-07-04T13:00:00.000Z"},
		{"a written date with p.m.", "Published May 3, 2016, 2:58 p.m. EDT", "2016-05-03T18:58:00.000Z"},
		{"the day before the month", "20 November 2025", "2025-11-20T12:00:00.000Z"},
		{"the year before the month, as journals write it", "2023 Jan 7", "2023-01-07T12:00:00.000Z"},
		{"a year, a month and a year's day in a label", "Epub 2024 Jun 30", "2024-06-30T12:00:00.000Z"},
		{"a month and year alone is no day in running text", "June 2022", ""},
		{"a weekday before the date", "Tuesday, 24 May 2016", "2016-05-24T12:00:00.000Z"},
		{"French month names", "20 novembre 2025", "2025-11-20T12:00:00.000Z"},
		{"Spanish with de", "20 de noviembre de 2025", "2025-11-20T12:00:00.000Z"},
		{"German with a dotted day", "20. November 2025 um 14:30", "2025-11-20T14:30:00.000Z"},
		{"Portuguese abbreviations", "3 out 2016", "2016-10-03T12:00:00.000Z"},
		{"Ukrainian genitive month", "9 жовтня 2025 р.", "2025-10-09T12:00:00.000Z"},
		{"Russian genitive month", "13 июня 2019, 20:20", "2019-06-13T20:20:00.000Z"},
		{"Chinese year-month-day", "2025年11月20日", "2025-11-20T12:00:00.000Z"},
		{"a US slash date is month first", "11/20/2025", "2025-11-20T12:00:00.000Z"},
		{"a slash date that cannot be month first", "20/11/2025", "2025-11-20T12:00:00.000Z"},
		{"a dotted date is day first", "05.11.2025", "2025-11-05T12:00:00.000Z"},
		{"a year-first slash date", "2025/11/20 08:15", "2025-11-20T08:15:00.000Z"},
		{"hours ago", "3 hours ago", "2026-01-15T09:00:00.000Z"},
		{"an hour ago", "an hour ago", "2026-01-15T11:00:00.000Z"},
		{"yesterday", "Yesterday", "2026-01-14T12:00:00.000Z"},
		{"years ago is too vague", "3 years ago", ""},
		{"a date in the future is refused", "2027-01-01T00:00:00Z", ""},
		{"tomorrow within a day is accepted", "2026-01-16T06:00:00Z", "2026-01-16T06:00:00.000Z"},
		{"a date before 1995 is refused", "1994-12-31T23:59:59Z", ""},
		{"a date of 1995 is accepted", "1995-01-01T00:00:00Z", "1995-01-01T00:00:00.000Z"},
		{"Unix zero is refused", "0000000000", ""},
		{"31 June does not exist", "2016-06-31", ""},
		{"a bare year is too vague", "2016", ""},
		{"a month without a day is too vague", "May 2016", ""},
		{"a year-first dotted date", "2019.03.05", "2019-03-05T12:00:00.000Z"},
		{"Italian month names", "5 marzo 2019", "2019-03-05T12:00:00.000Z"},
		{"Dutch month names", "5 maart 2019", "2019-03-05T12:00:00.000Z"},
		{"Portuguese with de", "5 de março de 2019", "2019-03-05T12:00:00.000Z"},
		{"text without a date", "Updated recently by our staff", ""},
		{"an empty string", "   ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseDate(tt.in, testNow)
			if tt.want == "" {
				if ok {
					t.Errorf("ParseDate(%q) = %s, want it refused", tt.in, FormatDate(got))
				}
				return
			}
			if !ok {
				t.Fatalf("ParseDate(%q) refused it, want %s", tt.in, tt.want)
			}
			if s := FormatDate(got); s != tt.want {
				t.Errorf("ParseDate(%q) = %s, want %s", tt.in, s, tt.want)
			}
			if got.Location() != time.UTC {
				t.Errorf("ParseDate(%q) is in %v, want UTC", tt.in, got.Location())
			}
		})
	}
}

func TestDate(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"JSON-LD dateModified wins over datePublished, as Microlink reports",
			`<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2020-11-19T10:00:00Z","dateModified":"2021-06-08T16:13:03.209Z"}</script>`,
			"2021-06-08T16:13:03.209Z"},
		{"article:modified_time wins over article:published_time",
			`<meta property="article:published_time" content="2016-05-02T10:03:18Z"><meta property="article:modified_time" content="2016-05-03T10:03:18Z">`,
			"2016-05-03T10:03:18.000Z"},
		{"JSON-LD datePublished is read",
			`<script type="application/ld+json">{"@type":"BlogPosting","datePublished":"2017-06-11T14:11:02+00:00"}</script>`,
			"2017-06-11T14:11:02.000Z"},
		{"article:published_time is read", `<meta property="article:published_time" content="2016-05-24T21:27:05Z">`,
			"2016-05-24T21:27:05.000Z"},
		{"an unparsable modified date falls through to the published one",
			`<meta property="article:modified_time" content="soon"><meta property="article:published_time" content="2016-05-24">`,
			"2016-05-24T00:00:00.000Z"},
		{"a future modified date falls through to the published one",
			`<meta property="article:modified_time" content="2030-01-01"><meta property="article:published_time" content="2016-05-24">`,
			"2016-05-24T00:00:00.000Z"},
		{"microdata datePublished is read", `<meta itemprop="datePublished" content="2015-09-30T15:12:00Z">`, "2015-09-30T15:12:00.000Z"},
		{"RDFa datePublished is read", `<span property="schema:datePublished" content="2015-09-30">Sept 30</span>`, "2015-09-30T00:00:00.000Z"},
		{"citation_publication_date is read", `<meta name="citation_publication_date" content="2019/06/13">`, "2019-06-13T12:00:00.000Z"},
		{"a journal's year and month is the month's first day", `<meta name="citation_publication_date" content="2023 Jan">`, "2023-01-01T00:00:00.000Z"},
		{"a declared month written out", `<meta name="dc.date" content="June 2022">`, "2022-06-01T00:00:00.000Z"},
		{"parsely-pub-date is read", `<meta name="parsely-pub-date" content="2019-06-13T17:20:47Z">`, "2019-06-13T17:20:47.000Z"},
		{"sailthru.date is read", `<meta name="sailthru.date" content="2019-06-13 17:20:47">`, "2019-06-13T17:20:47.000Z"},
		{"the date meta tag is read", `<meta name="date" content="2016-05-16">`, "2016-05-16T00:00:00.000Z"},
		{"a time element in the article wins over one elsewhere",
			`<aside><time datetime="2015-01-01T00:00:00Z">old</time></aside><article><time datetime="2016-05-16T09:00:00Z">today</time></article>`,
			"2016-05-16T09:00:00.000Z"},
		{"any element with a datetime attribute counts",
			`<relative-time datetime="2021-10-13T09:57:01Z">Oct 13</relative-time>`, "2021-10-13T09:57:01.000Z"},
		{"a visible date in the article's byline is read",
			`<article><p class="post-meta">by <a rel="author" href="/a">Kyt Dotson</a> | May 16, 2016 | 0 comments</p></article>`,
			"2016-05-16T12:00:00.000Z"},
		{"a date in the canonical URL's path is read",
			`<link rel="canonical" href="https://news.example.com/2016/04/19/a-story/">`, "2016-04-19T12:00:00.000Z"},
		{"a page without a date has none", `<p>text</p>`, ""},

		// Meta names are compared by their words, whatever their spelling.
		{"OriginalPublicationDate is read", `<meta name="OriginalPublicationDate" content="2019/03/05 10:00:00">`, "2019-03-05T10:00:00.000Z"},
		{"rnews:datePublished is read", `<meta property="rnews:datePublished" content="2019-03-05T10:00:00Z">`, "2019-03-05T10:00:00.000Z"},
		{"DC.date.issued is read", `<meta name="DC.date.issued" content="2019-03-05T10:00:00Z">`, "2019-03-05T10:00:00.000Z"},
		{"DC.date.created is read", `<meta name="DC.date.created" content="2019-03-05T10:00:00Z">`, "2019-03-05T10:00:00.000Z"},
		{"publish_date is read", `<meta name="publish_date" content="2019-03-05T10:00:00Z">`, "2019-03-05T10:00:00.000Z"},
		{"the pub_date inside parsely-page is read",
			`<meta name="parsely-page" content='{"title":"A story","pub_date":"2019-03-05T10:00:00Z","section":"News"}'>`, "2019-03-05T10:00:00.000Z"},
		{"a modified date under another spelling still wins",
			`<meta name="dcterms.modified" content="2019-03-06T10:00:00Z"><meta name="date-published" content="2019-03-05T10:00:00Z">`,
			"2019-03-06T10:00:00.000Z"},
		{"a publication date wins over an issued one",
			`<meta name="dcterms.issued" content="2019-03-01T10:00:00Z"><meta name="datePublished" content="2019-03-05T10:00:00Z">`,
			"2019-03-05T10:00:00.000Z"},
		{"the Last-Modified header given as http-equiv is no date of the content",
			`<meta http-equiv="Last-Modified" content="Tue, 24 May 2016 21:27:05 GMT"><meta property="article:published_time" content="2016-05-02T10:00:00Z">`,
			"2016-05-02T10:00:00.000Z"},
		{"a date given only as http-equiv is no date at all",
			`<meta http-equiv="last-modified" content="2016-05-24T21:27:05Z">`, ""},

		// Dates printed near the headline, without any date markup.
		{"a numeric date near the headline is read", `<h1>A story</h1><div class="x9">2019.03.05</div>`, "2019-03-05T12:00:00.000Z"},
		{"a CJK date near the headline is read", `<h1>見出しの記事</h1><p>2019年3月5日</p>`, "2019-03-05T12:00:00.000Z"},
		{"an English date near the headline is read", `<h1>A story</h1><p><span>March 5, 2019</span></p>`, "2019-03-05T12:00:00.000Z"},
		{"a German date near the headline is read", `<h1>Ein Artikel</h1><span>5. März 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"a French date near the headline is read", `<h1>Un article</h1><span>5 mars 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"a Spanish date near the headline is read", `<h1>Un artículo</h1><span>5 de marzo de 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"a Portuguese date near the headline is read", `<h1>Um artigo</h1><span>5 de março de 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"an Italian date near the headline is read", `<h1>Un articolo</h1><span>5 marzo 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"a Dutch date near the headline is read", `<h1>Een artikel</h1><span>5 maart 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"a Russian date near the headline is read", `<h1>Статья</h1><span>5 марта 2019</span>`, "2019-03-05T12:00:00.000Z"},
		{"a date labelled updated is the modification, which date gives first",
			`<h1>A story</h1><p>Updated 6 March 2019</p><p>Published 5 March 2019</p>`, "2019-03-06T12:00:00.000Z"},
		{"a date in the byline wins over another near the headline",
			`<h1>A story</h1><div class="x">Weekly edition for March 26, 2015</div><div class="y">By Jane Doe, March 25, 2015</div>`,
			"2015-03-25T12:00:00.000Z"},
		{"a date labelled 更新 is the modification, which date gives first",
			`<h1>見出しの記事</h1><div>更新 2019年3月6日</div><div>配信 2019年3月5日</div>`, "2019-03-06T12:00:00.000Z"},
		{"a date in a list of linked posts is not the article's",
			`<h1>A blog</h1><ul><li><a href="/p/1">A trip to the coast (2016/07/30)</a></li></ul>`, ""},
		{"a byline with a link beside its date is read",
			`<h1>A story</h1><div>Posted by Jane Doe on 2019-02-15, <a href="/blog/">all posts</a></div>`, "2019-02-15T12:00:00.000Z"},
		{"a date inside the headline is not the page's", `<h1>The 2019.03.05 meeting</h1>`, ""},
		{"a date in the navigation is not the article's", `<nav><span>5 March 2019</span></nav><h1>A story</h1>`, ""},

		// Zones.
		{"a zoned data attribute beside a zone-less datetime is read first",
			`<time datetime="2019-03-05T10:00" data-origindate="2019-03-05T10:00:00+09:00">10:00</time>`, "2019-03-05T01:00:00.000Z"},
		{"a zoned copy of the same wall time gives the zone",
			`<meta property="article:published_time" content="2019-03-05 10:00:00"><time datetime="2019-03-05T10:00:00+09:00">10:00</time>`,
			"2019-03-05T01:00:00.000Z"},
		{"a zoned copy keeps the seconds the chosen time gives",
			`<meta property="article:published_time" content="2019-03-05 10:00:07"><h1>A story</h1><p>March 5, 2019 10:00 EST</p>`,
			"2019-03-05T15:00:07.000Z"},
		{"a zoned time that is another time does not replace a zone-less one",
			`<meta property="article:published_time" content="2019-03-05 10:00:00"><time datetime="2019-03-05T11:30:00+09:00">11:30</time>`,
			"2019-03-05T10:00:00.000Z"},

		// Bare days.
		{"a bare day gives way to the full time on that day",
			`<meta property="article:published_time" content="2019-03-05"><time datetime="2019-03-05T18:30:00-05:00">evening</time>`,
			"2019-03-05T23:30:00.000Z"},
		{"a bare day stays when the other time has no zone",
			`<meta property="article:published_time" content="2019-03-05"><time datetime="2019-03-05T18:30:00">evening</time>`,
			"2019-03-05T00:00:00.000Z"},
		{"a bare day stays when the full time is on another day",
			`<meta property="article:published_time" content="2019-03-05"><time datetime="2019-03-07T18:30:00Z">later</time>`,
			"2019-03-05T00:00:00.000Z"},
		{"a day in the URL gives way to the time printed near the headline",
			`<link rel="canonical" href="https://news.example.com/2016/04/19/a-story/"><h1>A story</h1><p>April 19, 2016, 3:00 pm EDT</p>`,
			"2016-04-19T19:00:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// testPage carries no day in its path, so the URL rule stays quiet
			// unless a test gives a canonical URL.
			if got := value(extractHTML(t, tt.html).Date); got != tt.want {
				t.Errorf("date = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseDateInfoKnowsWhatTheTextGave(t *testing.T) {
	tests := []struct {
		name, in       string
		dayOnly, zoned bool
	}{
		{"an ISO day is a bare day", "2019-03-05", true, false},
		{"an ISO time without a zone is zone-less", "2019-03-05T10:00", false, false},
		{"an ISO time in UTC is zoned", "2019-03-05T10:00:00Z", false, true},
		{"an ISO time with an offset is zoned", "2019-03-05T10:00:00+09:00", false, true},
		{"a time followed by UTC is zoned", "2019-03-05 10:00 UTC", false, true},
		{"a written date is a bare day", "March 5, 2019", true, false},
		{"a written date with a zone name is zoned", "March 5, 2019 10:00 EST", false, true},
		{"a written date with a time and no zone is zone-less", "5. März 2019 um 10:00", false, false},
		{"Unix time is an instant", "1551780000", false, true},
		{"RFC 1123 is zoned", "Tue, 05 Mar 2019 10:00:00 GMT", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := parseDateInfo(tt.in, testNow)
			if !ok {
				t.Fatalf("parseDateInfo(%q) refused it", tt.in)
			}
			if d.dayOnly != tt.dayOnly || d.zoned != tt.zoned {
				t.Errorf("parseDateInfo(%q) = day only %v, zoned %v; want %v, %v", tt.in, d.dayOnly, d.zoned, tt.dayOnly, tt.zoned)
			}
		})
	}
}

func TestParseDateReadsTimesWrittenWithADot(t *testing.T) {
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct{ name, in, want string }{
		{"a dotted p.m. time with India's zone", "Updated: Mar 5, 2024, 10.34PM IST", "2024-03-05T17:04:00.000Z"},
		{"a dotted a.m. time without a zone", "5 March 2024 9.05 am", "2024-03-05T09:05:00.000Z"},
		{"a decimal number is no time", "March 5, 2024 rated 4.50 of 5", "2024-03-05T12:00:00.000Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseDate(tt.in, now)
			if !ok || FormatDate(got) != tt.want {
				t.Errorf("ParseDate(%q) = %s, %v; want %s", tt.in, FormatDate(got), ok, tt.want)
			}
		})
	}
}
