package document

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/orchestrator/document/documenttest"
)

func TestAPDFSetInTwoColumnsOfProseIsReadColumnByColumnNotAsATable(t *testing.T) {
	needPDFReader(t)
	left := []string{"The river rose through the night and", "by morning the lower fields lay under", "a sheet of brown water that reached", "the hedges.", "Nobody in the village could remember", "a flood like it in forty years."}
	right := []string{"Boats were brought up from the coast", "to carry families from the farms to", "the church on the hill, where dry", "beds waited.", "The water fell again within a week", "and the work of mending began."}
	var page []documenttest.PDFText
	for i := range left {
		y := float64(700 - 14*i)
		page = append(page, documenttest.PDFText{X: 72, Y: y, Size: 11, Text: left[i]}, documenttest.PDFText{X: 320, Y: y, Size: 11, Text: right[i]})
	}
	d, err := Read(context.Background(), PDF, documenttest.PDF([][]documenttest.PDFText{page}, false), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.HTML, "<table>") {
		t.Fatalf("two columns of prose were read as a table:\n%s", d.HTML)
	}
	l := strings.Index(d.HTML, "a sheet of brown water that reached the hedges.")
	r := strings.Index(d.HTML, "Boats were brought up from the coast")
	if l < 0 || r < 0 || l > r {
		t.Errorf("the left column does not come whole before the right:\n%s", d.HTML)
	}
}

func TestAPDFTableKeepsItsRowsWhenCellsSitCloseAndEndsBeforeAHeading(t *testing.T) {
	needPDFReader(t)
	// Cells of 11 pt text in columns as tight as a browser's default
	// table: "Birch" sits closer to "7" than a wide gap, and comes first;
	// the rows below show the three columns; a heading follows closely in
	// a larger size.
	page := []documenttest.PDFText{
		{X: 72, Y: 700, Size: 11, Text: "Birch"}, {X: 102, Y: 700, Size: 11, Text: "7"}, {X: 140, Y: 700, Size: 11, Text: "pale"},
		{X: 72, Y: 686, Size: 11, Text: "Oak"}, {X: 102, Y: 686, Size: 11, Text: "12"}, {X: 140, Y: 686, Size: 11, Text: "tall"},
		{X: 72, Y: 672, Size: 11, Text: "Ash"}, {X: 102, Y: 672, Size: 11, Text: "9"}, {X: 140, Y: 672, Size: 11, Text: "grey"},
		{X: 72, Y: 650, Size: 16, Text: "Section"}, {X: 140, Y: 650, Size: 16, Text: "Two"},
		{X: 72, Y: 630, Size: 11, Text: "After the table comes prose that runs on for a while."},
	}
	d, err := Read(context.Background(), PDF, documenttest.PDF([][]documenttest.PDFText{page}, false), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th>Birch</th><th>7</th><th>pale</th>", "<td>Oak</td><td>12</td><td>tall</td>", "<td>Ash</td><td>9</td><td>grey</td>", "<h1>Section Two</h1>"} {
		if !strings.Contains(d.HTML, want) {
			t.Errorf("the HTML lacks %q:\n%s", want, d.HTML)
		}
	}
}

func TestAPDFsRunningHeadersAndFootersAreLeftOut(t *testing.T) {
	needPDFReader(t)
	var pages [][]documenttest.PDFText
	for i := range 4 {
		pages = append(pages, []documenttest.PDFText{
			{X: 72, Y: 760, Size: 9, Text: "Harbour Board - Annual Report"},
			{X: 72, Y: 650, Size: 11, Text: fmt.Sprintf("Chapter %d tells of the year's work on the quay.", i+1)},
			{X: 72, Y: 40, Size: 9, Text: fmt.Sprintf("Page %d of 4", i+1)},
		})
	}
	d, err := Read(context.Background(), PDF, documenttest.PDF(pages, false), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"Harbour Board", "Page 1 of 4", "Page 4 of 4"} {
		if strings.Contains(d.HTML, gone) {
			t.Errorf("the HTML keeps the running line %q:\n%s", gone, d.HTML)
		}
	}
	if !strings.Contains(d.HTML, "Chapter 4 tells of the year") {
		t.Errorf("the content went with the running lines:\n%s", d.HTML)
	}
}
