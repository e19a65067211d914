package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// quotingThread is a thread of four posts of one shape whose last post
// holds the quotation given, then a reply of its own.
func quotingThread(quote string) string {
	texts := []string{
		"Opening post: the sourdough starter smells of nail varnish after a week in the fridge, and it rises only half as far as before.",
		"First reply: that smell is the yeast going hungry; feed it twice a day at room temperature for a few days and it comes back.",
		"Second reply: pour off the grey liquid on top before feeding, and use a little rye flour, which the yeast likes better than white.",
	}
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Starter smells odd - Baking Forum</title></head><body>` + pageHeader +
		`<main><h1>Starter smells odd</h1>`)
	for i, t := range texts {
		fmt.Fprintf(&sb, `<div class="post"><div class="author"><a href="/u/%d">baker%d</a></div><div class="text"><p>%s</p></div></div>`, i, i, t)
	}
	fmt.Fprintf(&sb, `<div class="post"><div class="author"><a href="/u/9">baker9</a></div><div class="text">%s`+
		`<p>Own words of the last post: thanks, fed it with rye this morning and it doubled by lunch.</p></div></div>`, quote)
	sb.WriteString(`</main>` + pageFooter + `</body></html>`)
	return sb.String()
}

func TestARepeatedQuotationGoes(t *testing.T) {
	for _, tc := range []struct {
		name           string
		quote          string
		want, unwanted []string
	}{
		{"a quotation of an earlier post on the page goes with its furniture",
			`<blockquote><div class="attribution">baker1 said:</div><div class="quoted">that smell is the yeast going hungry; ` +
				`feed it twice a day at room temperature for a few days and it comes back.</div><div class="expand">Click to expand...</div></blockquote>`,
			[]string{"First reply: that smell", "Own words of the last post"}, []string{"baker1 said", "Click to expand"}},
		{"a quotation of a quotation of posts on the page goes whole",
			`<blockquote><p>baker2 wrote:</p><blockquote><p>baker0 wrote:</p><p>the sourdough starter smells of nail varnish after a week ` +
				`in the fridge</p></blockquote><p>pour off the grey liquid on top before feeding, and use a little rye flour</p></blockquote>`,
			[]string{"Opening post", "Second reply: pour off", "Own words of the last post"}, []string{"baker2 wrote", "baker0 wrote"}},
		{"a quotation of a text not on the page stays",
			`<blockquote><p>baker7 wrote:</p><p>On the previous page: keep the starter in a jar with a loose lid, never a sealed one.</p></blockquote>`,
			[]string{"baker7 wrote", "keep the starter in a jar", "Own words of the last post"}, nil},
		{"a quotation mostly of its own words stays, though a phrase of it is on the page",
			`<blockquote><p>A baker of sixty years once said that rye flour wakes any starter, however long it slept in the cold, ` +
				`and that smell is the yeast going hungry, nothing worse; she baked every day of her life.</p></blockquote>`,
			[]string{"A baker of sixty years", "Own words of the last post"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, quotingThread(tc.quote))
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}

func TestCollapseSpaces(t *testing.T) {
	for in, want := range map[string]string{"a b": "a b", "a  b": "a b", "a\n\tb ": "a b ", "a\u00a0b": "a b", "": ""} {
		if got := collapseSpaces(in); got != want {
			t.Errorf("collapseSpaces(%q) = %q, want %q", in, got, want)
		}
	}
}

// Some forum software draws every post's text as a block quotation, and
// the opening post's first line may repeat the thread's title: the title
// is no post's text, so the opening post is no copy of it.
func TestAnOpeningPostThatRepeatsTheTitleIsNoQuotation(t *testing.T) {
	title := "Which wood glue holds outdoors through a wet winter?"
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>` + title + ` - Workshop Forum</title></head><body>` + pageHeader +
		`<main><ol class="posts">`)
	for i := range 4 {
		fmt.Fprintf(&sb, `<li class="post"><div class="author"><a href="/u/%d">joiner%d</a></div>`, i, i)
		if i == 0 {
			sb.WriteString(`<h2>` + title + `</h2><blockquote class="content"><p>Hello</p><p>` + title +
				`</p><p>The bench stays out all year.</p></blockquote></li>`)
			continue
		}
		fmt.Fprintf(&sb, `<blockquote class="content"><p>Reply %d: a polyurethane glue cures with the moisture in the air `+
			`and holds through rain and frost, where a plain white glue lets go by spring.</p></blockquote></li>`, i)
	}
	sb.WriteString(`</ol></main>` + pageFooter + `</body></html>`)
	md := article(t, sb.String())
	checkHolds(t, md, []string{"The bench stays out all year", "Reply 1: a polyurethane", "Reply 3: a polyurethane"}, nil)
}

// When every post's text is a block quotation, a reply's quotation of an
// earlier post is a box inside the reply's own: the box goes, the reply's
// words after it stay.
func TestAQuotationInsideAPostDrawnAsAQuotationGoesAlone(t *testing.T) {
	texts := []string{
		"Opening post: which wood glue holds outdoors through a wet winter? The bench stays out all year.",
		"First reply: a polyurethane glue cures with the moisture in the air and holds through rain and frost.",
		"Second reply: a resorcinol glue is what boat builders use, though it leaves a dark line in the joint.",
	}
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>Outdoor glue - Workshop Forum</title></head><body>` + pageHeader +
		`<main><h1>Outdoor glue</h1><ol class="posts">`)
	for i, text := range texts {
		fmt.Fprintf(&sb, `<li class="post"><div class="author"><a href="/u/%d">joiner%d</a></div><blockquote class="content"><p>%s</p></blockquote></li>`, i, i, text)
	}
	sb.WriteString(`<li class="post"><div class="author"><a href="/u/9">joiner9</a></div><blockquote class="content">` +
		`<div class="quote-box"><div class="quote-head">Originally Posted by joiner1</div><div class="quote-text">a polyurethane glue ` +
		`cures with the moisture in the air and holds through rain and frost.</div></div>Thanks, polyurethane it is.</blockquote></li>`)
	sb.WriteString(`</ol></main>` + pageFooter + `</body></html>`)
	md := article(t, sb.String())
	checkHolds(t, md, []string{"First reply: a polyurethane", "Thanks, polyurethane it is."}, []string{"Originally Posted by"})
}
