package markdown

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// shortVerdicts are the verdicts of the entries of a single paragraph,
// as much link as text to the extractor's measure.
var shortVerdicts = map[int]string{
	1: `<p>The copper Kettle 1 is the quickest here: two minutes to a boil, a spout that never drips and a handle that stays cool.</p>`,
	2: `<p>Cheap and cheerful, Kettle 2 made tea for a whole office without complaint, though its lid sticks when new.</p>`,
}

// reviewEntry is an entry of a list of reviews: a name, a picture, a
// verdict of a few sentences and the link lines such lists end each entry
// with. Long entries have four paragraphs of verdict. Each entry says
// its own things, as real ones do.
func reviewEntry(i int, long bool) string {
	verdict := shortVerdicts[i]
	if long {
		rooms := []string{"a studio flat", "a farmhouse", "an office", "a campervan", "a student hall", "a cafe", "a boat", "a cabin"}
		r := rooms[i%len(rooms)]
		verdict = fmt.Sprintf(`<p>Kettle %d boils a litre in %d minutes; we kept it in %s for a week and it never once spat.</p>`, i, i+1, r)
		verdict += fmt.Sprintf(`<p>Its filter lifts out for washing after %d uses, the base turns all the way round and the lid opens with one finger, which suits %s with people coming and going.</p>`, 10*i, r)
		verdict += fmt.Sprintf(`<p>Model %d is quiet too: it rumbles rather than roars at %d decibels, and clicks off softly enough not to wake anyone in %s.</p>`, i, 40+i, r)
		verdict += fmt.Sprintf(`<p>After %d months of hard water the finish still shines, and the maker's guarantee runs for %d years, longer than most.</p>`, i+2, i%3+2)
	}
	return fmt.Sprintf(`<li><div class="pick-head"><h2>Kettle %d</h2></div><div class="pick-media"><img src="/k%d.jpg" alt="Kettle %d"></div>
<div class="pick-copy"><div class="wrap">%s
<p><a href="/reviews/kettle-%d">Read the full Kettle %d review</a></p>
<p><a href="https://shop.example.net/kettle-%d">Compare prices for Kettle %d at our partner store</a></p>
<p><a href="https://other.example.org/kettle-%d">See used Kettle %d deals near you</a></p></div></div>
<div class="slot"><div class="label">Advertisement - Page continues below</div><div class="banner"><div></div></div></div></li>`, i, i, i, verdict, i, i, i, i, i, i)
}

func TestArticleKeepsTheEntriesThatEndInLinkLines(t *testing.T) {
	var list strings.Builder
	for i := 1; i <= 8; i++ {
		// The short entries are as much link as text to the extractor's
		// measure, which drops them from its block; the long ones stay.
		list.WriteString(reviewEntry(i, i > len(shortVerdicts)))
	}
	page := `<!doctype html><html><head><title>The best kettles</title></head><body>
<header><nav><a href="/">Home</a> <a href="/kitchen">Kitchen</a></nav></header>
<main><h1>The best kettles</h1>
<p>We boiled, poured and descaled a few hundred litres over a month of mornings to find the kettles worth a place on the counter.</p>
<ol class="listicle">` + list.String() + `</ol>
<p>Prices were checked on the day this list was written and change often, so follow the links above for today's.</p>
</main><footer><p>Copyright the kitchen review site.</p></footer></body></html>`
	md := article(t, page)
	for i := 1; i <= 8; i++ {
		want := fmt.Sprintf("Kettle %d boils", i)
		if i <= len(shortVerdicts) {
			want = shortVerdicts[i][3:40]
		}
		if !strings.Contains(md, want) {
			t.Errorf("the verdict of entry %d is missing:\n%s", i, md)
		}
		if n := strings.Count(md, want); n > 1 {
			t.Errorf("the verdict of entry %d is there %d times:\n%s", i, n, md)
		}
	}
}

func TestFillHolesPutsBackOnlyWhatTheBlockLeftOutBetweenProse(t *testing.T) {
	const (
		keptA   = `<p>The first paragraph of the story says what happened at the harbour on the night of the storm, and who saw it.</p>`
		keptB   = `<p>The last paragraph of the story says what the town plans to do before the next storm reaches the harbour wall.</p>`
		verdict = `<p>The lifeboat crew launched twice that night and brought eleven people back from two yachts that had lost their masts.</p>`
		links   = `<p><a href="/crew">Meet the lifeboat crew</a></p>`
	)
	for _, tc := range []struct {
		name, region, block string
		want                []string // the paragraphs' starts, in order, after
	}{
		{
			name:   "an entry ending in a link line between kept paragraphs comes back in its place",
			region: keptA + `<div class="entry">` + verdict + links + `</div>` + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The lifeboat", "Meet the", "The last"},
		},
		{
			name:   "a paragraph with no link line beside it stays out (a caption, a teaser's excerpt)",
			region: keptA + `<div class="entry">` + verdict + `</div>` + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The last"},
		},
		{
			name:   "after the block's last paragraph nothing comes back (a box of other stories)",
			region: keptA + keptB + `<div class="entry">` + verdict + links + `</div>`,
			block:  keptA + keptB,
			want:   []string{"The first", "The last"},
		},
		{
			name:   "before the block's first paragraph nothing comes back",
			region: `<div class="entry">` + verdict + links + `</div>` + keptA + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The last"},
		},
		{
			name:   "a link line the block kept does not close a hole (a box of cards ending in Learn more)",
			region: keptA + `<div class="entry">` + verdict + links + `</div>` + links,
			block:  keptA + links,
			want:   []string{"The first", "Meet the"},
		},
		{
			name:   "a section under a heading of its own comes back whole",
			region: keptA + `<section><h3>The second launch</h3>` + verdict + `</section>` + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The lifeboat", "The last"},
		},
		{
			name:   "a section whose heading links only to itself comes back (a permalink)",
			region: keptA + `<section id="second"><h3>The second launch<a class="headerlink" href="#second">¶</a></h3>` + verdict + `</section>` + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The lifeboat", "The last"},
		},
		{
			name:   "a section whose heading links to itself in full comes back (a permalink)",
			region: keptA + `<section id="second"><h3><a href="https://example.com/guide#second">The second launch</a></h3>` + verdict + `</section>` + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The lifeboat", "The last"},
		},
		{
			name:   "a card under a linked headline stays out (a teaser of another story)",
			region: keptA + `<div class="card"><h3><a href="/other-story">The second launch</a></h3>` + verdict + `</div>` + keptB,
			block:  keptA + keptB,
			want:   []string{"The first", "The last"},
		},
		{
			name: "a gallery under a heading, its captions items of a list, stays out",
			region: keptA + `<div class="box"><h3>The storm in pictures</h3><ul><li><img src="/1.jpg"><p>The lifeboat crew launched twice that night and brought eleven people back from two yachts.</p></li>` +
				`<li><img src="/2.jpg"><p>Waves broke over the harbour wall at high tide and flooded the road along the front for an hour.</p></li></ul></div>` + keptB,
			block: keptA + keptB,
			want:  []string{"The first", "The last"},
		},
		{
			name: "an entry of a list most of whose entries the block kept comes back",
			region: `<ul><li class="pick">` + keptA + `</li><li class="pick"><div class="body">` + verdict + `</div></li><li class="pick">` + keptB + `</li>` +
				`<li class="pick"><p>The third entry of the list says how the crew trains on winter evenings in the harbour.</p></li></ul>`,
			block: `<ul><li class="pick">` + keptA + `</li><li class="pick">` + keptB + `</li>` +
				`<li class="pick"><p>The third entry of the list says how the crew trains on winter evenings in the harbour.</p></li></ul>`,
			want: []string{"The first", "The lifeboat", "The last", "The third"},
		},
		{
			name: "an entry of a list most of whose entries the block left out stays out (teasers)",
			region: `<div>` + keptA + `<ul><li class="card"><div class="body">` + verdict + `</div></li>` +
				`<li class="card"><p>The harbour master closed the slipway at dusk and opened it again when the wind dropped.</p></li>` +
				`<li class="card">` + keptB + `</li></ul></div>`,
			block: `<div>` + keptA + `<ul><li class="card">` + keptB + `</li></ul></div>`,
			want:  []string{"The first", "The last"},
		},
		{
			name: "a paragraph that ends as a kept one does is still left out",
			region: keptA + `<div class="entry"><p>The harbour master closed the slipway at dusk, as the town does before the next storm reaches the harbour wall.</p>` +
				links + `</div>` + keptB,
			block: keptA + keptB,
			want:  []string{"The first", "The harbour", "Meet the", "The last"},
		},
		{
			name: "a paragraph the block holds with a link taken out is not left out",
			region: keptA + `<div class="entry"><p>The crew of <a href="/boat">the lifeboat</a> launched twice that night and brought eleven people back from two yachts that had lost their masts.</p>` +
				links + `</div>` + keptB,
			block: keptA + `<p>The crew of launched twice that night and brought eleven people back from two yachts that had lost their masts.</p>` + keptB,
			want:  []string{"The first", "The crew", "The last"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			region := bodyOf(parseBody(t, tc.region))
			block := bodyOf(parseBody(t, tc.block))
			page, _ := url.Parse("https://example.com/guide")
			fillHoles(block, region, newChosenText(block), page)
			var got []string
			walk(block, func(k *html.Node) bool {
				if k.DataAtom == atom.P {
					got = append(got, flatText(k))
					return false
				}
				return true
			})
			if len(got) != len(tc.want) {
				t.Fatalf("paragraphs %q, want starts %q", got, tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Fatalf("paragraphs %q, want starts %q", got, tc.want)
				}
			}
		})
	}
}

// bodyOf is the <body> of the document doc.
func bodyOf(doc *html.Node) *html.Node {
	return findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
}

func TestFillHolesReadsEachParagraphAFewTimes(t *testing.T) {
	// A page of thousands of entries in one box, none kept: the block is
	// searched a few times a paragraph, and the box goes back once.
	const entries = 5000
	var region strings.Builder
	region.WriteString(`<p>The first paragraph of the list says how the entries were chosen and tested over a season.</p><div class="list">`)
	for i := range entries {
		fmt.Fprintf(&region, `<p>Entry %d was tested for %d days in a row and held up better than most of the others in its class.</p><p><a href="/e/%d">More on entry %d</a></p>`, i, i+3, i, i)
	}
	region.WriteString(`</div><p>The last paragraph of the list says when the prices were checked and how often they change.</p>`)
	block := bodyOf(parseBody(t, `<p>The first paragraph of the list says how the entries were chosen and tested over a season.</p>`+
		`<p>The last paragraph of the list says when the prices were checked and how often they change.</p>`))
	chosen := newChosenText(block)
	fillHoles(block, bodyOf(parseBody(t, region.String())), chosen, nil)
	if most := 3*(2*entries+2) + 2; chosen.lookups > most {
		t.Errorf("%d searches of the block for %d paragraphs; want at most %d", chosen.lookups, 2*entries+2, most)
	}
	if got := strings.Count(flatText(block), "was tested for"); got != entries {
		t.Errorf("%d entries put back, want %d", got, entries)
	}
}

// TestAPartPutBackKeepsItsPlaceUnderItsHeading gives the extractor an
// accordion of questions, each a heading whose link leads nowhere over a
// box of its answer, which it leaves out as a box of links, under a
// heading it keeps: put back, the accordion goes under that heading, not
// after the paragraph before it, and its hidden answer is read too.
func TestAPartPutBackKeepsItsPlaceUnderItsHeading(t *testing.T) {
	md := article(t, tabsPage(`<div id="accordion" class="ui-accordion"><h3 class="ui-accordion-header"><a href="#">How long does shipping take?</a></h3>`+
		`<div class="ui-accordion-content"><p>Orders leave our warehouse within two working days and arrive three to five days later.</p></div>`+
		`<h3 class="ui-accordion-header"><a href="#">Can I return a worn item?</a></h3><div class="ui-accordion-content" style="display:none">`+
		`<p>Yes, within thirty days, as long as the tags are still attached and it has not been washed.</p></div></div>`))
	checkHolds(t, md, []string{"## Install the package\n\n### How long does shipping take?\n\nOrders leave", "### Can I return a worn item?\n\nYes, within thirty days"},
		[]string{"](https://example.com/blog/post.html)"})
}

// TestPastHeadingsLeavesAHeadingOnlyForWhatFollowsThePart checks where a
// part put back goes: past a heading that stands before it in the page
// only when what follows the heading is known to come after the part; a
// heading whose own lines may follow it stays with them.
func TestPastHeadingsLeavesAHeadingOnlyForWhatFollowsThePart(t *testing.T) {
	region := parseBody(t, `<html><body><div id="r"><p id="intro">Intro.</p><h2>Questions</h2><div id="part"><h3>Q?</h3><p>A.</p></div><p>After.</p></div></body></html>`)
	part := findFirst(region, func(n *html.Node) bool { return attr(n, "id") == "part" })
	for _, tc := range []struct{ name, art, want string }{
		{"a heading followed by a paragraph after the part", `<p>Intro.</p><h2>Questions</h2><p>After.</p>`, "Questions"},
		{"a heading followed by a box of its own", `<p>Intro.</p><h2>Questions</h2><div>Lines of its own.</div>`, "Intro."},
		{"a heading that ends its box", `<p>Intro.</p><h2>Questions</h2>`, "Intro."},
		{"a heading the page writes after the part", `<p>Intro.</p><p>After.</p>`, "Intro."},
	} {
		art := parseBody(t, `<html><body><article>`+tc.art+`</article></body></html>`)
		anchor := findFirst(art, func(n *html.Node) bool { return n.DataAtom == atom.P })
		if got := flatText(pastHeadings(anchor, part, orderOfLines(region))); got != tc.want {
			t.Errorf("%s: the part goes after %q, want after %q", tc.name, got, tc.want)
		}
	}
}

// TestPartsPutBackReadTheRegionOnce gives the block thousands of kept
// paragraphs, each followed by a section it left out: where each part
// goes is found from one reading of the region's order, not one per part.
func TestPartsPutBackReadTheRegionOnce(t *testing.T) {
	const parts = 3000
	var region, kept strings.Builder
	for i := range parts {
		p := fmt.Sprintf(`<p>Paragraph %d of the story says what happened on day %d of the trial, and who was there to see it.</p>`, i, i)
		region.WriteString(p + fmt.Sprintf(`<section><h3>Notes on day %d</h3><p>The notes for day %d list the readings taken every hour and the weather at the time.</p>`+
			`<p><a href="/d/%d">All readings for day %d</a></p></section>`, i, i, i, i))
		kept.WriteString(p)
	}
	block := bodyOf(parseBody(t, kept.String()))
	start := time.Now()
	fillHoles(block, bodyOf(parseBody(t, region.String())), newChosenText(block), nil)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("putting back %d parts took %v", parts, d)
	}
	if got := strings.Count(flatText(block), "list the readings"); got != parts-1 {
		t.Errorf("%d parts put back, want %d", got, parts-1)
	}
}
