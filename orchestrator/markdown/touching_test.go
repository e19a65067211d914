package markdown

import (
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

func TestInlineElementsLaidOutApartAreReadApart(t *testing.T) {
	checkConversions(t, []conversion{
		{"a product's brand over its name", `<p><a href="/p/1"><span class="brand">Merrell</span><span class="title">Moab 3 Mid Hiking Boots</span></a></p>`,
			"[Merrell Moab 3 Mid Hiking Boots](https://example.com/p/1)\n"},
		{"an author beside the date, each in a box of its own",
			`<p><span><span><span>Lawrence Ulrich</span></span></span><span class="timestamp"><time datetime="2026-03-07">Mar 7</time></span></p>`,
			"Lawrence Ulrich Mar 7\n"},
		{"a link's label over its subtitle", `<p><a href="/agents"><span>AI agents</span><span>Automate most interactions.</span></a></p>`,
			"[AI agents Automate most interactions.](https://example.com/agents)\n"},
		{"a number and the word after it", `<p><span>Updated 2026</span><span>Read the report</span></p>`,
			"Updated 2026 Read the report\n"},
		{"a name and the number after it", `<p><span class="tag">Simulation</span><span class="tag">3D</span></p>`, "Simulation 3D\n"},
		{"an old price struck through beside the new one",
			`<p><span><s class="price-item">$25.00 USD</s></span><span class="price-item--sale">$19.00 USD</span></p>`,
			"~~$25.00 USD~~ $19.00 USD\n"},
		{"two prices in boxes of their own", `<p><span>€12,50</span><span>€9,90</span></p>`, "€12,50 €9,90\n"},
		{"a number and its unit stay joined", `<p><span class="value">450</span><span class="unit">kcal</span></p>`, "450kcal\n"},
		{"a framework's comments between the two", `<p><span>Merrell</span><!--[--><!--]--><span>Moab 3</span></p>`,
			"Merrell Moab 3\n"},
		{"the text at the edge of a box that ends in an empty one", `<p><span><b>Ada Lovelace</b><i><u></u></i></span><time>Mar 7</time></p>`,
			"**Ada Lovelace** Mar 7\n"},
		{"a word's styled first letter stays joined", `<p><span class="accent">i</span><span>Phone cases</span></p>`, "iPhone cases\n"},
		{"a word's styled parts in lower case stay joined", `<p><span class="a">Un</span><span class="b">likely</span> friends</p>`, "Unlikely friends\n"},
		{"elements the page spaced itself get no second space", `<p><span>Merrell </span><span>Moab 3</span></p>`, "Merrell Moab 3\n"},
		{"a trademark sign in a superscript stays joined", `<p><span>Acme</span><sup>TM</sup><span> tools</span></p>`, "AcmeTM tools\n"},
		{"a box that ends in a line break is apart already", `<p><span>Ada Lovelace<br></span><span>Mar 7</span></p>`, "Ada Lovelace\\\nMar 7\n"},
		{"code is written as it is", `<pre><code><span class="k">func</span><span class="nf">Main</span></code></pre>`, "```\nfuncMain\n```\n"},
		{"text beside an element is not an element's seam", `<p>Merrell<span>Moab 3</span></p>`, "MerrellMoab 3\n"},
		{"two labels of controls are read apart whatever their case", `<div><label for="t1">pip</label><label for="t2">pipx</label></div>`, "pip pipx\n"},
		{"a label beside a span keeps the seam rule", `<p><label for="q">qty</label><span>max</span></p>`, "qtymax\n"},
	})
}

// TestTouchingInlinesSpaceTheTreeOnlyAtSeams checks the rewritten tree's
// text itself, where the converter would fold spaces together.
func TestTouchingInlinesSpaceTheTreeOnlyAtSeams(t *testing.T) {
	for _, tc := range []struct{ name, html, want string }{
		{"a seam gets one space", `<span>Merrell</span><span>Moab</span>`, "Merrell Moab"},
		{"comments between two elements do not hide their seam", `<span>Merrell</span><!--[--><!--]--><span>Moab</span>`, "Merrell Moab"},
		{"a space the page wrote before the seam is enough", `<span>Merrell </span><span>Moab</span>`, "Merrell Moab"},
		{"a space the page wrote after the seam is enough", `<span>Merrell</span><span> Moab</span>`, "Merrell Moab"},
		{"a line break at the seam is enough", `<span>Merrell<br></span><span>Moab</span>`, "MerrellMoab"},
		{"a blank text inside the box at the seam is enough", `<span><b>Merrell</b> </span><span>Moab</span>`, "Merrell Moab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := parse(t, "<p>"+tc.html+"</p>").Find("p").Get(0)
			spaceTouchingInlines(body)
			if got := textOf(body); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTouchingInlinesLeaveCodeGivenAsTheRoot runs the rule on a code
// element itself, as it would be when the content chosen is one.
func TestTouchingInlinesLeaveCodeGivenAsTheRoot(t *testing.T) {
	code := parse(t, `<p><code><span class="k">func</span><span class="nf">Main</span></code></p>`).Find("code").Get(0)
	spaceTouchingInlines(code)
	if got := textOf(code); got != "funcMain" {
		t.Errorf("text %q, want the code as written", got)
	}
}

// TestTouchingInlinesCostStaysBounded runs the rule over a nest of boxes
// 20,000 deep, built as a tree (a parser stops nesting sooner), in which
// each box holds the deeper one and an empty box after it: without its
// bound, the search for the edge text of each level would walk every level
// under it.
func TestTouchingInlinesCostStaysBounded(t *testing.T) {
	const depth = 20000
	root := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	at := root
	for range depth {
		box := &html.Node{Type: html.ElementNode, Data: "span", DataAtom: atom.Span}
		at.AppendChild(box)
		box.AppendChild(&html.Node{Type: html.ElementNode, Data: "span", DataAtom: atom.Span})
		at = box
	}
	at.AppendChild(&html.Node{Type: html.TextNode, Data: "Deep"})
	start := time.Now()
	spaceTouchingInlines(root)
	if d := time.Since(start); d > time.Second {
		t.Errorf("the rule took %v over a nest %d deep", d, depth)
	}
}
