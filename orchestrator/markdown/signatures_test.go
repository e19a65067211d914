package markdown

import (
	"fmt"
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

// signedThread is a thread that declares itself one, each post followed
// by the box its forum names for the member's signature, sig the box's
// markup around the signature's text.
func signedThread(sig func(i int) string) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Tuning a turntable - Audio Forum</title>` +
		`<script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"Tuning a turntable"}</script></head><body>` +
		pageHeader + `<main><h1>Tuning a turntable</h1>`)
	replies := []string{
		"set the tracking force with a scale, not the dial, then the anti-skate to match, and check the arm's height with the platter turning.",
		"a hum that grows towards the label is often the earth wire of the arm, so check it is screwed down at the phono box before anything else.",
		"swap the left and right leads at the amplifier; if the hum moves to the other speaker, the fault is in the deck or its cable, not the amplifier.",
		"mine did the same until I moved the phono box away from the power supply of the router, which sat right under the shelf.",
	}
	for i, r := range replies {
		fmt.Fprintf(&sb, `<article class="message"><div class="message-user"><a href="/m/%d">listener%d</a></div>`+
			`<div class="message-content"><p>Reply %d: %s</p></div>%s</article>`, i, i, i, r, sig(i))
	}
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	return sb.String()
}

// TestAForumMembersSignatureUnderEachPostGoes drops the box a forum
// names for a member's signature under each post of a thread, whatever
// the software's name for it; a page that is no thread keeps a section
// its class calls a signature, and a box too long to be a signature
// stays.
func TestAForumMembersSignatureUnderEachPostGoes(t *testing.T) {
	names := []string{`<aside class="message-signature">`, `<div class="ipsEntry__signature">`, `<div class="postsignature postmsg">`, `<div data-role="memberSignature" class="ipsBorder_top">`}
	closers := []string{`</aside>`, `</div>`, `</div>`, `</div>`}
	md := article(t, signedThread(func(i int) string {
		return names[i] + fmt.Sprintf(`<p>Deck %d: a Rega Planar 3 with an Ortofon 2M Blue into a Pro-Ject phono box, and two small speakers on stands.</p>`, i) + closers[i]
	}))
	checkHolds(t, md, []string{"Reply 0:", "Reply 3:"}, []string{"Rega Planar"})

	// A thread whose opening post outweighs the replies: the main region
	// is the content, not the block Readability picks.
	opening := "<p>The arm hums on the left channel only, louder as the stylus nears the label, and the cartridge is new.</p>" +
		"<p>I have tried a second cable and a second phono box, and the hum stays the same at every volume.</p>" +
		"<p>The deck sits on a wall shelf, a metre from the amplifier, with the router on the shelf below it.</p>" +
		"<p>Is this the arm's wiring, or something in the room that the cartridge picks up as it moves inwards?</p>"
	md = article(t, strings.Replace(signedThread(func(i int) string {
		return `<aside class="message-signature"><p>Deck ` + fmt.Sprint(i) + `: a Rega Planar 3 with an Ortofon 2M Blue into a Pro-Ject phono box.</p></aside>`
	}), `<p>Reply 0:`, opening+opening+opening+`<p>Reply 0:`, 1))
	checkHolds(t, md, []string{"hums on the left channel", "Reply 3:"}, []string{"Rega Planar"})

	long := strings.Repeat("A signature box this long is a post of its own, kept whatever its class says it is. ", 26)
	md = article(t, signedThread(func(i int) string {
		if i == 2 {
			return `<div class="signature"><p>` + long + `</p></div>`
		}
		return ""
	}))
	checkHolds(t, md, []string{"Reply 0:", "a post of its own"}, nil)

	dish := strings.Repeat("Our chef slow-roasts the lamb shoulder for nine hours over vine cuttings before it is served. ", 3)
	md = article(t, `<!doctype html><html><head><title>The restaurant</title></head><body>`+pageHeader+
		`<main><h1>The restaurant</h1><p>`+dish+`</p><section class="signature-dishes"><h2>Signature dishes</h2><p>`+
		`The lamb shoulder, the smoked trout and a tart of the last quinces of the season.</p></section></main>`+pageFooter+`</body></html>`)
	checkHolds(t, md, []string{"slow-roasts the lamb", "smoked trout"}, nil)
}

// TestSignaturesUnderTheRowsOfAnUndeclaredForumGo drops the signatures
// of a board that declares no thread and lays its posts out as rows of a
// table, as older boards do; on such a page, boxes a class calls a
// signature that are not one under each post stay: rows of a comparison,
// items of a list, boxes side by side, a letter's one signature, boxes
// with nothing beside them.
func TestSignaturesUnderTheRowsOfAnUndeclaredForumGo(t *testing.T) {
	posts := []string{
		"No stream this time; the recording goes up on their channel an hour after it ends.",
		"The timing is early for them, which makes me think they want the whole news cycle today.",
		"Anyone know whether the new handheld is shown, or only the games for the old one?",
	}
	sigs := []string{"Currently playing: three old racing games", "Fire Emblem Echoes is underrated", "Woof"}
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Showcase today - Board</title></head><body>` + pageHeader +
		`<div id="content"><h1>Showcase today</h1><p>You are reading the board as a guest. Sign up for free to post, ` +
		`to follow the threads you like and to see the boards in the layout you choose, with fewer adverts than a guest sees.</p><table class="board">`)
	for i, p := range posts {
		fmt.Fprintf(&sb, `<tr><td class="author"><a href="/u/%d">player%d</a></td><td class="msg"><div class="msg_body">`+
			`<div class="msg_text">Post %d: %s</div><div class="signature"><div class="sig_text">%s</div></div></div></td></tr>`, i, i, i, p, sigs[i])
	}
	sb.WriteString(`</table></div>` + pageFooter + `</body></html>`)
	md := article(t, sb.String())
	checkHolds(t, md, []string{"Post 0:", "Post 2:"}, []string{"Currently playing", "underrated"})

	for _, tc := range []struct {
		name, body string
	}{
		{"rows of two comparisons", `<table><tr class="row-signature"><td>Digital signature</td><td>yes</td></tr>` +
			`<tr><td>Cloud storage</td><td>yes</td></tr><tr><td>Prior years' returns</td><td>five years</td></tr></table>` +
			`<table><tr><td>Cloud storage</td><td>no</td></tr><tr><td>Prior years' returns</td><td>two years</td></tr>` +
			`<tr class="row-signature"><td>Signature templates</td><td>no</td></tr></table>`},
		{"items of a list", `<ul><li><div class="signature">Lamb shoulder</div></li><li><div class="signature">Smoked trout</div></li><li>Quince tart</li></ul>`},
		{"items of two lists", `<h2>Lunch</h2><ul><li class="signature">Lamb shoulder</li><li>Quince tart with cream</li><li>Soup of the day</li></ul>` +
			`<h2>Dinner</h2><ul><li class="signature">Smoked trout</li><li>Pear tart with cream</li><li>Cheese from the hills</li></ul>`},
		{"cards that say less than their signatures", `<div class="card"><h3>Lamb</h3><p class="signature">Our signature dish, slow-roasted for nine hours over vine cuttings.</p></div>` +
			`<div class="card"><h3>Trout</h3><p class="signature">Our signature starter, smoked in the yard over beech and served with rye.</p></div>`},
		{"boxes side by side", `<div><div class="signature">Lamb shoulder, nine hours</div><div class="signature">Smoked trout</div><p>Both come with bread from our oven and a glass of the house wine.</p></div>`},
		{"a letter's signature", `<div><p>We open again in spring, with a new kitchen and the old menu.</p><div class="signature">Mara Quell, owner</div></div>`},
		{"nothing beside them", `<div><div class="wrap"><div class="signature">Lamb shoulder</div></div><div class="wrap"><div class="signature">Smoked trout</div></div></div>`},
	} {
		doc, err := html.Parse(strings.NewReader(`<html><body>` + tc.body + `</body></html>`))
		if err != nil {
			t.Fatal(err)
		}
		var before, after strings.Builder
		if err := html.Render(&before, doc); err != nil {
			t.Fatal(err)
		}
		dropPostSignatures(doc)
		if err := html.Render(&after, doc); err != nil {
			t.Fatal(err)
		}
		if got := after.String(); got != before.String() {
			t.Errorf("%s: changed to %s", tc.name, got)
		}
	}
}
