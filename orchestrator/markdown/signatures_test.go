package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestThePhoneAppsLineUnderAPostGoes drops the line a phone's app adds
// under a post, as the last line of the post's text or as a block of its
// own; a sentence that says where something was sent from, a post's
// last line that is its own, and a quoted post stay.
func TestThePhoneAppsLineUnderAPostGoes(t *testing.T) {
	post := strings.Repeat("The watch tracks sleep and heart rate, and the battery lasts a week. ", 4)
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{"after a line break",
			`<div class="post">` + post + `<br /> <br /> Sent from my SM-S908U using <a href="https://tapatalk.example/byo">AC Forums mobile app</a></div>`,
			[]string{"battery lasts a week"}, []string{"Sent from", "mobile app"}},
		{"a block of its own",
			`<div class="post"><p>` + post + `</p><p>Sent from my iPhone using Tapatalk</p></div><div class="post"><p>` + post + `</p><p><i>Sent using Tapatalk</i></p></div>`,
			[]string{"battery lasts a week"}, []string{"Sent from", "Tapatalk"}},
		{"what stays",
			`<div class="post">` + post + `<br>The photos were sent from my phone using the shop's app, and they arrived blurred.<br>Sent from my desk, where the charger lives, after a week of testing it.</div>` +
				`<blockquote>` + post + `<br>Sent from my iPad</blockquote>`,
			[]string{"sent from my phone using the shop's app", "Sent from my desk, where the charger lives", "Sent from my iPad"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Watches</title></head><body><article><h1>Watches</h1>`+tc.body+`</article></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

// TestDropDeviceSignaturesReadsTheLastLineOfABlock drops the line after
// a block's last break, as the text and the link the page wrote it in,
// with the breaks before it, and leaves a block whose last line is its
// own as it was.
func TestDropDeviceSignaturesReadsTheLastLineOfABlock(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`<div>Battery lasts a week.<br /> <br /> Sent from my SM-S908U using <a href="/app">AC Forums mobile app</a></div>`, `<div>Battery lasts a week.</div>`},
		{`<div>Battery lasts a week.<br>Sent from my iPhone</div>`, `<div>Battery lasts a week.</div>`},
		{`<div>Battery lasts a week.<br>Charge it on Sundays.</div>`, `<div>Battery lasts a week.<br/>Charge it on Sundays.</div>`},
		{`<div>Battery lasts a week.<br>Sent from my iPhone<p>More below.</p></div>`, `<div>Battery lasts a week.<br/>Sent from my iPhone<p>More below.</p></div>`},
	} {
		doc := parse(t, `<html><body>`+tc.in+`</body></html>`)
		body := doc.Find("body").Nodes[0]
		dropDeviceSignatures(body)
		var sb strings.Builder
		if err := html.Render(&sb, body.FirstChild); err != nil {
			t.Fatal(err)
		}
		if sb.String() != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, sb.String(), tc.want)
		}
	}
}
