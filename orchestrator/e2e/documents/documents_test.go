package documents_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/glimpse/glimpse/internal/testtool"
	"github.com/glimpse/glimpse/orchestrator/document/documenttest"
	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

func needPDFReader(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		testtool.Missingf(t, "pdftotext is not installed; glimpse reads PDF documents with poppler-utils: run `make deps` or apt-get install poppler-utils")
	}
}

// serve answers body as a file of the given type.
func serve(contentType string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("content-type", contentType)
		w.Header().Set("content-length", fmt.Sprint(len(body)))
		w.Header().Set("last-modified", "Wed, 01 Oct 2025 08:30:00 GMT")
		w.Write(body)
	}
}

// rules ask for the whole document as Markdown and as text, and for its
// headings by a selector.
const rules = "data.content.attr=markdown&data.plain.attr=text&data.headings.selectorAll=h1,h2&data.headings.attr=text"

// printedReport is a PDF as Chromium prints it (embedded subset fonts,
// their Unicode maps, tagged structure): glimpse prints the page, and the
// test serves the file it stored.
func printedReport(t *testing.T, app *e2e.App) []byte {
	t.Helper()
	page := e2e.NewPageServer(t, map[string]http.HandlerFunc{"/report": e2e.HTML(`<!doctype html><html lang="en"><head><title>Harbour Report</title></head><body>
<h1>Harbour Report</h1><p>Ships came and went all season, and the quay was rebuilt.</p>
<h2>Arrivals</h2>
<table><tr><th>Month</th><th>Ships</th><th>Cargo</th></tr><tr><td>May</td><td>41</td><td>Timber</td></tr><tr><td>June</td><td>57</td><td>Grain</td></tr></table>
<h2 style="break-before: page">Works</h2><p>The quay was lengthened by forty metres.</p></body></html>`)})
	a := app.Get(page.URL+"/report", "pdf=true&pdf.scale=1&meta=false&force=true")
	pdf, _ := a.Field("pdf").(map[string]any)
	if a.Status != "success" || pdf == nil {
		t.Fatalf("printing the report answered %d %s: %s", a.HTTP, a.Code, a.Raw)
	}
	resp, err := http.Get(pdf["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("the stored PDF could not be read back (%v): %.40q", err, b)
	}
	return b
}

func TestDocumentsAnswerTheirContentAndProperties(t *testing.T) {
	needPDFReader(t)
	app := e2e.Shared(t)
	type want struct {
		markdown []string // in this order
		headings []any
		text     string // in the text
		title    string
		author   any
		lang     any
		date     any
	}
	files := []struct {
		name, path, contentType string
		body                    []byte
		want                    want
	}{
		{"a PDF printed by Chromium", "/harbour.pdf", "application/pdf", printedReport(t, app), want{
			[]string{"# Harbour Report", "Ships came and went all season", "## Arrivals", "| Month | Ships | Cargo |", "| June | 57 | Grain |", "* * *", "## Works"},
			[]any{"Harbour Report", "Arrivals", "Works"}, "The quay was lengthened by forty metres.", "Harbour Report", nil, "en", nil}},
		{"a PDF written by hand", "/survey.pdf", "application/pdf", documenttest.SamplePDF(), want{
			[]string{"# Annual Survey", "## Counts by site", "| Site | Spring | Autumn |", "| Marsh | 120 | 140 |", "* * *", "## Methods"},
			[]any{"Annual Survey", "Counts by site", "Methods"}, "Observers walked a fixed route.", "Annual Survey", "Grace Hopper", "en", "2024-01-02T03:04:05.000Z"}},
		{"a Word document served as a generic download", "/files/report.docx", "application/octet-stream", documenttest.SampleDOCX(t), want{
			[]string{"# Quarterly Report", "[the figures](https://example.org/figures)", "## Regions", "- North", "- Coast", "1. First step", "| Region | Revenue |", "| South | 900 |"},
			[]any{"Quarterly Report", "Regions"}, "Revenue grew; see the figures for detail.", "Quarterly Report", "Ada Lovelace", "en", "2024-03-01T09:30:00.000Z"}},
		{"an Excel workbook", "/budget.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
			documenttest.XLSX(t, [2]string{"Costs", documenttest.SampleSheet}), want{
				[]string{"# Budget", "## Costs", "| Item | Cost (EUR) |", "| Paper & ink | 12.5 |"},
				[]any{"Costs"}, "Total", "Budget", "Ada Lovelace", "en", "2024-03-01T09:30:00.000Z"}},
		{"a PowerPoint presentation", "/roadmap.pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", documenttest.SamplePPTX(t), want{
			[]string{"## Roadmap 2025", "Where we are going", "* * *", "## Milestones", "[Read the plan](https://example.org/plan)", "| Quarter | Goal |"},
			[]any{"Roadmap 2025", "Milestones"}, "Ship the beta", "Roadmap", "Ada Lovelace", "en", "2024-03-01T09:30:00.000Z"}},
		{"an OpenDocument text", "/notes.odt", "application/vnd.oasis.opendocument.text", documenttest.ODT(t, documenttest.SampleODT), want{
			[]string{"# Field Notes", "[ichthyosaur](https://example.org/ichthyosaur)", "## Finds", "- Vertebrae", "| Bone | Count |"},
			[]any{"Field Notes", "Finds"}, "Found an ichthyosaur at low tide.", "Field Notes", "Mary Anning", "en", "2023-06-01T08:00:00.000Z"}},
		{"an RTF file", "/log.rtf", "application/rtf", []byte(documenttest.SampleRTF), want{
			[]string{"# Ship’s Log", "Land sighted to the west. Café.", "| Day | Miles |", "| Monday | 120 |"},
			[]any{"Ship’s Log"}, "After the table.", "Ship’s Log", "James Cook", "en", "1770-04-19T06:00:00.000Z"}},
		{"an EPUB e-book", "/voyage.epub", "application/epub+zip",
			documenttest.EPUB(t, `<h1>Chapter One</h1><p>We sailed <em>west</em>.</p>`, `<h2>Ashore</h2><ul><li>Water</li><li>Wood</li></ul>`), want{
				[]string{"# Chapter One", "We sailed *west*.", "## Ashore", "- Water"},
				[]any{"Chapter One", "Ashore"}, "We sailed west.", "A Voyage", "Maria Sibylla Merian", "de", "1705-01-01T00:00:00.000Z"}},
	}
	routes := map[string]http.HandlerFunc{}
	for _, f := range files {
		routes[f.path] = serve(f.contentType, f.body)
	}
	ps := e2e.NewPageServer(t, routes)
	for _, mode := range []struct{ name, query string }{{"with a plain fetch", ""}, {"in the browser", "&prerender=true"}} {
		for _, f := range files {
			t.Run(mode.name+"/"+f.name, func(t *testing.T) {
				a := app.Get(ps.URL+f.path, "force=true&"+rules+mode.query)
				if a.HTTP != 200 || a.Status != "success" {
					t.Fatalf("answered %d %s %s", a.HTTP, a.Code, a.Raw)
				}
				md, _ := a.Field("content").(string)
				rest := md
				for _, w := range f.want.markdown {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Fatalf("the Markdown lacks %q after what came before it:\n%s", w, md)
					}
					rest = rest[i+len(w):]
				}
				if got := fmt.Sprint(a.Field("headings")); got != fmt.Sprint(f.want.headings) {
					t.Errorf("headings %s, want %v", got, f.want.headings)
				}
				if text, _ := a.Field("plain").(string); !strings.Contains(text, f.want.text) {
					t.Errorf("the text lacks %q: %q", f.want.text, text)
				}
				if mode.query != "" {
					return // the browser never hands the file over: its properties are read only for content
				}
				for _, c := range []struct {
					field string
					want  any
				}{{"title", f.want.title}, {"author", f.want.author}, {"lang", f.want.lang}, {"date", f.want.date}} {
					if c.field == "date" && c.want == nil {
						continue // when Chromium printed it: now
					}
					if got := a.Field(c.field); got != c.want {
						t.Errorf("%s = %v, want %v", c.field, got, c.want)
					}
				}
			})
		}
	}
}

func TestDocumentsThatCannotBeReadSayWhy(t *testing.T) {
	needPDFReader(t)
	app := e2e.Shared(t)
	scan := documenttest.PDF([][]documenttest.PDFText{{}, {}, {}}, true)
	bomb := documenttest.Zip(t, "_rels/.rels", documenttest.PackageRels("word/document.xml"), "word/document.xml",
		`<w:document `+documenttest.NSWord+`><w:body>`+strings.Repeat("<w:p/>", 400_000)+`</w:body></w:document>`)
	noise := make([]byte, 6<<20)
	_, _ = rand.NewChaCha8([32]byte{7}).Read(noise) // noise does not compress: the file stays larger than the bound
	huge := documenttest.Zip(t, "word/document.xml", "<w:document/>", "noise.bin", string(noise))
	ps := e2e.NewPageServer(t, map[string]http.HandlerFunc{
		"/scan.pdf":   serve("application/pdf", scan),
		"/bomb.docx":  serve("application/vnd.openxmlformats-officedocument.wordprocessingml.document", bomb),
		"/huge.docx":  serve("application/vnd.openxmlformats-officedocument.wordprocessingml.document", huge),
		"/broken.pdf": serve("application/pdf", []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog")),
	})
	cases := []struct {
		name, path, query string
		says              []string
	}{
		{"a scanned PDF says it has no text layer instead of answering empty", "/scan.pdf", rules,
			[]string{"PDF cannot be read", "3 pages without a text layer", "OCR"}},
		{"a zip bomb is refused at its bound", "/bomb.docx", rules, []string{"Word document cannot be read", "expands past"}},
		{"a document past the byte bound is refused", "/huge.docx", "data.content.attr=markdown", []string{"larger than 5242880 bytes"}},
		{"a broken PDF says so", "/broken.pdf", "data.content.attr=markdown", []string{"PDF cannot be read", "opens in its own application"}},
		{"a scanned PDF read in the browser says the same", "/scan.pdf", rules + "&prerender=true", []string{"3 pages without a text layer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := app.Get(ps.URL+c.path, "force=true&"+c.query)
			if a.HTTP != 424 || a.Code != "EFETCH" {
				t.Fatalf("answered %d %s, want 424 EFETCH: %s", a.HTTP, a.Code, a.Raw)
			}
			for _, s := range c.says {
				if !strings.Contains(a.Message, s) {
					t.Errorf("the message lacks %q: %s", s, a.Message)
				}
			}
			var data map[string]any
			_ = jsonUnmarshal(a.Data, &data)
			if data["url"] != ps.URL+c.path {
				t.Errorf("data %v, want the target's url", data)
			}
		})
	}
	t.Run("a scanned PDF's metadata alone still answers, from its own properties", func(t *testing.T) {
		a := app.Get(ps.URL+"/scan.pdf", "force=true")
		if a.Status != "success" || a.Field("title") != "Annual Survey" || a.Field("author") != "Grace Hopper" || a.Field("date") != "2024-01-02T03:04:05.000Z" {
			t.Errorf("answered %d %s: %s; want the scan's own title, author and date", a.HTTP, a.Code, a.Raw)
		}
	})
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
