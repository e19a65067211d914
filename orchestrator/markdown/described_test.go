package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// kettleDescription is the kettle's description, as the shop writes it.
const kettleDescription = `A kettle of brushed steel that boils a litre and a half on gas, electric and induction hobs, with a whistle that sounds when the water boils and a handle that stays cool.`

// describedPage is the kettle's page with its description block replaced
// by block, and declare in its head.
func describedPage(declare, block string) string {
	page := productPage(declare, "", 5)
	start := strings.Index(page, `<div class="description">`)
	end := strings.Index(page, `<h2>Specifications</h2>`)
	return page[:start] + block + page[end:]
}

// declaredLD is a JSON-LD Product declaring description, a JSON string.
func declaredLD(description string) string {
	return `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Stovetop Kettle","description":` + description + `}</script>`
}

const kettleLD = `"` + kettleDescription + `"`

// A page about one product that declares its description but shows it
// only in a sheet over the page, or only once its scripts have run, has
// it in its Markdown, once; a page that shows it, or declares none worth
// the name, is left as it is.
func TestTheDeclaredDescriptionOfAProductIsInItsContent(t *testing.T) {
	sheet := `<div class="accordion"><button><h5>Description</h5></button>
<div class="sheet" role="dialog" aria-modal="false"><aside><div class="sheet-header"><h5>Description</h5><button aria-label="Close"></button></div>
<div class="sheet-content"><p><strong>BOILS ON ANY HOB</strong></p><p>` + kettleDescription + `</p>
<ul><li>Brushed steel</li><li>Cool-touch handle</li></ul></div></aside></div></div>`
	shown := `<div class="description"><p>` + kettleDescription + `</p></div>`
	for _, tc := range []struct {
		name, page string
		want       []string
		unwanted   []string
		times      int // how often the description's last words are in the Markdown
	}{
		{"a description in a sheet over the page comes from the sheet, with its markup",
			describedPage(declaredLD(kettleLD), sheet), []string{"**BOILS ON ANY HOB**", "- Cool-touch handle", "| Capacity | 1.7 litres |"}, nil, 1},
		{"a description the static page holds in its data alone comes from the data, a paragraph a line",
			describedPage(declaredLD(`"BOILS ON ANY HOB\n`+kettleDescription+`"`), ""), []string{"BOILS ON ANY HOB\n\nA kettle of brushed steel", "| Capacity | 1.7 litres |"}, nil, 1},
		{"a description declared as markup comes as its text",
			describedPage(declaredLD(`"<p>BOILS ON ANY HOB</p><p>`+strings.ReplaceAll(kettleDescription, "gas,", "gas &amp;")+`</p>"`), ""),
			[]string{"BOILS ON ANY HOB\n\nA kettle of brushed steel", "on gas & electric"}, []string{"<p>", "&amp;"}, 1},
		{"a description the content holds already is not added again",
			describedPage(declaredLD(kettleLD), shown), []string{"A kettle of brushed steel"}, nil, 1},
		{"a description escaped for an address is not prose",
			describedPage(declaredLD(`"`+strings.ReplaceAll(kettleDescription, " ", "%20")+`"`), ""), nil, []string{"brushed%20steel"}, 0},
		{"a description of a few words is a name",
			describedPage(declaredLD(`"Stovetop kettle of brushed steel, 1.7 litres, for every hob"`), ""), nil, []string{"for every hob"}, 0},
		{"a page declaring several products is a list, whose descriptions are its items'",
			describedPage(declaredLD(kettleLD)+declaredLD(kettleLD), ""), nil, []string{"brushed steel"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, tc.page)
			checkHolds(t, md, tc.want, tc.unwanted)
			if n := strings.Count(md, "handle that stays cool"); n != tc.times {
				t.Errorf("the description is in the Markdown %d times; want %d:\n%s", n, tc.times, md)
			}
		})
	}
}

// The search for the element that holds a description reads a bounded
// amount of text: on a page of 300 boxes each 30 deep, every level of
// them as long as the description and none of them holding it, it stops
// after maxDescribedSearch bytes and finds nothing, so that the declared
// text is used.
func TestTheSearchForTheDescriptionIsBounded(t *testing.T) {
	words := func(prefix string) string {
		var sb strings.Builder
		for i := range 1_500 {
			fmt.Fprintf(&sb, "%s%d ", prefix, i)
		}
		return sb.String()
	}
	desc := strings.TrimSpace(words("kettle"))
	other := words("other")
	var boxes []*html.Node
	for range 300 {
		box := element("p", text(other))
		for range 30 {
			box = element("div", box)
		}
		boxes = append(boxes, box)
	}
	doc := document(element("main", boxes...))
	found, read := findDescribed(doc.Nodes[0], desc, descriptionWords(desc))
	if found != nil {
		t.Errorf("an element of other words stands for the description: %.80q", textOf(found))
	}
	// The boxes' levels hold 300 × 31 × 13 kB, 120 MB, to read.
	if limit := min(maxDescribedSearch+2*len(other), 16<<20); read > limit {
		t.Errorf("the search read %d bytes of text; want at most %d", read, limit)
	}
}
