package markdown

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/internal/testtool"
)

// hostileBudget is how long a hostile page may keep the package busy:
// a few seconds, with room for the race detector's slowdown.
const hostileBudget = 10 * time.Second

func element(tag string, kids ...*html.Node) *html.Node {
	n := &html.Node{Type: html.ElementNode, Data: tag, DataAtom: atom.Lookup([]byte(tag))}
	for _, k := range kids {
		n.AppendChild(k)
	}
	return n
}

func text(s string) *html.Node { return &html.Node{Type: html.TextNode, Data: s} }

// document wraps a body's children in a document, built node by node:
// parsing tens of megabytes under the race detector would test the parser,
// not this package.
// nestedBoxes is n boxes made by box, each holding its own content and
// then the box made after it: box(0) holds all the others.
func nestedBoxes(n int, box func(i int) *html.Node) *html.Node {
	var inner *html.Node
	for i := n - 1; i >= 0; i-- {
		b := box(i)
		if inner != nil {
			b.AppendChild(inner)
		}
		inner = b
	}
	return inner
}

func document(body ...*html.Node) *goquery.Document {
	root := &html.Node{Type: html.DocumentNode}
	root.AppendChild(element("html", element("head"), element("body", body...)))
	return goquery.NewDocumentFromNode(root)
}

func within(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	took := time.Since(start)
	if took > hostileBudget {
		t.Errorf("%s took %v, more than %v", what, took, hostileBudget)
	}
	t.Logf("%s took %v", what, took)
}

func TestHostilePagesGetABoundedAnswer(t *testing.T) {
	testtool.WithoutRace(t)
	t.Run("the choice of a block among 60,000 cards is bounded by the page's size", choiceOfABlockIsBounded)
	t.Run("nesting 100,000 deep gives the text", func(t *testing.T) {
		page := "<html><body>" + strings.Repeat("<div>", 100_000) + "deep words" + strings.Repeat("</div>", 100_000) + "</body></html>"
		doc := parse(t, page)
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || md != "deep words\n" {
				t.Errorf("got %q, %v", md, err)
			}
		})
		within(t, "Convert", func() {
			md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
			if err != nil || md != "deep words\n" {
				t.Errorf("got %q, %v", md, err)
			}
		})
	})
	t.Run("5,000 cards each written for two layouts are weighed at a bounded cost", func(t *testing.T) {
		doc := parse(t, `<!doctype html><html><head><title>Events</title></head><body><main><h1>Events</h1>`+eventCards(5_000)+`</main></body></html>`)
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || strings.Count(md, "Evening talk on harbour history, part 4999]") != 1 {
				t.Errorf("the last event is not there once: %v", err)
			}
		})
	})
	t.Run("50,000 lines before the first one the block keeps are read once for its lead", func(t *testing.T) {
		var lines strings.Builder
		for i := range 50_000 {
			fmt.Fprintf(&lines, `<p>Line %d</p>`, i)
		}
		body := strings.Repeat(`<p>The ferry runs again from Monday, every hour from the old pier, and the timetable is posted at the quay.</p>`, 20)
		doc := parse(t, `<!doctype html><html><head><title>Ferry</title></head><body><main><div class="intro">`+lines.String()+
			`</div><article><h2>Timetable</h2>`+body+`</article></main></body></html>`)
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("nesting deeper than the copy keeps gives the text", func(t *testing.T) {
		// A tree built by hand is not bound by the parser's depth limit.
		inner := element("p", text("deep words"))
		for range 5_000 {
			inner = element("div", inner)
		}
		doc := document(inner)
		within(t, "Convert", func() {
			md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
			if err != nil || md != "deep words\n" {
				t.Errorf("got %q, %v", md, err)
			}
		})
	})
	// nestedPanels is paragraphs inside 300 closed panels, one inside the
	// other, each opened by a control and each a tab panel.
	nestedPanels := func(paragraphs int) *goquery.Document {
		var paras []*html.Node
		for range paragraphs {
			paras = append(paras, element("p", text("A paragraph that a reader opens the panels to see.")))
		}
		inner := element("div", paras...)
		var controls []*html.Node
		for i := range 300 {
			id := fmt.Sprintf("panel-%d", i)
			panel := element("div", inner)
			panel.Attr = []html.Attribute{{Key: "id", Val: id}, {Key: "role", Val: "tabpanel"}, {Key: "hidden"}}
			inner = panel
			b := element("button", text("Open"))
			b.Attr = []html.Attribute{{Key: "aria-expanded", Val: "false"}, {Key: "aria-controls", Val: id}}
			controls = append(controls, b)
		}
		return document(append(controls, element("article", inner))...)
	}
	t.Run("menus of sentences nested 3,000 deep are judged at a bounded cost", func(t *testing.T) {
		// Each box its class calls a menu holds a sentence and every box
		// below it: the check for prose reads each box's text.
		inner := nestedBoxes(3_000, func(i int) *html.Node {
			m := element("div", element("p", text(fmt.Sprintf("Line %d of the menu is a sentence of eight words.", i))))
			m.Attr = []html.Attribute{{Key: "class", Val: "faq-menu-item"}}
			return m
		})
		doc := document(element("main", element("h1", text("Questions")), inner))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("4,000 streamed parts, each moved into the one before it, are placed at a bounded cost", func(t *testing.T) {
		// Each part holds the placeholder of the next, and the script
		// also names 100,000 parts the page does not have.
		withID := func(n *html.Node, id string, attrs ...html.Attribute) *html.Node {
			n.Attr = append([]html.Attribute{{Key: "id", Val: id}}, attrs...)
			return n
		}
		var parts []*html.Node
		var calls strings.Builder
		for i := range 4_000 {
			parts = append(parts, withID(element("div", element("p", text(fmt.Sprintf("Part %d of the streamed story.", i))),
				withID(element("template"), fmt.Sprintf("P:%x", i+1))), fmt.Sprintf("S:%x", i), html.Attribute{Key: "hidden"}))
			fmt.Fprintf(&calls, `$RS("S:%x","P:%x");`, i, i)
		}
		for i := range 100_000 {
			fmt.Fprintf(&calls, `$RC("B:%x","S:%x");`, i, i+4_000)
		}
		main := element("main", element("h1", text("Story")), withID(element("template"), "P:0"))
		doc := document(append(append([]*html.Node{main}, parts...), element("script", text(calls.String())))...)
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || !strings.Contains(md, "Part 0 of") || !strings.Contains(md, "Part 3999 of") {
				t.Errorf("got %d bytes, %v", len(md), err)
			}
		})
	})
	t.Run("pictures with an agency's line under them, nested 3,000 deep, are judged at a bounded cost", func(t *testing.T) {
		// Each box holds a picture, the line under it and every box
		// below it: whether the line ends its box reads a few siblings.
		inner := nestedBoxes(3_000, func(i int) *html.Node {
			img := element("img")
			img.Attr = []html.Attribute{{Key: "src", Val: fmt.Sprintf("/p/%d.jpg", i)}}
			return element("div", element("div", img), element("span", text("Getty Images / Ann Boatman")))
		})
		doc := document(element("article", element("h1", text("Pictures")), element("p", text("The harbour in pictures, from the archive of the society.")), inner))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("a caption of 20,000 agency credits, between empty boxes, is judged at a bounded cost", func(t *testing.T) {
		// Each credit is weighed for words beside and after it in the
		// caption: those reads stop at the first word.
		var kids []*html.Node
		for i := range 20_000 {
			kids = append(kids, element("span", text(fmt.Sprintf("Photographer%d via Getty Images", i))), element("span"), element("b"))
		}
		img := element("img")
		img.Attr = []html.Attribute{{Key: "src", Val: "/harbour.jpg"}}
		doc := document(element("article", element("h1", text("Pictures")),
			element("p", text("The harbour in pictures, from the archive of the society, with its credits.")),
			element("figure", img, element("figcaption", kids...))))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("a related card under 5,000 nested boxes of a picture each is judged at a bounded cost", func(t *testing.T) {
		// Each box may be a teaser card by its text, which its pictures do
		// not add to; the check of each reads a card's number of elements
		// at most.
		link := element("a", text("Tutoring may not improve attendance"))
		link.Attr = []html.Attribute{{Key: "href", Val: "/news/attendance"}}
		card := element("div", element("span", text("Related")), element("h5", link))
		boxes := nestedBoxes(5_000, func(i int) *html.Node {
			img := element("img")
			img.Attr = []html.Attribute{{Key: "src", Val: fmt.Sprintf("/photo-%d.jpg", i)}}
			return element("div", img)
		})
		inner := boxes
		for inner.FirstChild != nil {
			inner = inner.FirstChild
		}
		inner.AppendChild(card)
		story := strings.Repeat("Tutoring helps most when it happens during the school day, with the same tutor. ", 20)
		doc := document(element("article", element("h1", text("Tutoring")), element("p", text(story)), boxes, element("p", text(story))))
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(md, "same tutor") {
				t.Errorf("the story is lost:\n%s", md)
			}
		})
	})
	t.Run("a product's carousel under 5,000 empty boxes goes with its heading at a bounded cost", func(t *testing.T) {
		// Once its cards go, every box around them is empty: the search
		// for the carousel's heading climbs them all, reading at each
		// level only the boxes beside the one it comes from. Built node
		// by node, past the depth the copy of a parsed page keeps.
		var cards []*html.Node
		for i := range 5 {
			cards = append(cards, element("li", element("a", text(fmt.Sprintf("Enamel teapot in colour %d", i))), element("span", text(fmt.Sprintf("$%d.00", 20+i)))))
		}
		for _, c := range cards {
			c.FirstChild.Attr = []html.Attribute{{Key: "href", Val: "/p/1"}}
		}
		boxes := nestedBoxes(5_000, func(int) *html.Node { return element("div") })
		inner := boxes
		for inner.FirstChild != nil {
			inner = inner.FirstChild
		}
		inner.AppendChild(element("ul", cards...))
		story := strings.Repeat("A kettle of brushed steel that boils a litre and a half on any hob. ", 12)
		body := element("body", element("div", element("h2", text("Similar items"))), boxes,
			element("div", element("h1", text("Stovetop Kettle")), element("p", text(story))))
		within(t, "dropOtherProducts", func() {
			if dropOtherProducts(body, map[*html.Node]bool{}, true) {
				t.Fatal("read as a list")
			}
		})
		checkHolds(t, flatText(body), []string{"boils a litre"}, []string{"Enamel teapot", "Similar items"})
	})
	t.Run("boxes named for consent nested 3,000 deep are read within a preference centre's size", func(t *testing.T) {
		// Each box's class names consent and each holds a paragraph on
		// cookies and every box below it: the check for a preference
		// centre reads only boxes of a centre's size.
		inner := nestedBoxes(3_000, func(i int) *html.Node {
			b := element("div", element("p", text(fmt.Sprintf("Box %d keeps its cookie for a year, as the cookie notes of the boxes below it say.", i))))
			b.Attr = []html.Attribute{{Key: "class", Val: "cookie-consent"}}
			return b
		})
		notice := element("p", text("We use cookies to improve the site. By continuing to browse you agree to our cookie policy."))
		doc := document(element("main", element("h1", text("Cookies")), inner, notice))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("boxes of links nested 2,000 deep after a grid's <main> are measured once", func(t *testing.T) {
		// Each box is mostly links, so the search for a description under
		// the grid reads on into the box below it: from measures taken once.
		inner := nestedBoxes(2_000, func(i int) *html.Node {
			return element("div", element("a", text(fmt.Sprintf("Oak side table with a drawer, model %d of the range, in stock", i))),
				element("p", text("Made to order.")))
		})
		var cards []*html.Node
		for i := range 24 {
			cards = append(cards, element("li", element("a", text(fmt.Sprintf("Walnut side table model %d", i))), element("span", text("$90.00"))))
		}
		doc := document(element("main", element("h1", text("Side tables")), element("ul", cards...)), inner)
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("headings that call themselves headers, over lists nested 3,000 deep, are read at a bounded cost", func(t *testing.T) {
		// Each heading's class says "header" and the list after it holds
		// the next level: whether the heading opens a section reads the
		// start of the list, not all of it.
		var inner *html.Node
		for i := range 3_000 {
			h := element("h2", text(fmt.Sprintf("Heading %d of the outline", i)))
			h.Attr = []html.Attribute{{Key: "class", Val: "header-anchor-post"}}
			item := element("li", text(fmt.Sprintf("Point %d of the outline, said in a sentence.", i)))
			if inner != nil {
				item.AppendChild(inner)
			}
			box := element("div", h, element("ul", item))
			box.Attr = []html.Attribute{{Key: "class", Val: "section with-header is-menu-open"}}
			inner = box
		}
		doc := document(element("article", element("h1", text("Outline")), inner))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("20,000 hidden roots, each 100 boxes deep, are asked for a main region at a bounded cost", func(t *testing.T) {
		// Each child of <body> marked aria-hidden is searched for the
		// page's main region (the page behind a dialog): once each.
		var kids []*html.Node
		for i := range 20_000 {
			inner := element("span", text(fmt.Sprintf("menu %d", i)))
			for range 100 {
				inner = element("div", inner)
			}
			inner.Attr = []html.Attribute{{Key: "aria-hidden", Val: "true"}}
			kids = append(kids, inner)
		}
		kids = append(kids, element("main", element("h1", text("The story")),
			element("p", text("The ferry to the island leaves at dawn and returns after the last light has gone, every day of the year."))))
		doc := document(kids...)
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || !strings.Contains(md, "ferry to the island") || strings.Contains(md, "menu 1") {
				t.Errorf("got %q, %v", md, err)
			}
		})
	})
	t.Run("a heading of 20,000 buttons is read at a bounded cost", func(t *testing.T) {
		// Each button asks whether it is all its heading says.
		var buttons []*html.Node
		for i := range 20_000 {
			buttons = append(buttons, element("button", text(fmt.Sprintf("Toggle %d", i))))
		}
		doc := document(element("article", element("h2", buttons...),
			element("p", text(strings.Repeat("A paragraph of the story under the heading. ", 20)))))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("tooltips nested 5,000 deep are each judged at a bounded cost", func(t *testing.T) {
		// Each element whose role is tooltip holds a link and every one
		// below it: the look for a control reads each one's first nodes.
		var inner *html.Node
		for i := range 5_000 {
			tip := element("span", element("a", text(fmt.Sprintf("Author %d", i))))
			tip.FirstChild.Attr = []html.Attribute{{Key: "href", Val: "/a"}}
			tip.Attr = []html.Attribute{{Key: "role", Val: "tooltip"}}
			if inner != nil {
				tip.AppendChild(inner)
			}
			inner = tip
		}
		doc := document(element("article", element("h1", text("Posts")), element("p", inner)))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("components nested 2,000 deep, each with 50 slots, are copied once", func(t *testing.T) {
		// Each host's shadow tree has 50 default slots; only the first
		// takes the host's children (the next component), so each is
		// copied once, not 50 times per level.
		var inner *html.Node
		for i := range 2_000 {
			tree := element("template")
			tree.Attr = []html.Attribute{{Key: "shadowrootmode", Val: "open"}}
			for range 50 {
				tree.AppendChild(element("slot"))
			}
			host := element("kiln-card", tree, element("p", text(fmt.Sprintf("Level %d of the components says a sentence.", i))))
			if inner != nil {
				host.AppendChild(inner)
			}
			inner = host
		}
		doc := document(element("article", element("h1", text("Components")), inner))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Error(err)
			}
		})
	})
	t.Run("comments nested 3,000 deep are judged as a tree at a bounded cost", func(t *testing.T) {
		// Each reply inside the one it answers: a tree of posts (see
		// nestedPosts) whose every box holds all the boxes below it.
		var inner *html.Node
		for i := range 3_000 {
			c := element("div", element("div", text(fmt.Sprintf("member%d", i))),
				element("p", text(fmt.Sprintf("Comment %d says something of its own, long enough to count as prose.", i))))
			c.Attr = []html.Attribute{{Key: "class", Val: "comment"}}
			if inner != nil {
				c.AppendChild(inner)
			}
			inner = c
		}
		doc := document(element("main", element("h1", text("A thread")), inner))
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || !strings.Contains(md, "Comment 0 says something") {
				t.Errorf("the deepest reply is not in the answer: %v %.200q", err, md)
			}
		})
	})
	t.Run("a line of a hundred thousand less-than signs is written in a bounded time", func(t *testing.T) {
		// Whether each "<" needs its escape is read from the line after
		// it; a bounded look keeps the line's cost linear.
		line := strings.Repeat("a &lt;b&gt; ", 100_000)
		doc := parse(t, "<html><body><p>"+line+"</p></body></html>")
		within(t, "Convert", func() {
			md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
			if err != nil || strings.Count(md, `\<b>`) != 100_000 {
				t.Errorf("got %d escaped signs of 100,000, %v", strings.Count(md, `\<b>`), err)
			}
		})
	})
	t.Run("a paragraph of 30,000 emphasised words and links is judged at a bounded cost", func(t *testing.T) {
		// Whether a short line is the whole text of its block is asked of
		// every emphasis in it; the block's text is read only as far as it
		// outgrows the line's.
		page := "<html><body><main><h1>Accounts</h1><p>" + strings.Repeat(`<a href="/login">Log in</a> <em>or</em> `, 30_000) + "</p></main></body></html>"
		doc := parse(t, page)
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || strings.Count(md, "[Log in](") != 30_000 {
				t.Errorf("got %d links of 30,000, %v", strings.Count(md, "[Log in]("), err)
			}
		})
	})
	t.Run("panels nested in panels are each judged at a bounded cost", func(t *testing.T) {
		doc := nestedPanels(2_000)
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || strings.Count(md, "A paragraph that a reader opens") != 2_000 {
				t.Errorf("the panels' text is not whole: %v %.200q", err, md)
			}
		})
	})
	t.Run("much text nested hundreds of levels deep is refused with the bound it passes", func(t *testing.T) {
		// 100,000 paragraphs, each 300 levels deep: every pass that reads
		// a subtree for each element around it would read them 300 times.
		doc := nestedPanels(100_000)
		for _, f := range []struct {
			name string
			run  func() error
		}{
			{"Article", func() error { _, err := Article(context.Background(), doc, pageURL(t), Options{}); return err }},
			{"Convert", func() error {
				_, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
				return err
			}},
		} {
			within(t, f.name, func() {
				var tooLarge *TooLargeError
				if err := f.run(); !errors.As(err, &tooLarge) || tooLarge.Unit != UnitNesting {
					t.Errorf("got %v, want the nesting bound", err)
				}
			})
		}
	})
	t.Run("a 50 MB page is refused with the bound it passes", func(t *testing.T) {
		para := strings.Repeat("lorem ipsum dolor sit amet, ", 20)
		article := element("article")
		for size := 0; size < 50<<20; size += len(para) {
			article.AppendChild(element("p", text(para)))
		}
		doc := document(article)
		within(t, "Article", func() {
			_, err := Article(context.Background(), doc, pageURL(t), Options{})
			var tooLarge *TooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitTextBytes {
				t.Errorf("got %v", err)
			}
		})
		within(t, "Convert", func() {
			_, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
			var tooLarge *TooLargeError
			if !errors.As(err, &tooLarge) || tooLarge.Unit != UnitMarkdownBytes {
				t.Errorf("got %v", err)
			}
		})
	})
	t.Run("a table of a million cells is refused with the bound it passes", func(t *testing.T) {
		table := element("table")
		for range 1000 {
			row := element("tr")
			for range 1000 {
				row.AppendChild(element("td", text("x")))
			}
			table.AppendChild(row)
		}
		doc := document(table)
		for name, run := range map[string]func() error{
			"Article": func() error { _, err := Article(context.Background(), doc, pageURL(t), Options{}); return err },
			"Convert": func() error {
				_, err := Convert(context.Background(), doc.Find("table"), pageURL(t), Options{})
				return err
			},
		} {
			within(t, name, func() {
				var tooLarge *TooLargeError
				if err := run(); !errors.As(err, &tooLarge) || tooLarge.Unit != UnitElements {
					t.Errorf("%s: got %v", name, err)
				}
			})
		}
	})
	t.Run("30,000 labels of author boxes side by side are each judged at a bounded cost", func(t *testing.T) {
		// A search for the first text of each box's ancestors from each
		// label would read the whole list once per label.
		var boxes []*html.Node
		for range 30_000 {
			boxes = append(boxes, element("div", element("span", text("Written by")), text("Mara Quill")))
		}
		doc := document(element("article", append([]*html.Node{element("h1", text("Posts"))}, boxes...)...))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Errorf("got %v", err)
			}
		})
	})
	t.Run("30,000 posts with a signature each are judged at a bounded cost", func(t *testing.T) {
		var posts []*html.Node
		for i := range 30_000 {
			sig := element("div", text(fmt.Sprintf("Signature %d", i)))
			sig.Attr = []html.Attribute{{Key: "class", Val: "signature"}}
			posts = append(posts, element("div", element("p", text("A post of a few words under its author.")), sig))
		}
		doc := document(element("article", append([]*html.Node{element("h1", text("Posts"))}, posts...)...))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Errorf("got %v", err)
			}
		})
	})
	t.Run("30,000 bare credits' labels before 30,000 empty boxes are each judged at a bounded cost", func(t *testing.T) {
		// Each label, weighed from the last, would look for its name
		// through every empty box after it.
		kids := []*html.Node{element("h1", text("Credits")), element("p", text(strings.Repeat("A page of words. ", 40)))}
		for range 30_000 {
			kids = append(kids, element("div", text("Edited by")))
		}
		for range 30_000 {
			kids = append(kids, element("div", element("span")))
		}
		doc := document(element("article", kids...))
		within(t, "Article", func() {
			if _, err := Article(context.Background(), doc, pageURL(t), Options{}); err != nil {
				t.Errorf("got %v", err)
			}
		})
	})
	t.Run("a record of 4 MB written as JSON is read once", func(t *testing.T) {
		record := `{"items":[` + strings.Repeat(`{"id":"B0CXGXT6W8","price":15.49},`, 120_000) + `{}]}`
		doc := document(element("main", element("h1", text("Kettle")), element("p", text(strings.Repeat("The kettle boils fast. ", 30))),
			element("div", text(record))))
		within(t, "Article", func() {
			md, err := Article(context.Background(), doc, pageURL(t), Options{})
			if err != nil || strings.Contains(md, "B0CXGXT6W8") {
				t.Errorf("got %d bytes, %v", len(md), err)
			}
		})
	})
	t.Run("a box of code holding 100,000 nested boxes gives its text as code", func(t *testing.T) {
		// Built by hand, as the parser would not nest so deep; the box's
		// text is read without recursion.
		inner := element("div", text("x := 1"))
		for range 100_000 {
			inner = element("div", inner)
		}
		box := element("div", inner)
		box.Attr = []html.Attribute{{Key: "style", Val: "font-family: monospace; white-space: pre"}}
		doc := document(box)
		within(t, "Convert", func() {
			md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
			if err != nil || md != "```\nx := 1\n```\n" {
				t.Errorf("got %q, %v", md, err)
			}
		})
	})
	t.Run("a large table within the bounds is converted whole", func(t *testing.T) {
		table := element("table", element("tr", element("th", text("a")), element("th", text("b"))))
		for range 20_000 {
			table.AppendChild(element("tr", element("td", text("1")), element("td", text("2"))))
		}
		doc := document(table)
		within(t, "Convert", func() {
			md, err := Convert(context.Background(), doc.Find("table"), pageURL(t), Options{})
			if err != nil || strings.Count(md, "| 1 | 2 |\n") != 20_000 {
				t.Errorf("got %d bytes, %v", len(md), err)
			}
		})
	})
}

// countdown is a context that ends after its Err has been asked n times,
// so that a test can end it at each step of the work in turn.
type countdown struct {
	context.Context
	left atomic.Int64
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestTheContextIsHonouredAtEveryStep(t *testing.T) {
	testtool.WithoutRace(t) // converts 20,000 paragraphs a few times over
	var paras []*html.Node
	for i := range 20_000 {
		paras = append(paras, element("p", text("paragraph "), element("a", text("link")), text(strings.Repeat(" words", i%7))))
	}
	doc := document(element("article", paras...))
	convert := func(after int64) (string, error, int64) {
		ctx := &countdown{Context: context.Background()}
		ctx.left.Store(after)
		var md string
		var err error
		within(t, "Convert", func() { md, err = Convert(ctx, doc.Find("article"), pageURL(t), Options{}) })
		return md, err, after - ctx.left.Load()
	}
	// A first run counts how often the work looks at its context.
	md, err, looks := convert(1 << 40)
	if err != nil || strings.Count(md, "paragraph") != 20_000 {
		t.Fatalf("the conversion failed: %d paragraphs, %v", strings.Count(md, "paragraph"), err)
	}
	if looks < 10 {
		t.Fatalf("the conversion looked at its context %d times; it should look all along the work", looks)
	}
	for _, after := range []int64{0, looks / 4, looks / 2, 3 * looks / 4, looks - 1} {
		md, err, _ := convert(after)
		if !errors.Is(err, context.Canceled) || md != "" {
			t.Errorf("with the context ended after %d of %d looks, got %d bytes and %v, want nothing and the context's error",
				after, looks, len(md), err)
		}
	}
	t.Run("Article too", func(t *testing.T) {
		ctx := &countdown{Context: context.Background()}
		ctx.left.Store(3)
		if md, err := Article(ctx, doc, pageURL(t), Options{}); !errors.Is(err, context.Canceled) || md != "" {
			t.Errorf("got %d bytes and %v", len(md), err)
		}
	})
}

// choiceOfABlockIsBounded weighs the chosen block against a region of
// 60,000 cards, none of which it holds: each card is looked up in a block
// of 1.3 MB whose every sentence opens like a card's title. A search of
// the block's text for each card takes some fifteen seconds here, and
// grows with the product of the two.
func choiceOfABlockIsBounded(t *testing.T) {
	var cards []*html.Node
	for i := range 60_000 {
		a := element("a", text(fmt.Sprintf("Walnut side table model %d", i)))
		a.Attr = []html.Attribute{{Key: "href", Val: fmt.Sprintf("/p/%d", i)}}
		c := element("div", a, element("span", text(fmt.Sprintf("$%d.00", 90+i%50))))
		c.Attr = []html.Attribute{{Key: "class", Val: "card"}}
		cards = append(cards, c)
	}
	region := element("main", element("div", cards...))
	art := element("div", element("p", text(strings.Repeat("Walnut side table model x, and its oak twin. ", 30_000))))
	within(t, "chooseRegion", func() {
		if !chooseRegion(newChosenText(art), region, kindUnknown, false) {
			t.Error("a block that holds none of 60,000 cards was taken over the region")
		}
	})
}
