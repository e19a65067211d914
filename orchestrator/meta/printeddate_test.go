package meta

import (
	"strings"
	"testing"
)

// TestPrintedDatesAgainstDeclaredOnes covers when the date a page prints
// beside its headline outranks the dates its markup declares, and how a
// printed date inherits a label printed in an element of its own.
func TestPrintedDatesAgainstDeclaredOnes(t *testing.T) {
	ld := func(body string) string {
		return `<script type="application/ld+json">{"@type":"BlogPosting",` + body + `}</script>`
	}
	checkDates(t, []datesCase{
		{"a printed date no declared date names outranks a declared publication the page never shows",
			ld(`"datePublished":"2025-11-20T16:02:46Z"`) +
				`<article><h1>Short video that works</h1><div class="author"><span>Ana Lima</span><span>Editor</span><span>May 14, 2025</span></div><p>Text.</p></article>`,
			"2025-05-14T12:00:00.000Z", "", "2025-05-14T12:00:00.000Z"},
		{"a printed date that is the declared modification leaves the declared publication",
			ld(`"datePublished":"2024-09-06T13:12:36Z","dateModified":"2025-11-14T06:49:57Z"`) +
				`<article><h1>Ten uses of a ladder</h1><div class="meta"><span>Joe Bloggs</span><span>November 14, 2025</span></div><p>Text.</p></article>`,
			"2024-09-06T13:12:36.000Z", "2025-11-14T06:49:57.000Z", "2025-11-14T06:49:57.000Z"},
		{"a printed date the declared publication names is refined by its instant",
			ld(`"datePublished":"2023-02-01T08:30:00-05:00"`) +
				`<article><h1>Snow days</h1><p class="byline">By Sam Reed · February 1, 2023</p><p>Text.</p></article>`,
			"2023-02-01T13:30:00.000Z", "", "2023-02-01T13:30:00.000Z"},
		{"a declared publication the page prints elsewhere stands against a changelog date beside the headline",
			`<meta property="article:published_time" content="2021-01-18T19:55:00+01:00">` +
				`<article><h1>Picking a tool</h1><ul><li>2021-08-09 Added a note on costs.</li></ul>` +
				`<p>Long text of the article.</p><footer><span class="date">Published on 2021-01-18</span></footer></article>`,
			"2021-01-18T18:55:00.000Z", "", "2021-01-18T18:55:00.000Z"},
		{"a printed publication beside a printed update outranks a declared publication on the update's day",
			ld(`"datePublished":"Aug 21, 2025","dateModified":"Aug 20, 2025"`) +
				`<article><h1>Top builders</h1><div class="info">Published <b>Apr 26, 2023</b></div><div class="info">Updated <b>Aug 21, 2025</b></div><p>Text.</p></article>`,
			"2023-04-26T12:00:00.000Z", "2025-08-20T12:00:00.000Z", "2025-08-20T12:00:00.000Z"},
		{"an instant written in UTC refines the printed day it falls on in the site's zone",
			`<meta property="article:published_time" content="2025-12-02T23:00:55+00:00">` +
				`<article><h1>Brands to know</h1><p class="meta">Published: 03 Dec 2025</p><p>Text.</p></article>`,
			"2025-12-02T23:00:55.000Z", "", "2025-12-02T23:00:55.000Z"},
		{"a printed day two days from a declared instant is another day",
			`<meta property="article:published_time" content="2025-12-05T23:00:55+00:00">` +
				`<article><h1>Brands to know</h1><p class="meta">03 Dec 2025</p><p>Text.</p></article>`,
			"2025-12-03T12:00:00.000Z", "", "2025-12-03T12:00:00.000Z"},
		{"a numeric date that reads both ways is read as the markup reads it",
			ld(`"datePublished":"2024-09-10T16:07:00Z"`) +
				`<article><h1>Renovation phases</h1><p class="byline">By Block Team 09.10.2024</p><p>Text.</p></article>`,
			"2024-09-10T16:07:00.000Z", "", "2024-09-10T16:07:00.000Z"},
		{"a time printed to the minute takes its seconds from a copy",
			`<article><h1>Storage news</h1><p class="byline">by Jo Park on April 29, 2016, 7:31 pm EDT</p>` +
				`<time datetime="2016-04-29T19:31:03-0400"></time><p>Text.</p></article>`,
			"2016-04-29T23:31:03.000Z", "", "2016-04-29T23:31:03.000Z"},

		// A publication declared after every declared change.
		{"a publication declared after the latest declared change is a republication",
			`<meta name="published-time" content="2026-01-09T08:45:32Z"><meta name="modified-time" content="2025-11-15T17:15:38Z">` +
				`<meta name="published-date" content="2021-02-16">`,
			"2021-02-16T00:00:00.000Z", "2025-11-15T17:15:38.000Z", "2025-11-15T17:15:38.000Z"},
		{"a publication declared hours after a change, as zones skew it, stands",
			`<meta property="article:published_time" content="2025-11-15T20:00:00-08:00"><meta property="article:modified_time" content="2025-11-15T10:00:00Z">`,
			"2025-11-16T04:00:00.000Z", "2025-11-15T10:00:00.000Z", "2025-11-15T10:00:00.000Z"},
		{"a publication declared after a change yields to a time element",
			ld(`"datePublished":"2025-06-12","dateModified":"2025-06-01"`) +
				`<article><h1>Fitness basics</h1><time datetime="2022-11-02T09:00:00Z"></time><p>Text.</p></article>`,
			"2022-11-02T09:00:00.000Z", "2025-06-01T00:00:00.000Z", "2025-06-01T00:00:00.000Z"},
		{"a publication declared after a change is still the publication when nothing else is",
			ld(`"datePublished":"2025-06-12","dateModified":"2025-06-01"`),
			"2025-06-12T00:00:00.000Z", "2025-06-01T00:00:00.000Z", "2025-06-01T00:00:00.000Z"},

		// Teasers of other pages beside the headline.
		{"a related story's card beside the headline does not outrank the declared date",
			`<meta property="article:published_time" content="2024-02-01T10:00:00Z">` +
				`<article><h1>Main story</h1><div class="card"><h3><a href="/other">Other story</a></h3><span>May 3, 2024</span></div><p>Text.</p></article>`,
			"2024-02-01T10:00:00.000Z", "", "2024-02-01T10:00:00.000Z"},
		{"a card's date still stands for a page that gives no other",
			`<article><h1>Main story</h1><div class="card"><h3><a href="/other">Other story</a></h3><span>May 3, 2024</span></div><p>Text.</p></article>`,
			"2024-05-03T12:00:00.000Z", "", "2024-05-03T12:00:00.000Z"},
		{"a heading that links to the page itself makes no teaser",
			`<meta property="article:published_time" content="2024-02-01T10:00:00Z">` +
				`<article><h1>Main story</h1><div class="head"><h2><a href="/2024/03/story.html">Main story, part one</a></h2><span>May 3, 2024</span></div><p>Text.</p></article>`,
			"2024-05-03T12:00:00.000Z", "", "2024-05-03T12:00:00.000Z"},

		// Labels printed in an element of their own.
		{"a label in the element before the date makes it an update",
			ld(`"datePublished":"2024-02-01T15:46:14Z"`) +
				`<article><h1>Video basics</h1><div class="head"><div>Jane Roe</div><div><div>Updated on</div><div>April 19, 2025</div></div></div><p>Text.</p></article>`,
			"2024-02-01T15:46:14.000Z", "2025-04-19T12:00:00.000Z", "2025-04-19T12:00:00.000Z"},
		{"a label in the enclosing text makes a time element an update",
			ld(`"datePublished":"2020-05-13T20:03:25Z"`) +
				`<article><h1>Car rentals</h1><span class="d">Updated: <time>January 2, 2025, 9:06am CST</time></span><p>Text.</p></article>`,
			"2020-05-13T20:03:25.000Z", "2025-01-02T15:06:00.000Z", "2025-01-02T15:06:00.000Z"},
		{"a label followed by another date is that date's",
			`<article><h1>Kettles</h1><p class="m">Updated May 2, 2024 · <span>April 1, 2024</span></p><p>Text.</p></article>`,
			"2024-04-01T12:00:00.000Z", "2024-05-02T12:00:00.000Z", "2024-05-02T12:00:00.000Z"},
		{"a thread's first post outranks the latest activity and the latest post's time",
			`<div class="thread"><h1>Which router?</h1><p>Started by kim, June 4, 2024, 11:23:55 AM</p>` +
				`<p>last post by lee <span>Sep 26, 2024</span></p><div class="post"><time datetime="2024-09-26T08:00:00Z">Sep 26</time></div></div>`,
			"2024-06-04T11:23:55.000Z", "", "2024-06-04T11:23:55.000Z"},
		{"the latest activity of a thread is no modification",
			`<div class="thread"><h1>Which router?</h1><p>6 replies · last reply <span>Sep 26, 2024</span></p></div>`,
			"", "", ""},
		{"a label far from the date in a long paragraph is not its label",
			`<article><h1>Notes</h1><p>Updated guidance ` + strings.Repeat("on many things ", 20) + `<span>March 3, 2024</span></p></article>`,
			"2024-03-03T12:00:00.000Z", "", "2024-03-03T12:00:00.000Z"},
	})
}
