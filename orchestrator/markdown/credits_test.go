package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func TestArticleLeavesPictureCreditsOut(t *testing.T) {
	const story = `<p>The ferry crossed the estuary at first light, its deck crowded with cyclists and commuters heading for the market town.</p>
<p>Since the bridge closed for repairs, the crossing has carried three times its usual load, and the operator has added a second boat at rush hour.</p>
<p>Local traders say the queues at the slipway have become a meeting place of their own, with coffee stalls and a newspaper seller.</p>`
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{
			name: "a credit named by its class leaves, the caption stays",
			body: `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>The ferry leaving the slipway.` +
				`<span class="photo-credit">Harbour Pictures</span></figcaption></figure>` + story,
			want:     []string{"The ferry leaving the slipway.", "three times its usual load"},
			unwanted: []string{"Harbour Pictures"},
		},
		{
			name:     "a credit in a compound class name leaves",
			body:     `<div class="media"><img src="/ferry.jpg" alt="Ferry"><div class="Image_imageCredit__x1">Photo: J. Boatman / Agency</div></div>` + story,
			want:     []string{"three times its usual load"},
			unwanted: []string{"Boatman"},
		},
		{
			name:     "a caption that is only a credit leaves",
			body:     `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>Image source: Stock Library.</figcaption></figure>` + story,
			want:     []string{"three times its usual load", "ferry.jpg"},
			unwanted: []string{"Stock Library"},
		},
		{
			name:     "a credit paragraph under a picture leaves",
			body:     `<p><img src="/ferry.jpg" alt="Ferry"></p><p><strong>Photo credit:</strong> estuary-news.example</p>` + story,
			want:     []string{"three times its usual load"},
			unwanted: []string{"estuary-news"},
		},
		{
			name:     "a name and an agency parted by a slash, alone in a caption, is a credit",
			body:     `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption><p>Ann Boatman / Coastal Press</p></figcaption></figure>` + story,
			want:     []string{"three times its usual load"},
			unwanted: []string{"Coastal Press"},
		},
		{
			name:     "a credit at the end of a caption's sentence leaves, the sentence stays",
			body:     `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>Cyclists wait on the deck. (Credit: Ann Boatman)</figcaption></figure>` + story,
			want:     []string{"Cyclists wait on the deck."},
			unwanted: []string{"Ann Boatman"},
		},
		{
			name:     "a credit after a bar at the end of a caption leaves",
			body:     `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>Cyclists wait on the deck | Photo: Ann Boatman</figcaption></figure>` + story,
			want:     []string{"Cyclists wait on the deck"},
			unwanted: []string{"Ann Boatman", "|"},
		},
		{
			name: "an agency's credit in small type right under a picture, with no caption marked, leaves",
			body: `<div class="media"><img src="/ferry.jpg" alt="Ferry"><span class="type-xs right">Getty Images / Ann Boatman</span></div>` + story +
				`<div class="media"><img src="/slip.jpg" alt="Slipway"> <span class="small">Ann Boatman/AFP</span></div>` +
				`<div class="media"><div class="frame"><img src="/deck.jpg" alt="Deck"></div><div class="note">Shutterstock</div></div>`,
			want:     []string{"three times its usual load", "ferry.jpg", "slip.jpg", "deck.jpg"},
			unwanted: []string{"Getty", "Boatman", "Shutterstock"},
		},
		{
			name: "a name and a role, a variant or a line beside words under a picture stay",
			body: story + `<div class="card"><img src="/people/ann.jpg" alt="Ann"><span>Ann Boatman / Harbour Master</span></div>` +
				`<div class="swatch"><img src="/blue.png" alt="Blue"><span>Blue / Large</span></div>` +
				`<div class="media"><img src="/stock.jpg" alt="Stock"><span>Getty Images</span><p>The library lent the harbour its old prints for the exhibition.</p></div>`,
			want: []string{"Ann Boatman / Harbour Master", "Blue / Large", "Getty Images", "lent the harbour"},
		},
		{
			name: "a caption that is a handle and an agency parted by a bar leaves",
			body: `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption><span class="caption-owner"><p>ann.boatman | Getty Images</p></span></figcaption></figure>` + story +
				`<figure><img src="/slip.jpg" alt="Slip"><figcaption>Harbour Studio via Getty Images</figcaption></figure>`,
			want:     []string{"three times its usual load", "ferry.jpg", "slip.jpg"},
			unwanted: []string{"boatman", "Getty", "Harbour Studio"},
		},
		{
			name:     "an agency's linked credit after a caption's sentence leaves, the sentence stays",
			body:     `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>Cyclists wait on the deck. <a href="https://agency.example/p/1">Ann Boatman/Moment via Getty Images</a></figcaption></figure>` + story,
			want:     []string{"Cyclists wait on the deck."},
			unwanted: []string{"Boatman", "Getty"},
		},
		{
			name: "an agency named as a word of a caption's sentence stays",
			body: `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>The ferry at dawn (image via <a href="https://pictures.example/">Unsplash</a>)</figcaption></figure>` + story +
				`<figure><img src="/slip.jpg" alt="Slip"><figcaption>Cyclists on the deck, in a picture shared on <a href="https://pictures.example/">Unsplash</a></figcaption></figure>`,
			want: []string{"(image via [Unsplash](https://pictures.example/))", "shared on [Unsplash](https://pictures.example/)"},
		},
		{
			name:     "a credit naming a studio and the magazine it came through leaves",
			body:     story + `<p><img src="/ferry.jpg" alt="Ferry"></p><p>Image by Ann Boatman Photography Studio via The Estuary Weekly</p>`,
			want:     []string{"three times its usual load", "ferry.jpg"},
			unwanted: []string{"Estuary Weekly"},
		},
		{
			name: "a caption's own words before a colon stay",
			body: `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>The second image: a fox at the gate</figcaption></figure>` + story,
			want: []string{"The second image: a fox at the gate"},
		},
		{
			name: "a copyright line in a caption leaves",
			body: `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>© Coastal Press 2024</figcaption></figure>` + story,
			want: []string{"three times its usual load"}, unwanted: []string{"Coastal Press"},
		},
		{
			name: "a caption that describes the picture stays",
			body: `<figure><img src="/ferry.jpg" alt="Ferry"><figcaption>Commuters queue at the slipway / the second boat arrives</figcaption></figure>` + story,
			want: []string{"Commuters queue at the slipway"},
		},
		{
			name: "a table header of capitalised words and slashes stays",
			body: story + `<figure class="table"><table><thead><tr><th>Route</th><th>Boats/Day</th><th>Fare ($)</th></tr></thead>` +
				`<tbody><tr><td>North</td><td>12</td><td>3</td></tr><tr><td>South</td><td>8</td><td>4</td></tr></tbody></table></figure>`,
			want: []string{"Boats/Day"},
		},
		{
			name: "a block whose class says it has no credit stays",
			body: `<div class="tile title-no-credit"><h3>Ferry timetable</h3><p>Boats leave every twenty minutes from six.</p></div>` + story,
			want: []string{"Boats leave every twenty minutes"},
		},
		{
			name: "a sentence that opens with the word photo stays",
			body: story + `<p>Photo by photo, the exhibition retraces forty years of crossings and the people who made them.</p>`,
			want: []string{"Photo by photo, the exhibition"},
		},
		{
			name: "a source line outside a figure stays",
			body: story + `<p>Source: harbour authority survey, 2023.</p>`,
			want: []string{"Source: harbour authority survey"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, "<!doctype html><html><head><title>The ferry</title></head><body><article><h1>The ferry</h1>"+tc.body+"</article></body></html>")
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestAnAgencysLineUnderAPictureIsACredit(t *testing.T) {
	for _, tc := range []struct {
		name, box string
		want      bool
	}{
		{"an agency and a photographer", `<img src="/a.jpg"><span id="x">Getty Images / Ann Boatman</span>`, true},
		{"a photographer and an agency without spaces", `<img src="/a.jpg"> <div id="x">Ann Boatman/AFP</div>`, true},
		{"under a picture's frame", `<div><picture><img src="/a.jpg"></picture></div><p id="x">Shutterstock</p>`, true},
		{"a linked line", `<img src="/a.jpg"><div id="x"><a href="/prints">Getty Images / Harbour Print</a></div>`, false},
		{"a line with words after it", `<img src="/a.jpg"><span id="x">Getty Images</span><p>The library lent its prints.</p>`, false},
		{"a line with words before it", `<img src="/a.jpg"> Printed by <span id="x">Getty Images</span>`, false},
		{"a line after a box of words", `<div>Harbour</div><span id="x">Getty Images</span>`, false},
		{"a line with no agency", `<img src="/a.jpg"><span id="x">Ann Boatman / Harbour Master</span>`, false},
		{"an agency's name inside a word", `<img src="/a.jpg"><span id="x">Dpath Epagoge</span>`, false},
		{"a name card's comma", `<img src="/a.jpg"><span id="x">Ann Boatman, Getty Images</span>`, false},
		{"a sentence", `<img src="/a.jpg"><span id="x">a picture from Getty Images</span>`, false},
		{"a sentence beside an agency", `<img src="/a.jpg"><span id="x">The ferry at first light / Getty Images</span>`, false},
		{"inline markup that is not a line of its own", `<img src="/a.jpg"><em id="x">Getty Images</em>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<!doctype html><html><body><div class="media">`+tc.box+`</div></body></html>`)
			n := doc.Find("#x").Nodes[0]
			if got := agencyLineUnderPicture(n); got != tc.want {
				var b strings.Builder
				_ = html.Render(&b, n.Parent)
				t.Errorf("agencyLineUnderPicture = %v, want %v for %s", got, tc.want, b.String())
			}
		})
	}
}
