package document

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/document/documenttest"
)

func needPDFReader(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath(PDFReader); err != nil {
		testtool.Missingf(t, "%s is not installed; PDF documents are read with poppler-utils: run `make deps` or apt-get install poppler-utils", PDFReader)
	}
}

func TestReadRecoversEachFormatsStructureAndProperties(t *testing.T) {
	type props struct {
		title, author, lang string
		created, modified   string
		pages               int
	}
	cases := []struct {
		name   string
		format Format
		body   func(t *testing.T) []byte
		want   []string // in this order in the HTML
		absent []string
		props  props
	}{
		{"a Word document gives headings by style name and outline level, a link, nested and numbered lists and a table", DOCX,
			func(t *testing.T) []byte { return documenttest.SampleDOCX(t) },
			[]string{"<h1>Quarterly Report</h1>", `<a href="https://example.org/figures">the figures</a>`, "<h2>Regions</h2>",
				"<ul>\n<li>North<ul>\n<li>Coast</li>", "<li>South</li>", "<ol>\n<li>First step</li>", "<th>Region</th><th>Revenue</th>", "<td>South</td><td>900</td>"},
			nil, props{"Quarterly Report", "Ada Lovelace", "en-GB", "2024-03-01T09:30:00Z", "2024-03-05T10:00:00Z", 0}},
		{"a workbook gives one table per sheet under its name, shared, rich and inline strings, and skips empty rows", XLSX,
			func(t *testing.T) []byte {
				return documenttest.XLSX(t, [2]string{"Costs", documenttest.SampleSheet}, [2]string{"Notes", `<row r="1"><c r="B1" t="inlineStr"><is><t>only B</t></is></c></row><row r="2"><c r="A2"><v>7</v></c></row>`})
			},
			[]string{"<h2>Costs</h2>", "<th>Item</th><th>Cost (EUR)</th>", "<td>Paper &amp; ink</td><td>12.5</td>", "<td>Total</td><td></td><td>TRUE</td>",
				"<h2>Notes</h2>", "<th></th><th>only B</th>", "<td>7</td><td></td>"},
			[]string{"<tr><td></td><td></td><td></td></tr>"}, props{"Budget", "Ada Lovelace", "en-GB", "2024-03-01T09:30:00Z", "2024-03-05T10:00:00Z", 2}},
		{"a presentation gives each slide's title as a heading, its text, links and tables, slides apart", PPTX,
			func(t *testing.T) []byte { return documenttest.SamplePPTX(t) },
			[]string{"<h2>Roadmap 2025</h2>", "<p>Where we are going</p>", `<hr data-page="2">`, "<h2>Milestones</h2>",
				`<a href="https://example.org/plan">Read the plan</a>`, "<th>Quarter</th><th>Goal</th>", "<td>Q1</td><td>Beta</td>"},
			nil, props{"Roadmap", "Ada Lovelace", "en-GB", "2024-03-01T09:30:00Z", "2024-03-05T10:00:00Z", 2}},
		{"an OpenDocument text gives outline headings, links, lists and tables, and leaves notes out", ODT,
			func(t *testing.T) []byte { return documenttest.ODT(t, documenttest.SampleODT) },
			[]string{"<h1>Field Notes</h1>", `<a href="https://example.org/ichthyosaur">ichthyosaur</a> at low tide.`, "<h2>Finds</h2>",
				"<li>Vertebrae</li>", "<th>Bone</th><th>Count</th>", "<td>Rib</td><td>14</td>"},
			[]string{"A footnote"}, props{"Field Notes", "Mary Anning", "en", "2023-06-01T08:00:00Z", "2023-06-02T12:00:00Z", 0}},
		{"an e-book gives its chapters in spine order with semantic elements only, and no script or unsafe link", EPUB,
			func(t *testing.T) []byte {
				return documenttest.EPUB(t, `<section><h1>Chapter One</h1><p class="x">We sailed <em>west</em>.</p><script>steal()</script></section>`,
					`<h2>Two</h2><ul><li>Ashore</li></ul><p><a href="javascript:steal()">bad</a> <a href="https://example.org/">good</a></p><table><tr><th>Day</th></tr><tr><td>1</td></tr></table>`)
			},
			[]string{"<h1>Chapter One</h1>", "<p>We sailed <em>west</em>.</p>", "<h2>Two</h2>", "<li>Ashore</li>", `bad <a href="https://example.org/">good</a>`, "<th>Day</th>"},
			[]string{"steal", "class="}, props{"A Voyage", "Maria Sibylla Merian", "de", "1705-01-01T00:00:00Z", "2024-01-02T03:04:05Z", 2}},
		{"an RTF file gives headings by outline level, code-page and Unicode text, tables, and skips pictures", RTF,
			func(*testing.T) []byte { return []byte(documenttest.SampleRTF) },
			[]string{"<h1>Ship’s Log</h1>", "<p>Land sighted to the west. Café.</p>", "<th>Day</th><th>Miles</th>", "<td>Monday</td><td>120</td>", "<p>After the table.</p>"},
			[]string{"89504e47", "Times", "Hand"}, props{"Ship’s Log", "James Cook", "en", "1770-04-19T06:00:00Z", "", 0}},
		{"a PDF gives headings by size, paragraphs joined across lines, a table from aligned cells and page breaks", PDF,
			func(*testing.T) []byte { return documenttest.SamplePDF() },
			[]string{"<h1>Annual Survey</h1>", "<p>The survey counted birds at three sites over the year, and the counts rose at every site.</p>",
				"<h2>Counts by site</h2>", "<th>Site</th><th>Spring</th><th>Autumn</th>", "<td>Marsh</td><td>120</td><td>140</td>", "<td>Coast</td><td>200</td><td>230</td>",
				"<p>Counts were made at dawn.</p>", `<hr data-page="2">`, "<h2>Methods</h2>"},
			nil, props{"Annual Survey", "Grace Hopper", "en-GB", "2024-01-02T03:04:05Z", "2024-02-03T04:05:06Z", 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFReader(t)
			}
			d, err := Read(context.Background(), c.format, c.body(t), Limits{})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			rest := d.HTML
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("the HTML lacks %q after what came before it:\n%s", w, d.HTML)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range c.absent {
				if strings.Contains(d.HTML, a) {
					t.Errorf("the HTML holds %q:\n%s", a, d.HTML)
				}
			}
			got := props{d.Title, d.Author, d.Lang, iso(d.Created), iso(d.Modified), d.Pages}
			if got != c.props {
				t.Errorf("properties = %+v, want %+v", got, c.props)
			}
			if d.Cut {
				t.Error("a small document was cut")
			}
		})
	}
}

func iso(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

func TestFormatOfNamesDocumentsByTypeOrByNameWhenTheTypeIsGeneric(t *testing.T) {
	cases := []struct {
		mediaType, name string
		want            Format
	}{
		{"application/pdf", "", PDF},
		{"Application/PDF; qs=0.9", "x.bin", PDF},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "", DOCX},
		{"application/octet-stream", "Report.DOCX", DOCX},
		{"application/zip", "book.epub", EPUB},
		{"", "notes.rtf", RTF},
		{"text/rtf", "", RTF},
		{"image/png", "scan.pdf", ""}, // a declared type is believed
		{"application/octet-stream", "archive.zip", ""},
		{"application/msword", "old.doc", ""},
	}
	for _, c := range cases {
		if got := FormatOf(c.mediaType, c.name); got != c.want {
			t.Errorf("FormatOf(%q, %q) = %q, want %q", c.mediaType, c.name, got, c.want)
		}
	}
}

func TestReadSaysWhatIsWrongWithADocumentItCannotRead(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		body   []byte
		kind   Kind
		says   string
	}{
		{"a Word document that is no zip", DOCX, []byte("PK? not really"), Malformed, "not a readable zip archive"},
		{"a zip without the main part", DOCX, documenttest.Zip(t, "readme.txt", "hi"), Malformed, "no word/document.xml"},
		{"a workbook with broken XML", XLSX, documenttest.XLSX(t, [2]string{"S", `<row><c r="A1><v>1</v></c></row>`}), Malformed, "XML is broken"},
		{"an RTF file that is not RTF", RTF, []byte("hello"), Malformed, "{\\rtf"},
		{"a PDF that is not a PDF", PDF, []byte("%PDX nothing"), Malformed, "%PDF-"},
		{"a PDF cut short after its header", PDF, []byte("%PDF-1.4\n1 0 obj\n<< /Type"), Malformed, "reader can open"},
		{"a PDF locked by a password", PDF, documenttest.LockedPDF("secret"), Encrypted, "protected by a password"},
		{"a PDF of images only, as a scanner writes it", PDF, documenttest.PDF([][]documenttest.PDFText{{}, {}}, true), NoText, "PDF of 2 pages without a text layer"},
		{"an unknown format", Format("doc"), []byte("x"), Unsupported, "does not read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFReader(t)
			}
			d, err := Read(context.Background(), c.format, c.body, Limits{})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want a *document.Error", err)
			}
			if e.Kind != c.kind || !strings.Contains(e.Reason, c.says) {
				t.Errorf("err = kind %d %q, want kind %d saying %q", e.Kind, e.Reason, c.kind, c.says)
			}
			// A scan keeps its properties; nothing else comes back half read.
			if c.kind == NoText && (d == nil || d.Title != "Annual Survey" || d.Author != "Grace Hopper" || d.HTML != "") {
				t.Errorf("a scan's document = %+v, want its properties and no content", d)
			}
			if c.kind != NoText && d != nil {
				t.Errorf("a document that failed came back: %+v", d)
			}
		})
	}
}
