package markdown

import (
	"strings"
	"testing"
)

func TestArticleLeavesOutPaginationAndCarouselDots(t *testing.T) {
	story := `<p>` + strings.Repeat("The trail climbs through larch to a saddle under the peak. ", 5) + `</p>`
	for _, tc := range []struct {
		name           string
		body           string
		want, unwanted []string
	}{
		{
			name: "a pagination bar and a carousel's dots go",
			body: story + `<figure><img src="/a.jpg" alt="The saddle at dawn"><ul class="x"><li>1</li><li>2</li><li>3</li><li>4</li><li>5</li></ul></figure>` + story +
				`<ul class="y"><li><a href="?p=1">‹ Previous</a></li><li><a href="?p=1">1</a></li><li>2</li><li><a href="?p=3">3</a></li><li>…</li><li><a href="?p=9">9</a></li><li><a href="?p=3">Next ›</a></li></ul>`,
			want:     []string{"The trail climbs", "The saddle at dawn"},
			unwanted: []string{"- 1\n", "- 5", "Previous", "Next", "- 9"},
		},
		{
			name: "scores that do not count up, years and steps that say more stay",
			body: story + `<ul><li>9</li><li>7</li><li>8</li></ul><ul><li>2022</li><li>2023</li><li>2024</li></ul>` +
				`<ol><li>1</li><li>2</li><li>Pitch the tent above the lake.</li></ol>` + story,
			want: []string{"- 9\n- 7\n- 8", "- 2022\n- 2023", "Pitch the tent"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>The larch trail</title></head><body><main><article><h1>The larch trail</h1>`+
				tc.body+`</article></main></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
