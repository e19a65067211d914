package markdown

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// tideStory is an article long enough to be the larger part of its page.
const tideStory = `<p>The harbour master logs the tide twice a day, as her father did, in a ledger kept on the desk by the window.</p>
<p>Each entry gives the hour, the height of the water against the painted post and the state of the sea beyond the wall.</p>
<p>Fishermen read the ledger before they sail, and the older ones still trust it more than the tables printed in town.</p>
<p>Last winter a storm surge rose above the top mark for the first time in forty years and flooded the fish market.</p>
<p>The council has since raised the wall by half a metre and paid for a gauge that reports the water level every minute.</p>
<p>The harbour master keeps her ledger all the same: the gauge, she says, cannot tell what the sea looks like.</p>`

func TestArticleLeavesTeasersOfOtherStoriesOut(t *testing.T) {
	for _, tc := range []struct {
		name, after    string
		want, unwanted []string
	}{
		{
			name: "a related list under its heading leaves",
			after: `<h2>Related stories</h2><ul>
<li><a href="/blog/lighthouse-keepers.html">The last lighthouse keepers of the north coast</a></li>
<li><a href="/blog/net-menders.html">Net menders who still work by hand</a></li>
<li><a href="/blog/ferry-timetable.html">Why the island ferry keeps its winter timetable</a></li></ul>`,
			want:     []string{"cannot tell what the sea looks like"},
			unwanted: []string{"Related stories", "lighthouse keepers", "Net menders"},
		},
		{
			name: "a bold label in another language heads the box",
			after: `<p><strong>Lesen Sie auch:</strong></p><ul>
<li><a href="/blog/leuchtturm.html">Die letzten Leuchtturmwärter der Nordküste</a></li>
<li><a href="/blog/netze.html">Netzflicker, die noch von Hand arbeiten</a></li></ul>`,
			want:     []string{"cannot tell what the sea looks like"},
			unwanted: []string{"Lesen Sie auch", "Leuchtturmwärter"},
		},
		{
			name: "the line after a labelled box of links stays",
			after: `<p><em>More harbour news:</em></p><ul>
<li><a href="/blog/lighthouse-keepers.html">The last lighthouse keepers of the north coast</a></li>
<li><a href="/blog/net-menders.html">Net menders who still work by hand</a></li></ul>
<p><em>Ada Brine writes about the coast and its people.</em></p>`,
			want:     []string{"Ada Brine writes about the coast"},
			unwanted: []string{"More harbour news", "lighthouse keepers"},
		},
		{
			name: "a heading naming more guides of the site heads the box",
			after: `<h3>More coastal travel guides</h3><ul>
<li><a href="/blog/cliff-walks.html">Five cliff walks for a windy day</a></li>
<li><a href="/blog/tide-pools.html">Where to find the best tide pools</a></li></ul>`,
			want:     []string{"cannot tell what the sea looks like"},
			unwanted: []string{"More coastal travel guides", "cliff walks"},
		},
		{
			name: "teaser cards after the last paragraph leave without a heading",
			after: `<ul class="posts"><li><img src="/img/keepers.jpg" alt=""><h3><a href="/blog/lighthouse-keepers.html">The last lighthouse keepers</a></h3><p>Three families still live beside the lamps they once tended.</p><span>May 4</span></li>
<li><img src="/img/nets.jpg" alt=""><h3><a href="/blog/net-menders.html">Net menders at work</a></h3><p>A craft passed down through four generations of one street.</p><span>April 28</span></li>
<li><img src="/img/ferry.jpg" alt=""><h3><a href="/blog/ferry.html">The winter ferry</a></h3><p>Why the island boat keeps its old timetable all year.</p><span>April 20</span></li></ul>`,
			want:     []string{"cannot tell what the sea looks like"},
			unwanted: []string{"lighthouse keepers", "Net menders", "winter ferry"},
		},
		{
			name: "a series of the site's cards under a related heading leaves though it is mostly excerpts",
			after: `<h4>You might also like</h4><div class="grid">
<div class="item"><img src="/img/keepers.jpg" alt=""><p>The last lighthouse keepers</p><p>Three families still live beside the lamps they once tended, and the lamps still turn.</p><a href="/blog/lighthouse-keepers.html">Read</a></div>
<div class="item"><img src="/img/nets.jpg" alt=""><p>Net menders at work</p><p>A craft passed down through four generations of one street by the old quay.</p><a href="/blog/net-menders.html">Read</a></div>
<div class="item"><img src="/img/ferry.jpg" alt=""><p>The winter ferry</p><p>Why the island boat keeps its old timetable in every season of the year.</p><a href="/blog/ferry.html">Read</a></div></div>`,
			want:     []string{"cannot tell what the sea looks like"},
			unwanted: []string{"You might also like", "lighthouse keepers", "winter ferry"},
		},
		{
			name: "a heading boxed with a short line beside it heads the cards after the box",
			after: `<div class="section-title"><h2>Explore more</h2><span>From the harbour blog</span></div><div class="cards">
<div class="card"><img src="/img/keepers.jpg" alt=""><p>The last lighthouse keepers</p><p>Three families still live beside the lamps they once tended, and the lamps still turn.</p><a href="/blog/lighthouse-keepers.html">Read</a></div>
<div class="card"><img src="/img/nets.jpg" alt=""><p>Net menders at work</p><p>A craft passed down through four generations of one street by the old quay.</p><a href="/blog/net-menders.html">Read</a></div>
<div class="card"><img src="/img/ferry.jpg" alt=""><p>The winter ferry</p><p>Why the island boat keeps its old timetable in every season of the year.</p><a href="/blog/ferry.html">Read</a></div></div>`,
			want:     []string{"cannot tell what the sea looks like"},
			unwanted: []string{"Explore more", "From the harbour blog", "lighthouse keepers", "winter ferry"},
		},
		// What stays: the story's own sections and lists.
		{
			name: "a heading boxed with a paragraph of the story does not head what follows the box",
			after: `<div class="aside"><h2>Related</h2><p>The gauge was paid for by the council.</p></div>
<p>The harbour master still walks the wall at dusk, ledger under her arm, to read the post by lamplight.</p>`,
			want: []string{"paid for by the council", "walks the wall at dusk"},
		},
		{
			name: "a related section of prose citing other sites stays",
			after: `<h2>Related</h2><p>A <a href="https://tides.example.org/history">history of the tide tables</a> tells how the printed tables began, and the harbour's own records go back further.</p>
<p>The <a href="https://museum.example.net/ledgers">maritime museum</a> keeps older ledgers from the same harbour, some from the age of sail.</p>`,
			want: []string{"history of the tide tables", "maritime museum"},
		},
		{
			name: "a list of sources after the story stays",
			after: `<h2>Sources</h2><ul>
<li><a href="https://tides.example.org/a">Tide records of the north coast, 1900–2000</a></li>
<li><a href="https://tides.example.org/b">Storm surges and harbour walls</a></li>
<li><a href="https://tides.example.org/c">The painted tide post: a short history</a></li></ul>`,
			want: []string{"Sources", "Storm surges and harbour walls"},
		},
		{
			name: "headlined items of a list that link to other sites stay",
			after: `<ul class="walks"><li><img src="/img/a.jpg" alt=""><h3><a href="https://walks.example.org/cliffs">Cliff path north</a></h3><p>A walk of two hours with the best view of the harbour wall.</p></li>
<li><img src="/img/b.jpg" alt=""><h3><a href="https://walks.example.org/dunes">Dune trail south</a></h3><p>A flat walk through the dunes to the old signal station.</p></li>
<li><img src="/img/c.jpg" alt=""><h3><a href="https://walks.example.org/point">Round the point</a></h3><p>The longest of the three, out to the rocks where seals rest.</p></li></ul>`,
			want: []string{"Cliff path north", "Round the point"},
		},
		{
			name: "pointers inside sentences stay",
			after: `<ul><li>For the history of the wall, see <a href="/blog/wall.html">How the harbour wall was built</a> in our archive.</li>
<li>For the gauge, see <a href="/blog/gauge.html">The new tide gauge explained</a> from last spring.</li>
<li>For the market, see <a href="/blog/market.html">After the flood at the fish market</a> on its reopening.</li></ul>`,
			want: []string{"How the harbour wall was built", "After the flood at the fish market"},
		},
		{
			name:  "a heading that is itself a link to a related story stays",
			after: `<h5>Related: <a href="/blog/gauge.html">The new tide gauge explained</a></h5><p>Readers can see the gauge's figures on the council's page.</p>`,
			want:  []string{"The new tide gauge explained", "Readers can see"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>The tide ledger</title></head><body><article><h1>The tide ledger</h1>`+
				tideStory+tc.after+`</article></body></html>`)
			if !strings.Contains(md, "harbour master logs the tide") {
				t.Errorf("the answer lost the story:\n%s", md)
			}
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestRelatedHeadingsAreKnownInManyLanguages(t *testing.T) {
	for _, tc := range []struct {
		text    string
		related bool
	}{
		{"Related articles", true},
		{"More from the newsroom", true},
		{"Read next", true},
		{"You may also like", true},
		{"More Japan travel guides", true},
		{"À lire aussi", true},
		{"Artículos relacionados", true},
		{"Leggi anche:", true},
		{"Lees ook", true},
		{"Читайте также", true},
		{"関連記事", true},
		{"Recommended", true},
		{"What others are reading", true},
		{"You may be interested in these topics:", true},
		// Sections of the story itself.
		{"Related work", false},
		{"Recommended settings", false},
		{"More about the harbour wall", false},
		{"How the related tables were printed before the gauge was put in place", false},
		{"The tide in winter", false},
		{"What others are saying about the harbour wall", false},
	} {
		if got := relatedHeading(tc.text); got != tc.related {
			t.Errorf("%q: related %v, want %v", tc.text, got, tc.related)
		}
	}
}

func TestAPageOfManyItemsTellsStoriesBesideItFromItsOwnLists(t *testing.T) {
	for _, tc := range []struct {
		text   string
		beside bool
	}{
		{"Related articles", true},
		{"Related articles that may interest you", true},
		{"You might also like", true},
		{"More in Condiments & Sauces", true},
		{"Latest news", false},
		{"Most popular", false},
		{"Recent posts", false},
		{"Trending now", false},
		{"Top stories", false},
		{"Popular posts", false},
		{"Bearing care", false},
	} {
		if got := relatedBesideHeading(tc.text); got != tc.beside {
			t.Errorf("%q: beside %v, want %v", tc.text, got, tc.beside)
		}
	}
}

func TestPagesOfManyBlocksLeaveTheItemsTheSiteRecommendsOut(t *testing.T) {
	var posts strings.Builder
	for i := range 4 {
		posts.WriteString(`<div class="post"><p class="who">member` + string(rune('a'+i)) + `</p><p>Reply ` + string(rune('A'+i)) +
			`: I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it.</p></div>`)
	}
	thread := `<!doctype html><html><head><title>Squeaky wheel bearings</title>` +
		`<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Squeaky wheel bearings"}</script>` +
		`</head><body><main><h1>Squeaky wheel bearings</h1>` + posts.String()
	for _, tc := range []struct {
		name, tail     string
		want, unwanted []string
	}{
		{
			name: "a thread leaves its similar threads out",
			tail: `<h3>Similar threads</h3><ul><li><a href="/t/1">Bearing grease for winter rides</a> <span>12 replies</span></li>` +
				`<li><a href="/t/2">Which bearings for a cargo bike</a> <span>4 replies</span></li><li><a href="/t/3">Wheel truing at home</a> <span>9 replies</span></li></ul>`,
			want:     []string{"Reply A", "Reply D"},
			unwanted: []string{"Similar threads", "Bearing grease", "cargo bike"},
		},
		{
			name: "a shop's bought-together box goes the same way",
			tail: `<p><strong>Customers who bought this also bought</strong></p><ul><li><a href="/p/1">Light oil, 100 ml</a> $4</li>` +
				`<li><a href="/p/2">Bearing press</a> $30</li><li><a href="/p/3">Spoke key</a> $8</li></ul>`,
			want:     []string{"Reply A", "Reply D"},
			unwanted: []string{"also bought", "Bearing press", "Spoke key"},
		},
		{
			name: "its related stories go too, a list of links or cards at its end",
			tail: `<h3>Related articles</h3><ul><li><a href="/guides/1">How to grease a hub</a></li><li><a href="/guides/2">Bearings explained</a></li>` +
				`<li><a href="/guides/3">Winter bike care</a></li></ul><section><h2>Related guides that may interest you</h2><div>` +
				`<div class="card"><img src="/img/g1.jpg" alt="Truing"><h3>Truing a wheel at home without a stand</h3>` +
				`<p>A guide to truing a wheel with a zip tie and a steady hand, for riders without a workshop.</p><p>by <a href="/contributors/ada">Ada Brine</a></p></div>` +
				`<div class="card"><img src="/img/g2.jpg" alt="Chains"><h3>When to change a chain</h3>` +
				`<p>How to measure a chain's wear with a ruler, and why a worn chain wears the cassette with it.</p><p>by <a href="/contributors/bo">Bo Chen</a></p></div>` +
				`<div class="card"><img src="/img/g3.jpg" alt="Brakes"><h3>Bleeding hydraulic brakes</h3>` +
				`<p>The tools, the fluid and the order of the steps for a firm lever, on the two common systems.</p><p>by <a href="/contributors/cy">Cy Moss</a></p></div>` +
				`</div></section>`,
			want:     []string{"Reply A", "Reply D"},
			unwanted: []string{"Related articles", "Bearings explained", "may interest you", "Truing a wheel", "hydraulic"},
		},
		{
			name: "a box of the site's most popular threads is of the page's own lists and stays",
			tail: `<h3>Most popular this week</h3><ul><li><a href="/t/1">Bearing grease for winter rides</a></li>` +
				`<li><a href="/t/2">Which bearings for a cargo bike</a></li><li><a href="/t/3">Wheel truing at home</a></li></ul>`,
			want: []string{"Reply A", "Reply D", "Bearing grease", "Most popular"},
		},
		{
			name: "a box under a heading of the page's own stays",
			tail: `<h3>Latest posts</h3><ul><li><a href="/t/1">Bearing grease for winter rides</a> <span>12 replies</span></li>` +
				`<li><a href="/t/2">Which bearings for a cargo bike</a> <span>4 replies</span></li></ul>`,
			want: []string{"Reply A", "Reply D", "Bearing grease"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, thread+tc.tail+`</main></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAHeadingThatEndsItsBoxHeadsWhatFollowsTheBox(t *testing.T) {
	var related strings.Builder
	for i, title := range []string{"Which bearing grease lasts through a wet winter of daily rides?",
		"Cargo bike wheel bearings wear out after a year, is that normal?", "Truing a wheel at home without a stand: worth trying?"} {
		fmt.Fprintf(&related, `<li><a href="https://example.com/t/%d">%s</a></li>`, i, title)
	}
	story := strings.Repeat("<p>My front wheel squeaks on every turn since the rain last week, and the noise grows on hills.</p>", 4)
	for _, tc := range []struct {
		name, box string
		gone      bool
	}{
		{"after a short line of its own", `<div class="notice"><div class="c1"><p>This discussion is now closed.</p>` +
			`<div class="c2"><span>Check out other </span><span>Related discussions</span></div></div></div>`, true},
		{"alone in its box", `<div class="c1"><div class="c2"><span>Related discussions</span></div></div>`, true},
		{"beside an empty box, a spacer or a slot a script fills", `<div class="c0"><div class="c1"><div class="c2"><span>Related discussions</span></div>` +
			`<div class="spacer"></div><div class="slot"><span> </span></div></div></div>`, true},
		{"beside a box with words, it heads only its own box", `<div class="c0"><div class="c1"><div class="c2"><span>Related discussions</span></div>` +
			`<div class="note"><span>Closed</span></div></div></div>`, false},
		{"after a longer text, it heads nothing outside its box", `<div class="c1"><p>` +
			strings.Repeat("The thread was closed by a moderator after the question was answered. ", 2) +
			`</p><div class="c2"><span>Related discussions</span></div></div>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parseBody(t, `<html><body><div id="art">`+story+tc.box+`<div class="collapse"><ul>`+related.String()+`</ul></div></div></body></html>`)
			art := findFirst(doc, func(n *html.Node) bool { return attr(n, "id") == "art" })
			page, _ := url.Parse(testPageURL)
			dropTeasers(art, page)
			got := flatText(art)
			if gone := !strings.Contains(got, "bearing grease"); gone != tc.gone {
				t.Errorf("related list gone = %v, want %v: %q", gone, tc.gone, got)
			}
			if !strings.Contains(got, "My front wheel squeaks") {
				t.Errorf("the story went: %q", got)
			}
		})
	}
}

// TestMoreOfAListsCardsStayAfterItsLastParagraph keeps a run of cards
// after the content's last paragraph when the same cards make up most of
// what comes before it: a news index's older posts under "More recent
// news", not a box of other stories. After a story, the same run of
// cards goes, even when a few such cards sit inside the story.
func TestMoreOfAListsCardsStayAfterItsLastParagraph(t *testing.T) {
	cards := func(from, n int) string {
		var sb strings.Builder
		sb.WriteString(`<div class="posts">`)
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&sb, `<div class="post-card"><img src="/img/%d.jpg" alt=""><h4><a href="/news/post-%d">Harbour news number %d of the season</a></h4><p>By Ada Brine</p><p>Dec %d, 2025</p><p>What the council, the fishermen and the ferry company did about the tide in week %d.</p></div>`, i, i, i, i+1, i)
		}
		sb.WriteString(`</div>`)
		return sb.String()
	}
	t.Run("a list's older posts under their heading", func(t *testing.T) {
		md := article(t, `<!doctype html><html><head><title>Harbour news</title></head><body><main><h1>Harbour news</h1>`+
			`<h2>Our latest news</h2><p>The harbour changes with every tide; our reporters follow the council, the fleet and the ferry.</p>`+cards(0, 12)+
			`<h2>More recent news</h2><p>We have reported on the harbour for over five years.</p>`+cards(12, 3)+`</main></body></html>`)
		checkHolds(t, md, []string{"Harbour news number 3 of", "Harbour news number 13 of", "week 14"}, nil)
	})
	t.Run("a story's teasers though a few such cards sit inside it", func(t *testing.T) {
		md := article(t, `<!doctype html><html><head><title>The tide ledger</title></head><body><article><h1>The tide ledger</h1>`+
			tideStory+cards(0, 3)+tideStory+`<p>The harbour master closed the ledger for the night and walked home.</p>`+cards(3, 4)+`</article></body></html>`)
		checkHolds(t, md, []string{"walked home"}, []string{"Harbour news number 5 of"})
	})
}

// TestALineThatPointsToAnotherStoryGoes leaves out the lines a site sets
// between a story's paragraphs to point to another of its stories, and
// keeps a sentence with a link, a pointer elsewhere and a wiki's "See also".
func TestALineThatPointsToAnotherStoryGoes(t *testing.T) {
	story := `<p>Tutoring helps most when it happens during the school day, several times a week, with the same tutor all year long.</p>`
	page := `<!doctype html><html><head><title>Tutoring - Example</title><link rel="canonical" href="https://example.com/news/tutoring"></head><body>` + pageHeader +
		`<main><article><h1>Tutoring</h1>` + story +
		`<p><strong>Related: <a href="https://example.com/news/attendance">Tutoring may not improve attendance</a></strong></p>` + story +
		`<p>Also read: <a href="/news/reading-gains">Where the reading gains came from</a></p>` + story +
		`<p>&gt;&gt; Related Reading: <a href="/news/costs">What a tutor costs a district</a></p>` +
		`<p>The study's authors <a href="/news/authors">describe their method</a> in a long appendix of their own.</p>` +
		`<p>Related: <a href="https://other.example.org/report">the full report at the institute</a></p>` +
		`<p>See also: <a href="/wiki/Tutoring">Tutoring</a></p>` + story +
		`</article></main>` + pageFooter + `</body></html>`
	checkHolds(t, article(t, page), []string{"[describe their method](", "the full report at the institute", "See also:"},
		[]string{"attendance", "reading gains", "What a tutor costs"})

	// A page made of such lines is a list of stories, and keeps them.
	var lines strings.Builder
	for i := range 6 {
		fmt.Fprintf(&lines, `<p>Related: <a href="/news/story-%d">The %d story of the week about tutoring and attendance</a></p>`, i, i)
	}
	index := `<!doctype html><html><head><title>Related - Example</title></head><body>` + pageHeader +
		`<main><h1>Related</h1>` + lines.String() + `</main>` + pageFooter + `</body></html>`
	checkHolds(t, article(t, index), []string{"The 0 story of the week", "The 5 story of the week"}, nil)
}

// TestACardThatPointsToAnotherStoryGoes drops a card set between a
// story's paragraphs that a label of its own names as a pointer to
// another story of the site, and keeps boxes of the same shape that no
// such label names, that lead off the site, or that hold more than a
// card.
func TestACardThatPointsToAnotherStoryGoes(t *testing.T) {
	story := `<p>Tutoring helps most when it happens during the school day, several times a week, with the same tutor all year long.</p>`
	card := func(label, href, title string) string {
		return `<div class="card"><picture><img src="/img/card.jpg" alt="A classroom"></picture>` +
			`<span><label>` + label + `</label></span><div><h5><a href="` + href + `">` + title + `</a></h5>` +
			`<p>A summary of that story in a line of its own.</p><a href="` + href + `#comments">12</a></div></div>`
	}
	for _, tc := range []struct {
		name, box, title string
		kept             bool
	}{
		{"a related card", card("Related", "/news/attendance", "Tutoring may not improve attendance"), "Tutoring may not improve attendance", false},
		{"a card labelled as a line is", card("Read also:", "https://example.com/news/costs", "What a tutor costs a district"), "What a tutor costs a district", false},
		{"a card whose headline is inside its link is",
			`<div class="card"><a href="/news/budgets"><div><h4>Where the tutoring money goes</h4></div></a><span>Related</span></div>`, "Where the tutoring money goes", false},
		{"a card that leads off the site stays", card("Related", "https://other.example.org/report", "The full report at the institute"), "The full report at the institute", true},
		{"a card no label names stays", card("Tip", "/news/tips", "Questions to ask a tutoring program"), "Questions to ask a tutoring program", true},
		{"a box that holds more than a card stays",
			`<div class="box"><span>Related</span><h3><a href="/news/gains">Where the reading gains came from</a></h3>` +
				strings.Repeat(`<p>The gains were largest for the students who started furthest behind, and they lasted into the next year.</p>`, 8) +
				`</div>`, "Where the reading gains came from", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := `<!doctype html><html><head><title>Tutoring - Example</title><link rel="canonical" href="https://example.com/news/tutoring"></head><body>` + pageHeader +
				`<main><article><h1>Tutoring</h1>` + story + story + tc.box + story + story + `</article></main>` + pageFooter + `</body></html>`
			md := article(t, page)
			if tc.kept {
				checkHolds(t, md, []string{tc.title}, nil)
			} else {
				checkHolds(t, md, []string{"same tutor all year long"}, []string{tc.title, "A summary of that story"})
			}
		})
	}
}

// TestARelatedBoxsTitleWithNoLinksGoes drops the title of a box of links
// to other stories that holds no links (emptied by the rules, or filled
// by script), as a heading or a line of its own; a title with links
// after it before the next heading, or in that heading, and a heading
// that only contains such words, stay.
func TestARelatedBoxsTitleWithNoLinksGoes(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"a heading over nothing but a date line", `<p>The kiln fires at night.</p><h2>You might also like</h2><p>Originally posted May 2, 2024</p>`,
			`<p>The kiln fires at night.</p><p>Originally posted May 2, 2024</p>`},
		{"a line of its own at the end", `<p>The kiln fires at night.</p><div><p>Related</p></div>`,
			`<p>The kiln fires at night.</p>`},
		{"a title over links", `<p>The kiln fires at night.</p><h2>You might also like</h2><ul><li><a href="/a">Glazes for cone 6</a></li></ul>`,
			`<p>The kiln fires at night.</p><h2>You might also like</h2><ul><li><a href="/a">Glazes for cone 6</a></li></ul>`},
		{"a title over linked headlines", `<p>Up next</p><h3><a href="/b">Firing schedules</a></h3>`,
			`<p>Up next</p><h3><a href="/b">Firing schedules</a></h3>`},
		{"a heading holding the words and more", `<h2>The most popular kilns of the year</h2><p>Three of them fire at cone 10.</p>`,
			`<h2>The most popular kilns of the year</h2><p>Three of them fire at cone 10.</p>`},
		{"a Q&A site's label over the tags it points to, gone before it", `<p>The kiln fires at night.</p><p>Explore related questions</p><p>See similar questions with these tags.</p>`,
			`<p>The kiln fires at night.</p><p>See similar questions with these tags.</p>`},
		{"a forum's similar threads box, emptied", `<p>The kiln fires at night.</p><h4>Similar Threads</h4>`,
			`<p>The kiln fires at night.</p>`},
		{"a heading that holds a recommendation's word inside its own words", `<h3>Take Advantage of Employer-Sponsored Plans</h3><p>Most employers match a part of what you save.</p>`,
			`<h3>Take Advantage of Employer-Sponsored Plans</h3><p>Most employers match a part of what you save.</p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><body><article>`+tc.in+`</article></body></html>`)
			art := doc.Find("article").Nodes[0]
			dropOrphanTitles(art)
			var sb strings.Builder
			for k := art.FirstChild; k != nil; k = k.NextSibling {
				if err := html.Render(&sb, k); err != nil {
					t.Fatal(err)
				}
			}
			if sb.String() != tc.want {
				t.Errorf("got  %s\nwant %s", sb.String(), tc.want)
			}
		})
	}
}

// scrambled spells label a letter a span among spans of UUIDs, the way
// some shops hide "Sponsored" from filters: a stylesheet shows the
// letters and hides the rest.
func scrambled(label string) string {
	var sb strings.Builder
	sb.WriteString(`<div class="lbl">`)
	for i, r := range label {
		fmt.Fprintf(&sb, `<span class="a%d">%c</span><span class="b%d">%08x-4e5f-4a6b-8c7d-%012x</span>`, i, r, i, 0x1f2e3d4c+i, 0xa1b2c3d4e5+i)
	}
	sb.WriteString(`</div>`)
	return sb.String()
}

func TestAScrambledLabelIsNoText(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"letters among identifiers", `<p>Before.</p>` + scrambled("Sponsored") + `<p>After.</p>`, "Before.\n\nAfter.\n"},
		{"words in spans", `<div><span>Oak</span> <span>and</span> <span>walnut</span> <span>tables</span> <span>made</span> <span>to</span> <span>order</span> <span>here</span></div>`,
			"Oak and walnut tables made to order here\n"},
		{"identifiers a page lists beside a link", `<div><a href="/runs">Runs</a>` + strings.Repeat(`<span>1f2e3d4c-4e5f-4a6b-8c7d-00a1b2c3d4e5</span> `, 8) + `</div>`,
			"[Runs](https://example.com/runs) " + strings.Repeat("1f2e3d4c-4e5f-4a6b-8c7d-00a1b2c3d4e5 ", 7) + "1f2e3d4c-4e5f-4a6b-8c7d-00a1b2c3d4e5\n"},
		{"an identifier a page names", `<div><span>Order</span> <span>number</span> <span>1f2e3d4c-4e5f-4a6b-8c7d-00a1b2c3d4e5</span></div>`,
			"Order number 1f2e3d4c-4e5f-4a6b-8c7d-00a1b2c3d4e5\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := convertBody(t, tc.body); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// Beside a heading, the label made its box look like more than the
	// heading's, and the carousel under it stayed.
	var cards strings.Builder
	for i := range 5 {
		fmt.Fprintf(&cards, `<li class="card"><img src="/img/%d.jpg" alt=""><h3>Bearing press model %d</h3><span>$%d.00</span></li>`, i, i, 30+i)
	}
	var posts strings.Builder
	for i := range 4 {
		fmt.Fprintf(&posts, `<div class="post"><p class="who">member%d</p><p>Reply %d: I soaked the bearings overnight in light oil, `+
			`then ran the wheel by hand for a few minutes before refitting it.</p></div>`, i, i)
	}
	md := article(t, `<!doctype html><html><head><title>Squeaky wheel bearings</title>`+
		`<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Squeaky wheel bearings"}</script>`+
		`</head><body><main><h1>Squeaky wheel bearings</h1>`+posts.String()+
		`<div class="head"><h2>Similar items</h2>`+scrambled("Sponsored")+`</div><ul class="carousel">`+cards.String()+`</ul></main></body></html>`)
	checkHolds(t, md, []string{"Reply 0", "Reply 3"}, []string{"Similar items", "Bearing press", "4e5f"})
}
