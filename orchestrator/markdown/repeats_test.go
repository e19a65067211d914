package markdown

import (
	"strings"
	"testing"
)

func TestArticleWritesARepeatedSectionOnce(t *testing.T) {
	feature := `<div class="feature"><h3>Solid walnut</h3><p>Every table is cut from one board of walnut grown within fifty miles of the workshop.</p></div>`
	features := `<div class="features">` + feature +
		`<div class="feature"><h3>Hand-cut joints</h3><p>The legs meet the top in mortise and tenon joints, glued and pinned, with no screws.</p></div></div>`
	reassure := `<ul class="perks"><li>Free delivery to your room of choice</li><li>Returns accepted within sixty days of delivery</li></ul>`
	prose := `<p>` + strings.Repeat("The table suits a small room and a reading lamp. ", 5) + `</p>`
	for _, tc := range []struct {
		name string
		page string
		want map[string]int // text and how many times it must appear
	}{
		{
			name: "a section laid out twice, for a phone and for a desktop, comes once",
			page: `<!doctype html><html><head><title>Walnut table - Example</title></head><body>` + pageHeader +
				`<main><h1>Walnut side table</h1>` + prose + `<div class="desktop">` + features + `</div>` +
				`<p>Made to order in six weeks.</p><div class="mobile">` + features + `</div>` + reassure + `<p>More words about delivery.</p>` + reassure +
				`</main>` + pageFooter + `</body></html>`,
			want: map[string]int{"one board of walnut": 1, "mortise and tenon": 1, "sixty days": 1, "Made to order": 1},
		},
		{
			name: "a paragraph said twice and a wrapper around one block stay",
			page: `<!doctype html><html><head><title>Walnut table - Example</title></head><body>` + pageHeader +
				`<main><h1>Walnut side table</h1><div class="wrap"><div class="inner">` + prose + `</div></div>` +
				`<p>Oil it once a year, and wipe it with a damp cloth after every meal.</p>` + prose +
				`</main>` + pageFooter + `</body></html>`,
			want: map[string]int{"reading lamp": 10, "damp cloth": 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			for w, n := range tc.want {
				if got := strings.Count(md, w); got != n {
					t.Errorf("the Markdown holds %q %d times, want %d:\n%s", w, got, n, md)
				}
			}
		})
	}
}
