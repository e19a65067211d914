package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestArticleLeavesOutFieldsPrintedAsStored(t *testing.T) {
	body := strings.Repeat("The jacket is cut from waxed cotton that softens with every wear. ", 6)
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "a picture's address as a field's value goes with its name, and a name without a value goes",
			page: `<!doctype html><html><head><title>Field jacket - Example</title></head><body>` + pageHeader +
				`<main><h1>Field jacket</h1><p>` + body + `</p><dl>` +
				`<dt>Fit:</dt><dd>Regular</dd>` +
				`<dt>thumb_Olive:</dt><dd>https://cdn.example.com/images/160x160/jacket_OLIVE_THUMB.jpg</dd>` +
				`<dt>thumb_Navy:</dt><dd> https://cdn.example.com/images/160x160/jacket_NAVY_THUMB.png?c=1 </dd>` +
				`<dt>price_tier2:</dt><dd></dd><dt>price_tier3:</dt>` +
				`<dt>Care:</dt><dd>Wipe clean</dd></dl>` +
				`<p>https://cdn.example.com/images/jacket_MAIN.webp</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The jacket is cut", "Fit:", "Regular", "Care:", "Wipe clean"},
			unwanted: []string{"thumb_Olive", "OLIVE_THUMB", "thumb_Navy", "NAVY_THUMB", "price_tier", "jacket_MAIN"},
		},
		{
			name: "an address in a sentence, a link, a table or code stays, and so does a term of a reference without a body",
			page: `<!doctype html><html><head><title>Images API - Example</title></head><body>` + pageHeader +
				`<main><h1>Images API</h1><p>` + body + `</p><p>Upload to https://api.example.com/v1/a.png today.</p>` +
				`<p><a href="https://cdn.example.com/b.png">https://cdn.example.com/b.png</a></p>` +
				`<table><tr><th>Field</th><th>Example</th></tr><tr><td>image_url</td><td>https://example.com/c.jpg</td></tr></table>` +
				`<pre><code>https://example.com/d.gif</code></pre>` +
				`<dl><dt><em>class</em> ImageCache</dt><dd></dd></dl><p>` + body + `</p></main>` + pageFooter + `</body></html>`,
			want: []string{"https://api.example.com/v1/a.png today", "https://cdn.example.com/b.png", "https://example.com/c.jpg",
				"https://example.com/d.gif", "ImageCache"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestArticleLeavesOutACreditsLabelWithoutItsName(t *testing.T) {
	body := strings.Repeat("The trail climbs through oak and pine before it reaches the ridge above the lake. ", 6)
	page := func(inner string) string {
		return `<!doctype html><html><head><title>The ridge trail - Example</title></head><body>` + pageHeader +
			`<main><article><h1>The ridge trail</h1>` + inner + `</article></main>` + pageFooter + `</body></html>`
	}
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
		// lines are lines the answer must not hold as a whole.
		lines []string
	}{
		{
			name: "labels whose names a script showed in buttons go, one after the other",
			page: page(`<div class="hero"><div class="byline"><span>By </span><div><button class="tip">Ana Lima</button></div></div>` +
				`<div class="editors"><div><span>Edited by </span><button class="tip">Bo Chen</button></div><span> • </span>` +
				`<div><span>Medically reviewed by </span><button class="tip">Cy Moss</button></div></div>` +
				`<p class="dek">A day's walk above the lake, with the view that made the trail famous and the climb that earns it.</p></div>` +
				`<p>` + body + `</p>`),
			want:     []string{"A day's walk above the lake", "The trail climbs"},
			unwanted: []string{"Edited by", "reviewed by", "•"},
			lines:    []string{"By"},
		},
		{
			name: "a logo beside a bare label stays, and so does a box of logos under one line",
			page: page(`<div class="hero"><div class="panel"><img src="/logos/board.png" alt="Parks Board"><div><span>Supported by </span><button>Parks Board</button></div></div>` +
				`<p class="dek">A day's walk above the lake, with the view that made the trail famous and the climb that earns it.</p></div>` +
				`<p>` + body + `</p><div class="partners"><div class="label">Trusted by</div><div class="logo"><img src="/logos/parks.png" alt="Parks Trust">` +
				`<p>The trust keeps the trail open all year, mends the bridges after the spring floods and runs the huts on the ridge.</p></div></div>` +
				`<p>` + body + `</p>`),
			want:     []string{"![Parks Board](https://example.com/logos/board.png)", "Trusted by", "![Parks Trust]"},
			unwanted: []string{"Supported by"},
		},
		{
			name: "a shop's sort label whose menu was a form's goes, before a grid",
			page: page(`<p>` + body + `</p><div class="toolbar"><span>Showing 4 trails</span><div><label>Sort by:</label><select><option>Length</option></select></div></div>` +
				`<div class="grid"><div class="card"><h3>Lake loop</h3><p>An easy walk around the lake shore on a wide path, with benches every mile and a café at the end.</p></div>` +
				`<div class="card"><h3>North ridge</h3><p>A long climb to the north summit and down through the pines, for a full day out with a packed lunch.</p></div></div>`),
			want:     []string{"Lake loop", "North ridge"},
			unwanted: []string{"Sort by"},
		},
		{
			name: "a label over its name in the next block, a maker's link, a logo, a list it leads into, or a link stays",
			page: page(`<p>` + body + `</p><h2>Guides to the trail</h2><div class="guide"><h3>The ridge in winter</h3>` +
				`<div class="group"><p>By:&nbsp;</p><p>Ana Lima, Bo Chen, Cy Moss</p></div>` +
				`<p>A guide to the ridge under snow, with the safe lines down and the huts that stay open.</p></div>` +
				`<h2>What to carry</h2><p>A light pack is enough for the day: <span class="item"><a href="/gear/pack">Day pack</a> <span class="maker">by</span> ` +
				`<a href="/brands/alpine">Alpine</a></span>, with room for water and a jacket.</p>` +
				`<ul class="gear"><li><a href="/gear/poles">Trekking poles</a><div class="maker">by</div><a href="/brands/peak">Peak Works</a></li>` +
				`<li><a href="/gear/flask">Flask</a><div class="maker">by</div><a href="/brands/thermo">Thermo Co</a></li></ul>` +
				`<div class="partners"><div class="label">Trusted by</div><div class="logos"><img src="/logos/parks.png" alt=""></div></div>` +
				`<p>Climb safely by:</p><ul><li>starting before the heat of the day, when the path is still in shade</li>` +
				`<li>carrying two litres of water and a layer for the wind at the top</li></ul>` +
				`<div class="note"><div class="label">Maps drawn by</div> Dee Park</div><p>The last light on the ridge, <em>seen by</em></p>` +
				`<h3>Stand by</h3><p>` + body + `</p><h3><a href="/stories/drive-by">Drive by</a></h3><p>` + body + `</p>` +
				`<p>Trails are listed as sorted by <a href="/help/sorting">Sort by</a>.</p><p>` + body + `</p>`),
			want: []string{"By:", "Ana Lima, Bo Chen, Cy Moss", "Day pack", "Alpine", "Trusted by", "Peak Works", "Thermo Co", "\n\n  by\n\n  [Peak Works]", "Climb safely by:", "Maps drawn by", "Dee Park", "The last light on the ridge, *seen by*", "### Stand by", "### [Drive by](https://example.com/stories/drive-by)",
				"starting before the heat", "[Sort by](https://example.com/help/sorting)"},
			lines: []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
			for _, line := range strings.Split(md, "\n") {
				for _, l := range tc.lines {
					if strings.TrimSpace(line) == l {
						t.Errorf("the answer holds the line %q:\n%s", l, md)
					}
				}
			}
		})
	}
}

func TestArticleLeavesOutARecordWrittenAsJSON(t *testing.T) {
	body := strings.Repeat("The kettle boils a litre in under three minutes and keeps it warm for an hour. ", 6)
	md := article(t, `<!doctype html><html><head><title>Kettle - Example</title></head><body>`+pageHeader+
		`<main><h1>Kettle</h1><p>`+body+`</p>`+
		`<div class="grid-state">{"painterId":"AsinGrid","hostPageType":"BROWSE","asins":["B0CXGXT6W8","B0CYNFWD2R"]}</div>`+
		`<div class="widget-config">[{"position":"left","leadColor":"#146ff8"}]</div>`+
		`<p>Send {"kettle": "on"} to the hub to start it.</p><p>[1]</p><p>{}</p><p>[12, 40, 85]</p>`+
		`<p>{Braces} mark the parts of a command you may leave out.</p>`+
		`<pre><code>{"kettle": "on", "minutes": 3}</code></pre><p>`+body+`</p></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{`Send {"kettle": "on"} to the hub`, "\\[12, 40, 85]", "{Braces} mark the parts", `{"kettle": "on", "minutes": 3}`, "The kettle boils"},
		[]string{"painterId", "B0CXGXT6W8", "leadColor"})
}

func TestABareCreditsLabelOverTextOfItsGroupStays(t *testing.T) {
	// A name may follow its label as text of the label's group, which
	// Readability wraps in a paragraph of its own but the page's marked
	// main region keeps as it is.
	doc, err := html.Parse(strings.NewReader(`<html><body><div class="note"><div class="label">Maps drawn by</div> Dee Park</div>` +
		`<div class="panel"><div class="label">Maps drawn by</div> ` + strings.Repeat("the trail and every path off it, ", 4) + `</div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	body := findFirst(doc, func(n *html.Node) bool { return n.DataAtom == atom.Body })
	dropBareCredits(body)
	if got := flatText(body); got != "Maps drawn by Dee Park the trail and every path off it, the trail and every path off it, the trail and every path off it, the trail and every path off it," {
		t.Errorf("got %q", got)
	}
}

func TestArticleLeavesOutATemplatesPlaceholders(t *testing.T) {
	body := strings.Repeat("The ferry leaves the north pier at seven and reaches the island before the morning wind rises. ", 6)
	md := article(t, `<!doctype html><html><head><title>Ferry - Example</title></head><body>`+pageHeader+
		`<main><h1>Ferry</h1><p>`+body+`</p>`+
		`<div class="errors"><strong>{{ board.errors[1179].message }}</strong></div>`+
		`<p>{{hire-crew="/banners/hire-crew"}}</p>`+
		`<ul><li><a href="/ferry/timetable">{{ item.title }}</a></li><li>{{{ item.body }}} {% include "fares" %}</li></ul>`+
		`<p>Write {{ name }} where the passenger's name goes.</p>`+
		`<pre><code>&lt;h1&gt;Hello {{ name }}!&lt;/h1&gt;
{{ form }}</code></pre><p>Set the field to <code>{{ form.crossing }}</code> in the ticket.</p><p>`+body+`</p></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"Write {{ name }} where", "{{ form }}\n```", "`{{ form.crossing }}`", "The ferry leaves"},
		[]string{"board.errors", "hire-crew", "item.title", "item.body", "fares", "****", "[]("})
}

// The content as the region gives it keeps the page's controls until the
// converter leaves them out: a label whose name is only a control's text
// is bare already.
func TestACreditsLabelOverAControlsTextIsBare(t *testing.T) {
	doc := parse(t, `<!doctype html><html><body><article><h1>The ridge trail</h1>`+
		`<div class="byline"><div class="line"><span>By </span><div><div class="xs-tip"><button class="xs-tip-label">Ana Lima</button></div><span class="role"></span></div></div>`+
		`<div class="line"><span>Edited by </span><div><div class="xs-tip"><button class="xs-tip-label">Bo Chen</button></div></div></div></div>`+
		`<div class="credit"><span>Maps by </span><div><span class="name">Dee Park</span></div></div>`+
		`<p>The trail climbs through oak and pine before it reaches the ridge above the lake.</p></article></body></html>`)
	art := doc.Find("article").Nodes[0]
	dropBareCredits(art)
	got := flatText(art)
	for _, gone := range []string{"By Ana", "Edited by Bo"} {
		if strings.Contains(got, gone) {
			t.Errorf("the label of %q stayed: %q", gone, got)
		}
	}
	if !strings.Contains(got, "Maps by") || !strings.Contains(got, "Dee Park") {
		t.Errorf("a label over a name lost it: %q", got)
	}
}
