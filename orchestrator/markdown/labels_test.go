package markdown

import (
	"strings"
	"testing"
)

func TestArticleLeavesOutTheLabelsOfControls(t *testing.T) {
	body := strings.Repeat("The kiln fires at night so the glaze cools slowly by morning. ", 6)
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "a teaser's read-more link, a card's compare box and a loading placeholder go",
			page: `<!doctype html><html><head><title>Studio - Example</title></head><body>` + pageHeader +
				`<main><h1>Our studio</h1><p>` + body + `</p><div class="cta"><a href="/about">Read More</a></div>` +
				`<div class="card"><label><input type="checkbox"> Compare</label><p>` + body + `</p></div>` +
				`<div class="reviews">Loading...</div><p><button>Add to cart</button></p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night"},
			unwanted: []string{"Read More", "Compare", "Loading", "Add to cart"},
		},
		{
			name: "a product card's and a section's controls go",
			page: `<!doctype html><html><head><title>Kilns - Example</title></head><body>` + pageHeader +
				`<main><h1>Kilns</h1><p>` + body + `</p><div class="card"><h3>Studio kiln</h3><p>` + body + `</p>` +
				`<div><label><input type="checkbox"> Add to Compare</label></div><div><a class="btn" href="/k/1">Choose options</a></div>` +
				`<div><button>Quick view</button></div><div><a href="/k/1">View details</a></div></div>` +
				`<section><h2>Firing services</h2><p>` + body + `</p><p><a class="btn" href="/firing">Learn more</a></p></section>` +
				`<div><button>Show more</button></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "Studio kiln", "Firing services"},
			unwanted: []string{"Add to Compare", "Choose options", "Quick view", "View details", "Learn more", "Show more"},
		},
		{
			name: "a quoted post's expand control goes, the quote stays",
			page: `<!doctype html><html><head><title>Glazes - Forum</title></head><body>` + pageHeader +
				`<main><h1>Cone 6 glazes</h1><p>` + body + `</p><blockquote><div>Anyone tried a satin matte at cone 6?</div>` +
				`<div class="expand-link">Click to expand...</div></blockquote><p>` + body + `</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"satin matte at cone 6"},
			unwanted: []string{"Click to expand"},
		},
		{
			name: "a Q&A site's ask button, a member's figures and an answer's date go",
			page: `<!doctype html><html><head><title>Glaze crawling - Q&amp;A</title></head><body>` + pageHeader +
				`<main><h1>Why does my glaze crawl?</h1><div><a class="btn" href="/questions/ask">Ask Question</a></div><p>` + body + `</p>` +
				`<div class="card"><div>answered Feb 4, 2014 at 13:27</div><div><a href="/users/1/ada">Ada</a></div>` +
				`<div><span>1,669</span><span>13 silver badges</span><span>18 bronze badges</span></div></div><p>` + body + `</p>` +
				`<ul class="actions"><li><a href="/post?quote=1">Reply with quote</a></li></ul><p>See similar questions with these tags.</p><div class="box"><p>Start asking to get answers</p><p>Find the answer to your question by asking.</p></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night"},
			unwanted: []string{"Ask Question", "silver badges", "answered Feb", "Reply with quote", "similar questions", "Start asking", "by asking"},
		},
		{
			name: "a post's share, follow, bookmark and report controls go; a resource's kind stays",
			page: `<!doctype html><html><head><title>Kilns - Forum</title></head><body>` + pageHeader +
				`<main><h1>Electric kiln wiring</h1><p>` + body + `</p><div class="ufi"><div><button type="button"><div class="label">Share</div></button></div>` +
				`<div><span>Follow</span></div><div><span class="lnk">Bookmark</span></div><div><span class="lnk">Flag</span></div></div>` +
				`<div class="toolLinks"><div class="lnk"><span class="taLnk"> Report inappropriate content </span></div></div><p>` + body + `</p>` +
				`<div class="resource"><div>Report</div><h3>2025 Studio Pottery Report</h3><p>How studios priced their work this year.</p></div></main>` + pageFooter + `</body></html>`,
			want:     []string{"The kiln fires at night", "Report\n", "2025 Studio Pottery Report"},
			unwanted: []string{"Share", "Follow", "Bookmark", "Flag", "inappropriate"},
		},
		{
			name: "the words inside a sentence, a table's cells and code stay",
			page: `<!doctype html><html><head><title>Glazes - Example</title></head><body>` + pageHeader +
				`<main><h1>Comparing glazes</h1><p>` + body + ` You can <a href="/more">read more</a> in our notes.</p>` +
				`<table><tr><th>Glaze</th><th>Finish</th></tr><tr><td>Celadon</td><td>Compare</td></tr></table>` +
				`<pre><code>loading</code></pre><p>She earned 3 gold badges in a year.</p><p>` + body + `</p></main>` + pageFooter + `</body></html>`,
			want: []string{"[read more](", "| Celadon | Compare |", "loading\n```", "She earned 3 gold badges in a year."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAProseHeadingOverNothingStays(t *testing.T) {
	md := article(t, `<!doctype html><html><head><title>Gallery - Example</title></head><body>`+pageHeader+
		`<main><h1>Our gallery</h1><div><h2>Welcome!</h2><h4>For more than forty years we have offered a vast selection of handmade gifts, from jewellery and pottery to hand-blown glass.</h4></div>`+
		`<h2>Visit us</h2><p>`+strings.Repeat("The gallery opens every day but Monday, from ten until six. ", 5)+`</p>`+
		`<h2>Related</h2></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"For more than forty years", "Visit us"}, []string{"Related"})
}
