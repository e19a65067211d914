package markdown

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A list of records, the laureates of a prize by year or a timetable, is
// a table of data: rows of cells, each row a record. The extractor may
// leave a table of links out of the block it chooses, as it would a menu,
// and keep the paragraphs around it; the table is the content.

const (
	// minDataRows is the fewest rows of at least two cells a table of
	// data has.
	minDataRows = 4
	// minMissedTableFactor is how much text, in times the chosen block's
	// prose, the region's tables of data that the block leaves out hold
	// together for the region to be taken instead.
	minMissedTableFactor = 0.5
	// maxAskedRows is about the most rows of a table looked for in the
	// chosen block.
	maxAskedRows = 50
)

// missesTables reports whether the chosen block leaves out tables of data
// of region that hold more than minMissedTableFactor times its prose.
func missesTables(chosen *chosenText, region *html.Node) bool {
	limit := minMissedTableFactor * float64(proseLen(chosen.art))
	missed := 0
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom != atom.Table {
			return true
		}
		rows := dataRows(n)
		if len(rows) < minDataRows {
			return false
		}
		// Rows spread over the table stand for it: a table of thousands
		// of rows is judged at the cost of a few dozen.
		held, asked := 0, 0
		for i := 0; i < len(rows); i += max(1, len(rows)/maxAskedRows) {
			asked++
			if chosen.holds(rows[i]) {
				held++
			}
		}
		if 2*held < asked {
			missed += collapsedText(n)
		}
		return false
	})
	return float64(missed) > limit
}

// dataRows returns the rows of at least two cells with text of the table
// t when it is a table of data (see dataTable); none when it lays the
// page out.
func dataRows(t *html.Node) []*html.Node {
	if !dataTable(t) {
		return nil
	}
	var rows []*html.Node
	walk(t, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if n.DataAtom != atom.Tr {
			return true
		}
		cells := 0
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if (k.DataAtom == atom.Td || k.DataAtom == atom.Th) && strings.TrimSpace(textOf(k)) != "" {
				cells++
			}
		}
		if cells >= 2 {
			rows = append(rows, n)
		}
		return false
	})
	return rows
}
