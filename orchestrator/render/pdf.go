package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// PrintPDF prints the page as o asks. The PDF stays in the browser and is
// read from the returned stream, which the caller closes.
func (p *Page) PrintPDF(ctx context.Context, o *query.PDFOptions) (*Stream, error) {
	if p.lease == nil {
		return nil, errors.New("a PDF was asked of a page read without a browser")
	}
	start := time.Now()
	landscape, bg := o.Landscape, o.PrintBackground
	top, right, bottom, left := o.Margin.Top, o.Margin.Right, o.Margin.Bottom, o.Margin.Left
	res, err := cdp.Execute(ctx, p.lease.Page(), page.PrintToPDF, page.PrintToPDFParams{
		Landscape: &landscape, PrintBackground: &bg, Scale: o.Scale,
		PaperWidth: o.Width, PaperHeight: o.Height,
		MarginTop: &top, MarginRight: &right, MarginBottom: &bottom, MarginLeft: &left,
		PageRanges:   o.PageRanges,
		TransferMode: page.PrintToPDFTransferModeReturnAsStream,
	})
	if err != nil {
		var pe *cdp.Error
		if errors.As(err, &pe) && strings.Contains(strings.ToLower(pe.Message), "range") {
			return nil, &Error{Kind: BadPageRange, Param: "pdf.pageRanges", Value: o.PageRanges, Err: err,
				Message: fmt.Sprintf("`pdf.pageRanges` %q is outside the document; ask for pages the document has.", o.PageRanges)}
		}
		return nil, browserError(ctx, "printing the PDF", err)
	}
	p.m.Phase.WithLabelValues("pdf").Observe(time.Since(start).Seconds())
	return newStream(ctx, p.lease.Page(), res.Stream), nil
}
