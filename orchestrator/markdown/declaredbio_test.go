package markdown

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestTheBoxThatSaysWhatThePageDeclaresOfItsWriterGoes(t *testing.T) {
	const story = `<p>The river ferry has crossed at the old ford since the bridge washed away, forty cars a day in the busy months of summer.</p>
<p>Its captain keeps a log of every crossing, and the log shows the river higher each spring than the spring before it.</p>
<p>The county plans a new bridge upstream, but the ferry's regulars say they will miss the ten minutes on the water each morning.</p>
<p>Until the bridge opens, the ferry runs from six in the morning until the last light, and on market days until nine.</p>
<p>The captain's daughter will take the wheel next year, the fourth of her family to run the crossing since the ford was paved.</p>`
	const bio = `Tomas Reyes is a staff writer who covers rivers, roads and the towns between them, and has reported from the valley for twelve years.`
	box := func(b string) string {
		// A box of hashed class names: nothing but what it says tells
		// what it is.
		return `<div class="css-1x2y3z"><img src="/people/tomas.jpg" alt="Headshot of Tomas Reyes"><div class="css-9a8b7c"><a href="/author/tomas">Tomas Reyes</a>` +
			`<span>Staff Writer</span></div><div class="css-4d5e6f"><p>` + b + `</p></div><a href="/author/tomas">View author page</a></div>`
	}
	ld := func(s string) string { return `<script type="application/ld+json">` + s + `</script>` }
	inline := ld(`{"@context":"https://schema.org","@type":"NewsArticle","headline":"The last ferry","author":{"@type":"Person","name":"Tomas Reyes","description":"` + bio + `"}}`)
	graph := ld(`{"@context":"https://schema.org","@graph":[{"@type":"Article","@id":"https://example.com/ferry/#article","headline":"The last ferry",` +
		`"author":{"name":"Tomas Reyes","@id":"https://example.com/#/schema/person/7f3"}},` +
		`{"@type":"Person","@id":"https://example.com/#/schema/person/7f3","name":"Tomas Reyes","description":"` + bio + `"}]}`)
	byAddress := ld(`[{"@type":"Article","headline":"The last ferry","author":"https://example.com/#/schema/person/7f3"},` +
		`{"@type":"Person","@id":"https://example.com/#/schema/person/7f3","name":"Tomas Reyes","description":"` + bio + `"}]`)
	marked := ld(`{"@type":"BlogPosting","headline":"The last ferry","author":[{"@type":"Person","name":"Tomas Reyes","description":"<p>` + bio + `</p>"}]}`)
	for _, tc := range []struct {
		name, head, body string
		want, unwanted   []string
	}{
		{name: "a writer declared in the article", head: inline, body: story + box(bio),
			want: []string{"ford was paved"}, unwanted: []string{"Tomas Reyes", "Staff Writer", "View author page", "tomas.jpg"}},
		{name: "a writer declared once in the graph and pointed to", head: graph, body: story + box(bio),
			want: []string{"ford was paved"}, unwanted: []string{"Tomas Reyes", "View author page"}},
		{name: "a writer pointed to by its address alone", head: byAddress, body: story + box(bio),
			want: []string{"ford was paved"}, unwanted: []string{"Tomas Reyes"}},
		{name: "a description declared with its markup", head: marked, body: story + box(bio),
			want: []string{"ford was paved"}, unwanted: []string{"Tomas Reyes"}},
		{name: "a box over the story", head: inline, body: box(bio) + story,
			want: []string{"ford was paved", "forty cars a day"}, unwanted: []string{"Tomas Reyes"}},
		{name: "a box that says a little more than the description", head: inline,
			body: story + box(bio+` Before that he wrote about farming for the county paper.`),
			want: []string{"ford was paved"}, unwanted: []string{"Tomas Reyes", "farming for the county paper"}},

		// What stays.
		{name: "a box beside more of the story", head: inline,
			body: story + `<div class="css-q1">` + box(bio) + `<p>Correction: an earlier version of this story gave the wrong year for the flood that washed the bridge away; ` +
				`it was the spring flood of the year the mill closed, and the ferry has run every day since then except on the three days of the great freeze.</p></div>`,
			want: []string{"ford was paved", "the three days of the great freeze"}, unwanted: []string{"Tomas Reyes is a staff writer"}},
		{name: "broken JSON-LD, and a description that is no text", head: ld(`{"@type":"Article","author":{"@type":"Person","description":"`+bio) +
			ld(`{"@type":"Article","author":{"@type":"Person","description":{"@value":"`+bio+`"}}}`) + ld(`null`) + ld(``),
			body: story + box(bio), want: []string{"ford was paved", "Tomas Reyes is a staff writer"}},
		{name: "a page without JSON-LD", body: story + box(bio),
			want: []string{"ford was paved", "Tomas Reyes is a staff writer"}},
		{name: "the article's own description, its opening lines", head: ld(`{"@type":"NewsArticle","headline":"The last ferry",` +
			`"description":"The river ferry has crossed at the old ford since the bridge washed away, forty cars a day in the busy months of summer."}`),
			body: story, want: []string{"forty cars a day in the busy months"}},
		{name: "a person the page declares but not as its writer", head: ld(`{"@type":"Organization","name":"Valley Ferries",` +
			`"founder":{"@type":"Person","name":"Tomas Reyes","description":"` + bio + `"}}`),
			body: story + `<p>` + bio + `</p>`, want: []string{"ford was paved", "Tomas Reyes is a staff writer"}},
		{name: "the writer's profile page", head: ld(`{"@type":"ProfilePage","mainEntity":{"@type":"Person","name":"Tomas Reyes","description":"` + bio + `"},` +
			`"hasPart":{"@type":"Article","author":{"@type":"Person","name":"Tomas Reyes","description":"` + bio + `"}}}`),
			body: `<h2>Tomas Reyes</h2><p>` + bio + `</p>` + story, want: []string{"Tomas Reyes is a staff writer", "ford was paved"}},
		{name: "a title, not a description", head: ld(`{"@type":"NewsArticle","author":{"@type":"Person","name":"Tomas Reyes","description":"Staff writer at the Valley Courier"}}`),
			body: story + `<p>Staff writer at the Valley Courier</p>`, want: []string{"Staff writer at the Valley Courier"}},
		{name: "a story that shares some of the description's words", head: inline,
			body: story + `<p>Tomas Reyes, who has ridden the ferry for twelve years, covers the valley's rivers and its roads for this paper.</p>`,
			want: []string{"ridden the ferry for twelve years", "ford was paved"}},
		{name: "a quotation of the description", head: inline, body: story + `<blockquote><p>` + bio + `</p></blockquote>`,
			want: []string{"> Tomas Reyes is a staff writer", "ford was paved"}},
		{name: "a page whose text is mostly the description", head: inline, body: `<p>The ferry runs until nine on market days.</p>` + box(bio),
			want: []string{"Tomas Reyes is a staff writer", "until nine on market days"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>The last ferry</title>"+tc.head+"</head><body><article><h1>The last ferry</h1>"+tc.body+"</article></body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// A page that declares many writers lists people: a masthead, a team.
// Their boxes are its content.
func TestAPageOfManyDeclaredWritersKeepsTheirLines(t *testing.T) {
	var ld, body strings.Builder
	ld.WriteString(`<script type="application/ld+json">{"@type":"CollectionPage","author":[`)
	for i := range maxDeclaredBios + 1 {
		bio := fmt.Sprintf("Writer number %d of the Valley Courier covers the courts, the council and the schools of the county from its newsroom.", i)
		if i > 0 {
			ld.WriteString(",")
		}
		ld.WriteString(`{"@type":"Person","description":"` + bio + `"}`)
		body.WriteString(`<div class="person"><h3>Writer ` + fmt.Sprint(i) + `</h3><p>` + bio + `</p></div>`)
	}
	ld.WriteString(`]}</script>`)
	md := article(t, "<!doctype html><html><head><title>Our writers</title>"+ld.String()+"</head><body><main><h1>Our writers</h1>"+body.String()+"</main></body></html>")
	checkHolds(t, md, []string{"Writer number 0 of", fmt.Sprintf("Writer number %d of", maxDeclaredBios)}, nil)
}

// A hostile page declares writers and nests thousands of boxes of about
// a description's size, and deep chains of elements around nearly half of
// its text: each block's words are counted only as far as a box's, and
// the search stops at the first box that says a description.
func TestDeclaredBiosOnAHostilePage(t *testing.T) {
	const bio = `Tomas Reyes is a staff writer who covers rivers, roads and the towns between them, and has reported from the valley for twelve years.`
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Boxes</title><script type="application/ld+json">{"@type":"Article","author":[`)
	for i := range maxDeclaredBios {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"@type":"Person","description":"%s %d"}`, strings.Replace(bio, "valley", "hills", 1), i)
	}
	b.WriteString(`]}</script></head><body><article><h1>Boxes</h1>`)
	boxes := func(from, to int) {
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, `<div><div><p>Box %d says the rivers and roads of the hills were reported on by a writer of twelve years.</p></div></div>`, i)
		}
	}
	const depth = 400
	b.WriteString(strings.Repeat(`<div>`, depth))
	boxes(0, 1400)
	b.WriteString(strings.Repeat(`</div>`, depth))
	boxes(1400, 3000)
	b.WriteString(strings.Repeat(`<div>`, depth) + `<p>` + bio + `</p>` + strings.Repeat(`</div>`, depth))
	b.WriteString(`</article></body></html>`)
	start := time.Now()
	md := article(t, b.String())
	t.Logf("%d bytes of page in %v", b.Len(), time.Since(start))
	checkHolds(t, md, []string{"Box 0 says", "Box 2999 says"}, nil)
}
