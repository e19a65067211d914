package markdown

import (
	"context"
	"strings"
	"testing"
)

func TestAStreamedPageIsReadWithItsSegmentsWhereItsCallsMoveThem(t *testing.T) {
	part := func(n int) string {
		words := []string{"", "first", "second", "third", "fourth"}[n]
		return `<h2>Part ` + words + `</h2><p>The ` + words + ` part of the keeper's logbook tells of the storm, the lamp and the boats that came home by its light that night.</p>` +
			`<p>Its ` + words + ` page ends where the tide turned and the harbour master rang the bell twice for the last boat in.</p>`
	}
	fallback := `<div class="skeleton">Loading paragraph…</div>`
	boundary := func(id string) string {
		return `<!--$?--><template id="` + id + `"></template>` + fallback + `<!--/$-->`
	}
	page := func(main, tail string) string {
		return `<!doctype html><html><head><title>Logbook</title></head><body><header><a href="/">Coast</a></header>` +
			`<main><article><h1>The keeper's logbook</h1>` + main + `</article></main>` +
			`<footer><a href="/about">About the coast society</a></footer>` + tail + `</body></html>`
	}
	inOrder := []string{"The first part", "The second part", "The third part", "The fourth part"}
	for _, tc := range []struct {
		name, page     string
		want, unwanted []string
		order          []string
	}{
		{
			name: "parts streamed out of order go where their boundaries are, in place of the fallbacks",
			page: page(part(1)+boundary("B:0")+boundary("B:1")+boundary("B:2"),
				`<div hidden id="S:2">`+part(4)+`</div><script>$RC("B:2","S:2")</script>`+
					`<div hidden id="S:0">`+part(2)+`</div><script>$RC("B:0","S:0")</script>`+
					`<div hidden id="S:1">`+part(3)+`</div><script>$RC = function(b, c) {}; $RC("B:1","S:1")</script>`),
			want:     inOrder,
			unwanted: []string{"Loading paragraph"},
			order:    inOrder,
		},
		{
			name: "a part moved into a placeholder inside another part goes there",
			page: page(part(1)+boundary("B:0")+part(4),
				`<div hidden id="S:1"><div>`+part(3)+`</div></div>`+
					`<div hidden id="S:0">`+part(2)+`<template id="P:1"></template></div>`+
					`<script>$RS("S:1","P:1")</script><script>$RC("B:0","S:0")</script>`),
			want:     inOrder,
			unwanted: []string{"Loading paragraph"},
			order:    inOrder,
		},
		{
			name: "a page served without inline scripts moves its parts with templates",
			page: page(part(1)+boundary("B:0")+`<template id="P:4"></template>`,
				`<div hidden id="S:4">`+part(3)+part(4)+`</div><div hidden id="S:0">`+part(2)+`</div>`+
					`<template data-rci="" data-bid="B:0" data-sid="S:0"></template>`+
					`<template data-rsi="" data-sid="S:4" data-pid="P:4"></template>`),
			want:     inOrder,
			unwanted: []string{"Loading paragraph"},
			order:    inOrder,
		},
		{
			name: "a fallback that holds boundaries of its own goes whole",
			page: page(part(1)+`<!--$?--><template id="B:0"></template><p>Loading the part…</p><!--$--><p>Fallback’s own boundary line.</p><!--/$-->`+
				`<p>Still loading the part…</p><!--/$-->`+part(3)+part(4),
				`<div hidden id="S:0">`+part(2)+`</div><script>$RC("B:0","S:0")</script>`),
			want:     inOrder,
			unwanted: []string{"Loading the part", "own boundary line", "Still loading"},
			order:    inOrder,
		},
		{
			name:  "a part whose boundary is not on the page stays where it is, as content",
			page:  page(part(1)+part(2)+part(3)+`<div hidden id="S:0">`+part(4)+`</div>`, `<script>$RC("B:9","S:0")</script>`),
			want:  inOrder,
			order: inOrder,
		},
		{
			name: "parts that hold each other's placeholders, and one its own, leave the rest of the page as it is",
			page: page(part(1)+part(2)+part(3)+part(4),
				`<div hidden id="S:0"><p>Loop zero.</p><template id="P:1"></template></div><div hidden id="S:1"><p>Loop one.</p><template id="P:0"></template></div>`+
					`<div hidden id="S:2"><p>Loop two.</p><template id="P:2"></template></div>`+
					`<script>$RS("S:0","P:0");$RS("S:1","P:1");$RS("S:2","P:2")</script>`),
			want:     inOrder,
			unwanted: []string{"Loop"},
			order:    inOrder,
		},
		{
			name: "a part goes to the first element of its boundary's id, as a script finds it",
			page: page(part(1)+boundary("B:0")+part(3)+part(4),
				`<div class="late"><template id="B:0"></template></div><div hidden id="S:0">`+part(2)+`</div><script>$RC("B:0","S:0")</script>`),
			want:     inOrder,
			unwanted: []string{"Loading paragraph"},
			order:    inOrder,
		},
		{
			name: "a second call for a placed part changes nothing",
			page: page(part(1)+boundary("B:0")+part(3)+`<template id="P:5"></template>`,
				`<div hidden id="S:0">`+part(2)+`</div><div hidden id="S:5">`+part(4)+`</div>`+
					`<script>$RC("B:0","S:0");$RS("S:5","P:5");$RS("S:0","P:5");$RC("B:0","S:5")</script>`),
			want:     inOrder,
			unwanted: []string{"Loading paragraph"},
			order:    inOrder,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
			last := -1
			for _, w := range tc.order {
				i := strings.Index(md, w)
				if i < last {
					t.Errorf("%q comes before what the page shows before it:\n%s", w, md)
				}
				if strings.Count(md, w) != 1 {
					t.Errorf("%q is in the answer %d times:\n%s", w, strings.Count(md, w), md)
				}
				last = i
			}
		})
	}
}

func TestAStreamedPageConvertedWholeHasEachPartOnceWhereItGoes(t *testing.T) {
	page := `<!doctype html><html><body><h1>Logbook</h1><!--$?--><template id="B:0"></template><p>Loading…</p><!--/$-->` +
		`<p>The last line of the logbook.</p><div hidden id="S:0"><p>The storm came in at night.</p><template id="P:1"></template></div>` +
		`<div hidden id="S:1"><p>The boats came home by the light.</p></div><script>$RS("S:1","P:1");$RC("B:0","S:0")</script></body></html>`
	doc := parse(t, page)
	md, err := Convert(context.Background(), doc.Find("body"), pageURL(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Logbook\n\nThe storm came in at night.\n\nThe boats came home by the light.\n\nThe last line of the logbook.\n"
	if md != want {
		t.Errorf("got\n%s\nwant\n%s", md, want)
	}
}
