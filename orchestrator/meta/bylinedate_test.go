package meta

import (
	"strings"
	"testing"
)

// The day printed beside the writer's name is the publication's, wherever
// the byline stands: under the headline, or in a box at the article's end.
func TestTheBylinesDateIsThePublications(t *testing.T) {
	body := strings.Repeat(`<p>The ferry now leaves at seven, and the last crossing on Sundays is gone until the spring timetable begins.</p>`, 12)
	checkDates(t, []datesCase{
		{"a date beside the writer's name at the article's end",
			`<meta name="author" content="Moses Kim"><article><h1>The new timetable</h1>` + body +
				`<div class="card"><img src="/kim.jpg" alt=""><div><a href="/team/moses-kim">Moses Kim</a><p class="small">April 8, 2024</p></div></div></article>`,
			"2024-04-08T12:00:00.000Z", "", "2024-04-08T12:00:00.000Z"},
		{"a date beside the first of several writers",
			`<meta name="author" content="Jane Roe and John Doe"><article><h1>The new timetable</h1>` + body +
				`<footer><span>Jane Roe</span> · <span>John Doe</span> · <span>8 April 2024</span></footer></article>`,
			"2024-04-08T12:00:00.000Z", "", "2024-04-08T12:00:00.000Z"},
		{"an update beside the name is the modification",
			`<meta name="author" content="Moses Kim"><article><h1>The new timetable</h1>` + body +
				`<div><b>Moses Kim</b> <span>Updated April 9, 2024</span></div></article>`,
			"2024-04-09T12:00:00.000Z", "2024-04-09T12:00:00.000Z", "2024-04-09T12:00:00.000Z"},
		{"the writer's other posts, linked with their dates, are not this one's",
			`<meta name="author" content="Moses Kim"><article><h1>The new timetable</h1>` + body +
				`<div><b>Moses Kim</b><ul><li><a href="/old">The old timetable, March 2, 2023</a></li></ul></div></article>`,
			"", "", ""},
		{"a date far from the name, in a paragraph, is not the byline's",
			`<meta name="author" content="Moses Kim"><article><h1>The new timetable</h1><p>By <b>Moses Kim</b></p>` + body +
				`<p>` + strings.Repeat("The harbour master said the change was long planned. ", 8) + `It was first proposed on April 8, 2021.</p></article>`,
			"", "", ""},
	})
}
