package markdown

import (
	"fmt"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"strings"
	"testing"
)

// recordsPage is a list of records: an introduction of three paragraphs,
// then a table of rows years long, each year's winners in four fields, a
// link each, as an encyclopedia's list pages have. The table's class
// names a header, as a table whose header row stays in view does, which
// the extractor's rule for page headers reads as one.
func recordsPage(rows int) string {
	var sb strings.Builder
	sb.WriteString(`<!doctype html><html><head><title>List of chess prize winners - Example Encyclopedia</title></head><body>` + pageHeader +
		`<main><h1>List of chess prize winners</h1>
<p>The chess prizes have been awarded every year since 1901 by the Example Foundation for the best games of the year in four fields, openings, middlegames, endgames and problems, chosen by a jury of former winners.</p>
<p>Each winner receives a medal, a diploma and a sum of money that has varied over the years; a prize may be shared, or not awarded at all when the jury finds no game worthy of it.</p>
<p>The prizes are presented at a ceremony in the spring, when the winners of the year play a game against each other in front of the public, and the best of those games is printed in the foundation's yearbook with notes by the jury.</p>
<table class="wikitable sortable sticky-header"><tr><th>Year</th><th><a href="/wiki/Openings">Openings</a></th><th><a href="/wiki/Middlegames">Middlegames</a></th><th><a href="/wiki/Endgames">Endgames</a></th><th><a href="/wiki/Problems">Problems</a></th></tr>`)
	for i := range rows {
		fmt.Fprintf(&sb, `<tr><th>%d</th>`, 1901+i)
		for f := range 4 {
			fmt.Fprintf(&sb, `<td><span class="vcard"><span class="fn"><a href="/wiki/Player_%d_%d">Player %d of field %d</a></span></span></td>`, i, f, i, f)
		}
		sb.WriteString(`</tr>`)
	}
	sb.WriteString(`</table></main>` + pageFooter + `</body></html>`)
	return sb.String()
}

// A table of records the extractor leaves out of the block it chooses is
// the content the page is for, with the paragraphs before it.
func TestATableOfRecordsIsInTheContent(t *testing.T) {
	md := article(t, recordsPage(60))
	checkHolds(t, md, []string{"every year since 1901", "| 1901 | [Player 0 of field 0]", "| 1960 | [Player 59 of field 0]"}, nil)
}

func TestDataRowsAreRecordsOfTables(t *testing.T) {
	for _, tc := range []struct {
		name, table string
		want        int
	}{
		{"rows of two cells and more", `<table><tr><th>Year</th><th>Winner</th></tr><tr><td>1901</td><td>A</td></tr><tr><td>1902</td><td>B</td></tr></table>`, 3},
		{"a row of one cell is a caption", `<table><tr><td colspan="2">Winners</td></tr><tr><th>Year</th><th>Winner</th></tr><tr><td>1901</td><td>A</td></tr></table>`, 2},
		{"a table too small to be one of data is none", `<table><tr><td>1901</td><td>A</td></tr><tr><td>1902</td><td>B</td></tr></table>`, 0},
		{"a table whose role is none presents nothing", `<table role="none"><tr><th>Year</th><th>Winner</th></tr><tr><td>1901</td><td>A</td></tr></table>`, 0},
		{"a cell without text does not count", `<table><tr><td>1901</td><td> </td></tr></table>`, 0},
		{"a table laying out a page holds a table", `<table><tr><td>a</td><td><table><tr><td>1</td><td>2</td></tr></table></td></tr></table>`, 0},
		{"a table that says it presents nothing", `<table role="presentation"><tr><td>1901</td><td>A</td></tr></table>`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><body>`+tc.table+`</body></html>`)
			table := findFirst(doc.Nodes[0], func(n *html.Node) bool { return n.DataAtom == atom.Table })
			if got := len(dataRows(table)); got != tc.want {
				t.Errorf("%d rows of data; want %d", got, tc.want)
			}
		})
	}
}

// The region is taken for the tables the chosen block leaves out only
// when they hold more than half as much text as the block's prose.
func TestMissedTablesOutweighTheBlock(t *testing.T) {
	prose := `<div id="block"><p>` + strings.Repeat("The jury met in the spring and chose the games of the year. ", 10) + `</p></div>`
	table := func(rows int) string {
		var sb strings.Builder
		sb.WriteString(`<table>`)
		for i := range rows {
			fmt.Fprintf(&sb, `<tr><td>%d</td><td>Player %d of the year</td></tr>`, 1901+i, i)
		}
		sb.WriteString(`</table>`)
		return sb.String()
	}
	for _, tc := range []struct {
		name, region string
		want         bool
	}{
		{"a long table left out", prose + table(40), true},
		{"a short table left out", prose + table(5), false},
		{"a table of three rows is not one of records", prose + table(3), false},
		{"a long table the block holds", `<div id="block">` + prose + table(40) + `</div>`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, `<html><body><main>`+tc.region+`</main></body></html>`)
			region := findFirst(doc.Nodes[0], func(n *html.Node) bool { return n.DataAtom == atom.Main })
			block := findFirst(region, func(n *html.Node) bool { return attr(n, "id") == "block" })
			if got := missesTables(newChosenText(block), region); got != tc.want {
				t.Errorf("missesTables = %t; want %t", got, tc.want)
			}
		})
	}
}

// A table of thousands of rows is judged by a few dozen of them.
func TestAMissedTableIsJudgedByASampleOfItsRows(t *testing.T) {
	var sb strings.Builder
	sb.WriteString(`<html><body><main><div id="block"><p>` + strings.Repeat("The jury met in the spring and chose the games of the year. ", 10) + `</p></div><table>`)
	for i := range 20_000 {
		fmt.Fprintf(&sb, `<tr><td>%d</td><td>Player %d</td></tr>`, i, i)
	}
	sb.WriteString(`</table></main></body></html>`)
	doc := parse(t, sb.String())
	region := findFirst(doc.Nodes[0], func(n *html.Node) bool { return n.DataAtom == atom.Main })
	chosen := newChosenText(findFirst(region, func(n *html.Node) bool { return attr(n, "id") == "block" }))
	if !missesTables(chosen, region) {
		t.Error("the table of 20,000 rows is not missed")
	}
	if chosen.lookups > 2*maxAskedRows {
		t.Errorf("%d rows were looked for in the block; want at most %d", chosen.lookups, 2*maxAskedRows)
	}
}
