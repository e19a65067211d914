package document

import (
	"context"
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
