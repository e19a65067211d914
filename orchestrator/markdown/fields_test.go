package markdown

import (
	"strings"
	"testing"
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
