package markdown

import (
	"testing"
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
