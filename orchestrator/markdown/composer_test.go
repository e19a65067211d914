package markdown

import (
	"strings"
	"testing"
)

func TestArticleLeavesOutAComposer(t *testing.T) {
	question := `<div class="question"><h1>How do I keep a buffet line moving?</h1><p>` +
		strings.Repeat("We serve forty guests from one table and the line stalls at the carving station every time. ", 4) + `</p></div>`
	answer := `<div class="answer"><p>` + strings.Repeat("Put the plates at the start and the cutlery at the end, and carve ahead of time. ", 5) + `</p></div>`
	for _, tc := range []struct {
		name           string
		page           string
		want, unwanted []string
	}{
		{
			name: "an answer form under a question goes with its labels",
			page: `<main>` + question + answer + `<form id="post-form" action="/questions/1/answer/submit" method="post"><h2>Your Answer</h2>` +
				`<textarea name="post-text"></textarea><div class="login"><h3>Sign up or <a href="/users/login">log in</a></h3>` +
				`<button type="button">Sign up using Google</button><button type="button">Sign up using Email and Password</button></div>` +
				`<h3>Post as a guest</h3><label for="display-name">Name</label><input id="display-name"><p>Required, but never shown</p>` +
				`<button type="submit">Post Your Answer</button></form></main>`,
			want:     []string{"line stalls at the carving station", "carve ahead of time"},
			unwanted: []string{"Your Answer", "Post as a guest", "Required, but never shown", "Sign up"},
		},
		{
			name: "a page's own attribute of the mark's name marks nothing",
			page: `<main>` + question + answer + `<section data-glimpse-composer=""><h2>Tips</h2><p>A last tip: label the trays so guests know what is in each.</p>` +
				`<p>Another: keep a spare ladle at the end of the line.</p></section></main>`,
			want: []string{"carve ahead of time", "A last tip: label the trays"},
		},
		{
			name: "a page its framework builds inside one form stays",
			page: `<form id="aspnetForm" method="post" action="./guide.aspx"><main>` + question + answer +
				`<p>Send us your own tips:</p><textarea name="tips"></textarea></main></form>`,
			want: []string{"line stalls at the carving station", "carve ahead of time", "Send us your own tips:"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Buffet lines - Example</title></head><body>`+pageHeader+tc.page+pageFooter+`</body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestComposersAreFormsWithABoxToWriteIn(t *testing.T) {
	for _, tc := range []struct {
		html string
		want bool
	}{
		{`<form action="/reply"><textarea name="body"></textarea><button>Reply</button></form>`, true},
		{`<form action="/search"><p>Find a dish.</p><input type="text" name="q"></form>`, false},
		{`<div class="reply"><textarea name="body"></textarea></div>`, false},
	} {
		doc := parse(t, "<html><body>"+tc.html+"</body></html>")
		if got := composer(doc.Find("body").Children().Nodes[0]); got != tc.want {
			t.Errorf("composer(%s) = %v, want %v", tc.html, got, tc.want)
		}
	}
}

func TestAComposerHoldingMuchOfTheContentStays(t *testing.T) {
	long := strings.Repeat("The carving station sets the pace of the whole line. ", 50) // over maxComposerText
	for _, tc := range []struct {
		name, html string
		gone       bool
	}{
		{"a reply box under a post", `<p>` + long + `</p><div data-glimpse-composer=""><h3>Leave a reply</h3><p>Your email is never shown.</p></div>`, true},
		{"a box that holds most of the text", `<p>A short post.</p><div data-glimpse-composer=""><h3>Leave a reply</h3><p>Your email is never shown.</p></div>`, false},
		{"a box longer than a composer's labels", `<p>` + long + long + long + `</p><div data-glimpse-composer=""><p>` + long + `</p></div>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, "<html><body>"+tc.html+"</body></html>")
			body := doc.Find("body").Nodes[0]
			dropComposers(body)
			if gone := doc.Find("[data-glimpse-composer]").Length() == 0; gone != tc.gone {
				t.Errorf("gone = %v, want %v", gone, tc.gone)
			}
		})
	}
}
