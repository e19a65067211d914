package query

import (
	"math"
	"strconv"
	"strings"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// PDFOptions are the pdf.* parameters, resolved to inches.
type PDFOptions struct {
	Format          string  // canonical name such as "A4" or "Letter"; "" when pdf.width or pdf.height is given
	Width, Height   float64 // paper size in inches, as the format or pdf.width/height give it (before landscape)
	Margin          Margins // inches
	Scale           float64 // 0.1 to 2
	Landscape       bool
	PageRanges      string // normalised, such as "1-5,8,11-13"; "" prints every page
	PrintBackground bool
}

// Margins are page margins in inches.
type Margins struct{ Top, Right, Bottom, Left float64 }

// paperSizes are the formats Chromium and puppeteer know, in inches,
// keyed by lower-case name.
var paperSizes = map[string]struct {
	name          string
	width, height float64
}{
	"letter":  {"Letter", 8.5, 11},
	"legal":   {"Legal", 8.5, 14},
	"tabloid": {"Tabloid", 11, 17},
	"ledger":  {"Ledger", 17, 11},
	"a0":      {"A0", 33.1102, 46.811},
	"a1":      {"A1", 23.3858, 33.1102},
	"a2":      {"A2", 16.5354, 23.3858},
	"a3":      {"A3", 11.6929, 16.5354},
	"a4":      {"A4", 8.2677, 11.6929},
	"a5":      {"A5", 5.8268, 8.2677},
	"a6":      {"A6", 4.1339, 5.8268},
}

const paperNames = "Letter, Legal, Tabloid, Ledger, A0, A1, A2, A3, A4, A5 or A6"

// lengthUnits are the units of pdf lengths, in inches; a bare number is px.
var lengthUnits = map[string]float64{"px": 1.0 / 96, "in": 1, "cm": 1 / 2.54, "mm": 1 / 25.4}

// pdfOptionNames maps every accepted spelling of a pdf option to its
// camelCase name.
var pdfOptionNames = map[string]string{
	"format": "format", "margin": "margin",
	"margin.top": "margin.top", "margin.right": "margin.right",
	"margin.bottom": "margin.bottom", "margin.left": "margin.left",
	"scale": "scale", "landscape": "landscape",
	"pageRanges": "pageRanges", "page_ranges": "pageRanges",
	"width": "width", "height": "height",
	"printBackground": "printBackground", "print_background": "printBackground",
}

const pdfOptionList = "`pdf.format`, `pdf.margin` (and `pdf.margin.top`, `.right`, `.bottom`, `.left`), `pdf.scale`, " +
	"`pdf.landscape`, `pdf.pageRanges`, `pdf.width`, `pdf.height` and `pdf.printBackground`"

func parsePDF(q *query) (*PDFOptions, error) {
	var options []*param
	for _, p := range q.order {
		if strings.HasPrefix(p.name, "pdf.") {
			options = append(options, p)
		}
	}
	on := len(options) > 0
	if p, ok := q.get("pdf"); ok {
		v, ok := parseBool(p.value)
		if !ok {
			return nil, boolError(p)
		}
		if !v && len(options) > 0 {
			return nil, apierr.Query(p.given, p.value,
				"`%s=false` turns the PDF off, but `%s` sets a PDF option; remove `%s=false` to get a PDF, or drop the `pdf.` options.",
				p.given, options[0].given, p.given)
		}
		on = on || v
	}
	if !on {
		return nil, nil
	}

	o := &PDFOptions{
		Format:          "A4",
		Width:           paperSizes["a4"].width,
		Height:          paperSizes["a4"].height,
		Margin:          Margins{defaultPDFMargin, defaultPDFMargin, defaultPDFMargin, defaultPDFMargin},
		Scale:           defaultPDFScale,
		PrintBackground: true,
	}
	if p, ok := q.get("pdf.format"); ok {
		size, ok := paperSizes[strings.ToLower(strings.TrimSpace(p.value))]
		if !ok {
			return nil, apierr.Query(p.given, p.value, "`%s` must be one of %s (in any case), got %s.", p.given, paperNames, apierr.Show(p.value))
		}
		o.Format, o.Width, o.Height = size.name, size.width, size.height
	}
	for _, dim := range []struct {
		name string
		dst  *float64
	}{{"pdf.width", &o.Width}, {"pdf.height", &o.Height}} {
		p, ok := q.get(dim.name)
		if !ok {
			continue
		}
		v, ok := parseLength(p.value)
		if !ok || v < minPaperInches || v > maxPaperInches {
			return nil, apierr.Query(p.given, p.value,
				"`%s` must be a length from 0.1in to 200in, such as `8.5in`, `210mm`, `21cm` or `816px` (a bare number is pixels), got %s.",
				p.given, apierr.Show(p.value))
		}
		*dim.dst = v
		o.Format = ""
	}

	margin := func(p *param) (float64, error) {
		v, ok := parseLength(p.value)
		if !ok {
			return 0, apierr.Query(p.given, p.value,
				"`%s` must be a length such as `1cm`, `10mm`, `0.5in` or `40px` (a bare number is pixels), got %s.",
				p.given, apierr.Show(p.value))
		}
		if v < 0 {
			return 0, apierr.Query(p.given, p.value, "`%s` must not be negative, got %s.", p.given, apierr.Show(p.value))
		}
		return v, nil
	}
	if p, ok := q.get("pdf.margin"); ok {
		v, err := margin(p)
		if err != nil {
			return nil, err
		}
		o.Margin = Margins{v, v, v, v}
	}
	for _, side := range []struct {
		name string
		dst  *float64
	}{{"top", &o.Margin.Top}, {"right", &o.Margin.Right}, {"bottom", &o.Margin.Bottom}, {"left", &o.Margin.Left}} {
		if p, ok := q.get("pdf.margin." + side.name); ok {
			v, err := margin(p)
			if err != nil {
				return nil, err
			}
			*side.dst = v
		}
	}

	if p, ok := q.get("pdf.scale"); ok {
		v, ok := parseDecimal(strings.TrimSpace(p.value))
		if !ok || v < minPDFScale || v > maxPDFScale {
			return nil, apierr.Query(p.given, p.value, "`%s` must be a number from 0.1 to 2, got %s.", p.given, apierr.Show(p.value))
		}
		o.Scale = v
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"pdf.landscape", &o.Landscape}, {"pdf.printBackground", &o.PrintBackground}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value)
			if !ok {
				return nil, boolError(p)
			}
			*b.dst = v
		}
	}
	if p, ok := q.get("pdf.pageRanges"); ok {
		ranges, problem := normalisePageRanges(p.value)
		if problem != "" {
			return nil, apierr.Query(p.given, p.value,
				"`%s` must list pages and ranges such as `1-5, 8, 11-13`, counting from 1; %s.", p.given, problem)
		}
		o.PageRanges = ranges
	}
	for _, p := range options {
		if _, known := pdfOptionNames[strings.TrimPrefix(p.name, "pdf.")]; !known {
			return nil, apierr.Query(p.given, p.value, "`%s` is not a PDF option; use %s.", p.given, pdfOptionList)
		}
	}

	// Chromium refuses a page whose margins leave no content area; say
	// which parameter to change instead of failing at print time.
	pageW, pageH := o.Width, o.Height
	if o.Landscape {
		pageW, pageH = pageH, pageW
	}
	if err := marginsFit(q, "left", "right", o.Margin.Left, o.Margin.Right, pageW, "wide"); err != nil {
		return nil, err
	}
	if err := marginsFit(q, "top", "bottom", o.Margin.Top, o.Margin.Bottom, pageH, "tall"); err != nil {
		return nil, err
	}
	return o, nil
}

// marginsFit checks that two opposite margins leave part of the page, and
// otherwise names the parameters that set them.
func marginsFit(q *query, sideA, sideB string, a, b, page float64, extent string) error {
	if a+b < page {
		return nil
	}
	var names []string
	var first *param
	for _, side := range []string{sideA, sideB} {
		if p, ok := q.get("pdf.margin." + side); ok {
			names = append(names, "`"+p.given+"`")
			if first == nil {
				first = p
			}
		}
	}
	if p, ok := q.get("pdf.margin"); ok && len(names) < 2 {
		names = append(names, "`"+p.given+"`")
		if first == nil {
			first = p
		}
	}
	if first == nil {
		first = &param{name: "pdf.margin", given: "pdf.margin"}
	}
	return apierr.Query(first.given, first.value,
		"The %s and %s margins (%sin and %sin) leave no room on a page %sin %s; make %s smaller, or use larger paper.",
		sideA, sideB, inches(a), inches(b), inches(page), extent, strings.Join(names, " or "))
}

// normalisePageRanges checks the syntax Chromium's printToPDF accepts
// (`N`, `N-M`, `N-`, `-M`, comma-separated, spaces allowed) and returns it
// without spaces, or what is wrong. Whether the pages exist is known only
// after rendering (EPAGERANGE).
func normalisePageRanges(s string) (string, string) {
	if strings.TrimSpace(s) == "" {
		return "", ""
	}
	var b strings.Builder
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return "", "there is an empty item between commas in " + apierr.Show(s)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		from, to, isRange := strings.Cut(item, "-")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !isRange {
			n, ok := pageNumber(from)
			if !ok {
				return "", "got " + apierr.Show(item) + ", which is not a page number"
			}
			b.WriteString(strconv.Itoa(n))
			continue
		}
		if from == "" && to == "" {
			return "", "got " + apierr.Show(item) + ", a range without pages"
		}
		var a, z int
		var ok bool
		if from != "" {
			if a, ok = pageNumber(from); !ok {
				return "", "got " + apierr.Show(item) + ", whose start is not a page number"
			}
			b.WriteString(strconv.Itoa(a))
		}
		b.WriteByte('-')
		if to != "" {
			if z, ok = pageNumber(to); !ok {
				return "", "got " + apierr.Show(item) + ", whose end is not a page number"
			}
			if from != "" && a > z {
				return "", "the range " + apierr.Show(item) + " starts after it ends"
			}
			b.WriteString(strconv.Itoa(z))
		}
	}
	return b.String(), ""
}

func pageNumber(s string) (int, bool) {
	if s == "" || len(s) > 12 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIIDigit(s[i]) {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxPageNumber {
		return 0, false
	}
	return n, true
}

// parseLength reads a pdf length in inches: a number with `px`, `in`, `cm`
// or `mm` (any case, spaces allowed), or a bare number of pixels, as
// puppeteer reads them.
func parseLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	perInch := lengthUnits["px"]
	if len(s) > 2 {
		if f, ok := lengthUnits[strings.ToLower(s[len(s)-2:])]; ok {
			perInch, s = f, strings.TrimSpace(s[:len(s)-2])
		}
	}
	v, ok := parseDecimal(s)
	if !ok {
		return 0, false
	}
	return v * perInch, true
}

func inches(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}
