package markdown

import (
	"strings"
	"testing"
)

// A page read while a modal dialog is open (a consent dialog left open)
// has everything outside the dialog marked aria-hidden="true" by the
// dialog's script; what is behind the dialog is still the page's content,
// while decoration the page itself hides from screen readers stays out.
func TestThePageBehindAModalDialogIsTheContent(t *testing.T) {
	story := strings.Repeat("The ferry to the island leaves at dawn and returns after the last light has gone. ", 5)
	dialog := `<div role="dialog" aria-modal="true"><p>We use cookies to improve your experience. By clicking "Accept all" you agree to our use of cookies.</p><button>Accept all</button></div>`
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "the application's root, which holds the main region, is hidden beside the dialog",
			page: `<!doctype html><html><head><title>Ferries - Example</title></head><body>` +
				`<div id="root" aria-hidden="true">` + pageHeader + `<main><h1>The island ferry</h1><p>` + story + `</p>` +
				`<p>Rating <span aria-hidden="true">★★★★☆</span> four of five.</p></main>` + pageFooter + `</div>` + dialog + `</body></html>`,
			want:     []string{"The island ferry", "The ferry to the island leaves at dawn", "four of five"},
			unwanted: []string{"★"},
		},
		{
			name: "the main region itself is hidden",
			page: `<!doctype html><html><head><title>Ferries - Example</title></head><body><div class="page">` + pageHeader +
				`<main role="presentation" aria-hidden="true"><h1>The island ferry</h1><p>` + story + `</p></main>` + pageFooter + `</div>` + dialog + `</body></html>`,
			want: []string{"The island ferry", "The ferry to the island leaves at dawn"},
		},
		{
			name: "a hidden copy of the header beside the main region stays hidden",
			page: `<!doctype html><html><head><title>Ferries - Example</title></head><body>` +
				`<div class="sticky-copy" aria-hidden="true"><p>Timetables, fares and the harbour's opening hours for every crossing this season.</p></div>` +
				pageHeader + `<main><h1>The island ferry</h1><p>` + story + `</p></main>` + pageFooter + `</body></html>`,
			want:     []string{"The ferry to the island leaves at dawn"},
			unwanted: []string{"Timetables, fares"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkHolds(t, article(t, tc.page), tc.want, tc.unwanted)
		})
	}
}
