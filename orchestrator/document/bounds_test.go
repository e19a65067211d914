package document

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/glimpse/glimpse/orchestrator/document/documenttest"
)

// Each hostile document here is built to pass one bound; each test
// fails when that bound is taken away.

func TestReadRefusesHostileDocumentsAtTheirBound(t *testing.T) {
	lol := `<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>`
	many := make([]string, 0, 2*51)
	for i := range 51 {
		many = append(many, fmt.Sprintf("f%d", i), "")
	}
	cases := []struct {
		name   string
		format Format
		body   func(t *testing.T) []byte
		lim    Limits
		says   string
	}{
		{"a zip bomb: one entry that expands a thousand times", DOCX,
			func(t *testing.T) []byte {
				return documenttest.Zip(t, "_rels/.rels", documenttest.PackageRels("word/document.xml"), "word/document.xml",
					`<w:document `+documenttest.NSWord+`><w:body>`+strings.Repeat("<w:p/>", 400_000)+`</w:body></w:document>`)
			}, Limits{}, "expands past 1048576 bytes"},
		{"an archive whose entries together expand past the total", XLSX,
			func(t *testing.T) []byte {
				row := strings.Repeat(`<row><c t="inlineStr"><is><t>abcdefghij</t></is></c></row>`, 5_000)
				return documenttest.XLSX(t, [2]string{"a", row}, [2]string{"b", row}, [2]string{"c", row})
			}, Limits{MaxExpandedBytes: 512 << 10}, "expands past"},
		{"an archive of more entries than glimpse reads", DOCX,
			func(t *testing.T) []byte { return documenttest.Zip(t, many...) }, Limits{MaxEntries: 50}, "lists 51 entries"},
		{"billion laughs: entities declared to expand", DOCX,
			func(t *testing.T) []byte {
				return documenttest.Zip(t, "word/document.xml", `<?xml version="1.0"?>`+lol+`<w:document `+documenttest.NSWord+`><w:body><w:p><w:r><w:t>&lol3;</w:t></w:r></w:p></w:body></w:document>`)
			}, Limits{}, "declares entities"},
		{"XML nested a hundred thousand deep", DOCX,
			func(t *testing.T) []byte {
				return documenttest.Zip(t, "word/document.xml", `<w:document `+documenttest.NSWord+`><w:body>`+strings.Repeat("<w:sdt>", 100_000)+strings.Repeat("</w:sdt>", 100_000)+`</w:body></w:document>`)
			}, Limits{MaxRatio: 1 << 20}, "nests deeper than 256"},
		{"XML of more tokens than glimpse reads", ODT,
			func(t *testing.T) []byte { return documenttest.ODT(t, strings.Repeat("<text:p>x</text:p>", 20_000)) },
			Limits{MaxTokens: 40_000}, "more than 40000 XML tokens"},
		{"RTF groups nested a hundred thousand deep", RTF,
			func(*testing.T) []byte {
				return []byte(`{\rtf1` + strings.Repeat("{", 100_000) + "x" + strings.Repeat("}", 100_001))
			},
			Limits{}, "nest deeper than 256"},
		{"a PDF whose text runs past the output bound", PDF,
			func(*testing.T) []byte {
				var lines []documenttest.PDFText
				for i := range 60 {
					lines = append(lines, documenttest.PDFText{X: 72, Y: float64(760 - 12*i), Size: 10, Text: strings.Repeat("word ", 20)})
				}
				return documenttest.PDF([][]documenttest.PDFText{lines, lines, lines}, false)
			}, Limits{PDFTextBytes: 64 << 10}, "text runs past 65536 bytes"},
		{"a PDF whose reading outlasts the reader's time", PDF,
			func(*testing.T) []byte { return documenttest.SamplePDF() }, Limits{PDFTime: time.Microsecond}, "takes longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.format == PDF {
				needPDFReader(t)
			}
			body := c.body(t)
			start := time.Now()
			d, err := Read(context.Background(), c.format, body, c.lim)
			var e *Error
			if !errors.As(err, &e) {
				n := 0
				if d != nil {
					n = len(d.HTML)
				}
				t.Fatalf("err = %v (HTML of %d bytes), want the bound to refuse it", err, n)
			}
			if e.Kind != Bound || !strings.Contains(e.Reason, c.says) {
				t.Errorf("err = kind %d %q, want a bound saying %q", e.Kind, e.Reason, c.says)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("refusing it took %s", took)
			}
		})
	}
}

func TestReadCutsGiantTablesAndLongDocumentsAtTheirBound(t *testing.T) {
	var rows strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&rows, `<row r="%d"><c r="A%d"><v>%d</v></c><c r="B%d"><v>1</v></c><c r="C%d"><v>2</v></c></row>`, i, i, i, i, i)
	}
	var paras strings.Builder
	for i := range 600 {
		paras.WriteString(documenttest.Para("", fmt.Sprintf("Paragraph %d of a long report.", i)))
	}
	cases := []struct {
		name    string
		format  Format
		body    func(t *testing.T) []byte
		lim     Limits
		maxHTML int
		absent  string
	}{
		{"a sheet of more cells than the bound ends at the bound", XLSX,
			func(t *testing.T) []byte { return documenttest.XLSX(t, [2]string{"Big", rows.String()}) },
			Limits{MaxCells: 1500}, 40 << 10, "<td>501</td>"},
		{"a sheet whose two cells name opposite corners costs two rows, not the grid between", XLSX,
			func(t *testing.T) []byte {
				return documenttest.XLSX(t, [2]string{"Sparse", `<row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="IV1048576"><v>2</v></c><c r="XFD1048576"><v>3</v></c></row>`})
			},
			Limits{}, 8 << 10, "<td>3</td>"},
		{"a document longer than the HTML bound ends at a whole block", DOCX,
			func(t *testing.T) []byte { return documenttest.DOCX(t, paras.String()) },
			Limits{MaxHTMLBytes: 4 << 10}, 5 << 10, "Paragraph 599"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			d, err := Read(context.Background(), c.format, c.body(t), c.lim)
			if err != nil {
				t.Fatal(err)
			}
			if !d.Cut {
				t.Error("Cut is false, want the document marked as cut")
			}
			if len(d.HTML) > c.maxHTML {
				t.Errorf("HTML of %d bytes, want at most %d", len(d.HTML), c.maxHTML)
			}
			if strings.Contains(d.HTML, c.absent) {
				t.Errorf("the HTML holds %q, past the bound", c.absent)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("reading it took %s", took)
			}
		})
	}
}

func TestReadStopsWithTheRequestsContext(t *testing.T) {
	needPDFReader(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, f := range []Format{PDF, DOCX} {
		body := documenttest.SamplePDF()
		if f == DOCX {
			body = documenttest.SampleDOCX(t)
		}
		_, err := Read(ctx, f, body, Limits{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want the context's", f, err)
		}
	}
}

func TestPDFReadersWaitTheirTurnWithinTheRequestsTime(t *testing.T) {
	needPDFReader(t)
	for range cap(pdfReaders) {
		pdfReaders <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := Read(ctx, PDF, documenttest.SamplePDF(), Limits{})
	for range cap(pdfReaders) {
		<-pdfReaders
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("with every reader busy, err = %v; want the request's deadline", err)
	}
	if _, err := Read(context.Background(), PDF, documenttest.SamplePDF(), Limits{}); err != nil {
		t.Errorf("with the readers free again: %v", err)
	}
}
