package meta

import (
	"strings"
	"testing"
)

// farBelow is enough text between a headline and what follows it that no
// rule reading dates beside the headline reaches it.
var farBelow = strings.Repeat("<p>The trail climbs through the forest to the ridge, where the view opens over the valley and the river below.</p>", 12)

func TestDateStatementsAnywhereInTheContent(t *testing.T) {
	checkDates(t, []datesCase{
		{"a line under the text stating the last update dates the page",
			`<main><h1>Visiting the park</h1>` + farBelow + `<p style="text-align:right">Last updated: November 13, 2025</p></main>`,
			"2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z"},
		{"a few words may stand before the label",
			`<h1>Back pain</h1>` + farBelow + `<p>Page last reviewed: 3 May 2024</p>`,
			"2024-05-03T12:00:00.000Z", "2024-05-03T12:00:00.000Z", "2024-05-03T12:00:00.000Z"},
		{"a statement of publication with a time after its date",
			`<h1>A long read</h1>` + farBelow + `<div><span>Published on</span> <span>March 5, 2019 at 3:45 pm</span></div>`,
			"2019-03-05T15:45:00.000Z", "", "2019-03-05T15:45:00.000Z"},
		{"a statement of a month alone is read as its first day",
			`<main><h1>Herbs and supplements</h1>` + farBelow + `<div class="row"><div class="col"><b>Last Updated: </b>June 2022</div></div></main>`,
			"2022-06-01T12:00:00.000Z", "2022-06-01T12:00:00.000Z", "2022-06-01T12:00:00.000Z"},
		{"a sentence that mentions a day is no statement",
			`<h1>Visiting the park</h1>` + farBelow + `<p>The rules were updated on November 13, 2025 after the storm closed the road.</p>`,
			"", "", ""},
		{"a label far into its line is no statement",
			`<h1>Visiting the park</h1>` + farBelow + `<p>The visitor centre hours were last updated: November 13, 2025</p>`,
			"", "", ""},
		{"a post's edit is a date of the post, not of the page",
			`<h1>How do I sharpen a knife?</h1>` + farBelow + `<div class="post-signature"><span>edited Jul 5, 2020 at 10:00</span></div>`,
			"", "", ""},
		{"a customer's review date is no date of the page",
			`<h1>Kitchen scale</h1>` + farBelow + `<div class="review"><span>Reviewed 03/05/2024</span><p>Works well.</p></div>`,
			"", "", ""},
		{"without a main element, the site's footer is not the page",
			`<h1>Visiting the park</h1>` + farBelow + `<footer><p>Last updated: November 13, 2025</p></footer>`,
			"", "", ""},
		{"an article's own footer is the article's",
			`<article><h1>Visiting the park</h1>` + farBelow + `<footer><p>Last updated: November 13, 2025</p></footer></article>`,
			"2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z"},
		{"a declared date outranks a statement",
			`<meta property="article:published_time" content="2016-05-02T10:03:18Z"><h1>A story</h1>` + farBelow + `<p>Last updated: November 13, 2025</p>`,
			"2016-05-02T10:03:18.000Z", "2025-11-13T12:00:00.000Z", "2025-11-13T12:00:00.000Z"},
	})
}

func TestStatedDateKind(t *testing.T) {
	for _, tt := range []struct {
		text string
		kind int
		ok   bool
	}{
		{"Last updated: November 13, 2025", updatedDate, true},
		{"Updated: 10/31/2024", updatedDate, true},
		{"This page was last modified on Dec 3, 2024", updatedDate, true},
		{"Published on: June 25, 2024", publishedDate, true},
		{"Mis à jour : 30 avril 2015 à 07:38", updatedDate, true},
		{"Last Updated: June 2022", updatedDate, true},
		{"Updated by the editors on November 13, 2025", 0, false},
		{"Posted by Jane Doe on May 3, 2024", 0, false},
		{"Last edited by jane; Feb 3, 2024 at 4:12 pm", 0, false},
		{"Reviewed on: 12/03/2024", 0, false},
		{"Offer updated, ends November 13, 2025", 0, false},
		{"Updated November 13, 2025 with the winter road closures and new hours", 0, false},
		{"In 2024 we updated: November 13, 2025", 0, false},
		{"November 13, 2025", 0, false},
	} {
		kind, _, ok := statedDateKind(tt.text)
		if ok != tt.ok || ok && kind != tt.kind {
			t.Errorf("statedDateKind(%q) = %d, %v; want %d, %v", tt.text, kind, ok, tt.kind, tt.ok)
		}
	}
}
