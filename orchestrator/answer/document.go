package answer

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	xhtml "golang.org/x/net/html"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/document"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// fileDocument is a file target read as a document: what it holds, or
// why it could not be read.
type fileDocument struct {
	format document.Format
	doc    *document.Document
	err    error // an *apierr.Error for the caller, or the context's
}

// read is the document read, or nil: for a file that is no document,
// or one that could not be read, the metadata falls back on what the
// file's headers and first bytes say.
func (fd *fileDocument) read() *document.Document {
	if fd == nil {
		return nil
	}
	return fd.doc
}

// readDocument reads the target as a document when it is one (a PDF, a
// Word file, …): the bytes the plain fetch kept when they are the whole
// file, else the file fetched again along the page's egress path, within
// the same bound. nil for a file that is no document.
// A file glimpse has not seen whole is fetched only when fetch says the
// caller asks for its content: its properties alone are not worth a
// second download.
func (c *Composer) readDocument(ctx context.Context, p *render.Page, fetch bool) *fileDocument {
	f := p.File
	format := document.FormatOf(f.MediaType, meta.FileName(p.URL, f.Disposition))
	if format == "" {
		return nil
	}
	if !f.Whole && !fetch {
		return nil
	}
	start := time.Now()
	defer func() { c.m.Phase.WithLabelValues("extract").Observe(time.Since(start).Seconds()) }()
	fd := &fileDocument{format: format}
	body := f.Head
	if !f.Whole {
		if f.Size > render.MaxDocumentBytes {
			fd.err = documentTooLarge(p, format)
			return fd
		}
		var err error
		if body, err = fetchDocument(ctx, p); err != nil {
			fd.err = err
			return fd
		}
	}
	d, err := document.Read(ctx, format, body, document.Limits{})
	fd.doc = d // a scan's properties stand without its text
	if err != nil {
		fd.err = documentError(p, format, err)
		return fd
	}
	c.log.Debug("read a document target", "format", format, "bytes", len(body), "html_bytes", len(d.HTML), "cut", d.Cut, "took", time.Since(start))
	return fd
}

// fetchDocument reads the target's file along the page's egress path:
// the browser showed or downloaded it, and glimpse never saw its bytes.
func fetchDocument(ctx context.Context, p *render.Page) ([]byte, error) {
	if p.Assets == nil {
		return nil, apierr.Fatal(errors.New("a document target has no way to fetch its file"))
	}
	rc, _, err := p.Assets.Open(ctx, p.URL.String())
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := apierr.New(apierr.CodeFetch, "The target's document could not be fetched to read it; try again, or ask for its metadata alone.")
		e.Data = map[string]any{"url": apierr.Clip(p.URL.String(), apierr.MaxDataValue)}
		e.Err = err
		return nil, e
	}
	defer rc.Close()
	body, err := io.ReadAll(io.LimitReader(rc, render.MaxDocumentBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, apierr.From(err)
	}
	if len(body) > render.MaxDocumentBytes {
		return nil, documentTooLarge(p, document.FormatOf(p.File.MediaType, meta.FileName(p.URL, p.File.Disposition)))
	}
	return body, nil
}

// formatNames are the formats as a caller knows them.
var formatNames = map[document.Format]string{
	document.PDF: "PDF", document.DOCX: "Word document", document.XLSX: "Excel workbook", document.PPTX: "PowerPoint presentation",
	document.ODT: "OpenDocument text", document.RTF: "RTF file", document.EPUB: "EPUB e-book",
}

func documentTooLarge(p *render.Page, format document.Format) error {
	e := apierr.New(apierr.CodeFetch, fmt.Sprintf(
		"The target is a %s larger than %d bytes, the most glimpse reads of a target, so its text cannot be read; ask for its metadata alone, or give a smaller file.",
		formatNames[format], render.MaxDocumentBytes))
	e.Data = map[string]any{"url": apierr.Clip(p.URL.String(), apierr.MaxDataValue)}
	return e
}

// documentError is the caller's answer for a document that could not be
// read: what is wrong with it, and what to do.
func documentError(p *render.Page, format document.Format, err error) error {
	var de *document.Error
	if !errors.As(err, &de) {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return apierr.Fatal(err)
	}
	if de.Kind == document.Unavailable {
		return apierr.Fatal(err) // the operator's to mend: the log says how
	}
	todo := map[document.Kind]string{
		document.NoText:    "run text recognition (OCR) on it first, or ask for its metadata alone",
		document.Bound:     "it is larger or more deeply built than glimpse reads; ask for its metadata alone",
		document.Encrypted: "only a document without a password can be read; ask for its metadata alone",
	}[de.Kind]
	if todo == "" {
		todo = "check that the file opens in its own application, or ask for its metadata alone"
	}
	e := apierr.New(apierr.CodeFetch, fmt.Sprintf("The target's %s cannot be read: %s; %s.", formatNames[format], de.Reason, todo))
	e.Data = map[string]any{"url": apierr.Clip(p.URL.String(), apierr.MaxDataValue), "format": string(format)}
	e.Err = err
	return e
}

// cutNote closes the content of a document cut at a bound, so a reader
// does not take the part for the whole.
const cutNote = "<p>[The rest of the document is left out: it is longer than glimpse answers.]</p>"

// documentPage is the document as the page that data rules read: its
// title in the head, its content as the body. Markdown of the whole of it
// is all of it: the reader made it, so there is no page furniture to
// leave out.
func documentPage(d *document.Document) *goquery.Document {
	var b strings.Builder
	b.WriteString("<!doctype html><html")
	if lang := meta.NormalizeLang(d.Lang); lang != "" {
		b.WriteString(` lang="` + html.EscapeString(lang) + `"`)
	}
	b.WriteString("><head><meta charset=\"utf-8\">")
	if d.Title != "" {
		b.WriteString("<title>" + html.EscapeString(d.Title) + "</title>")
	}
	b.WriteString("</head><body>\n")
	b.WriteString(d.HTML)
	if d.Cut {
		b.WriteString(cutNote)
	}
	b.WriteString("</body></html>")
	doc, err := meta.ParseDocument(strings.NewReader(b.String()))
	if err != nil {
		return emptyDocument()
	}
	markWhole(doc)
	return doc
}

// wholeMark is an attribute of the document node, which no markup can
// carry and none renders, that tells a document made by the reader from
// a page.
const wholeMark = "glimpse-document"

func markWhole(doc *goquery.Document) {
	if len(doc.Nodes) > 0 {
		doc.Nodes[0].Attr = append(doc.Nodes[0].Attr, xhtml.Attribute{Key: wholeMark})
	}
}

// isWhole reports whether the document was made by the document reader,
// so that all of it is content.
func isWhole(doc *goquery.Document) bool {
	if doc == nil || len(doc.Nodes) == 0 || doc.Nodes[0].Type != xhtml.DocumentNode {
		return false
	}
	for _, a := range doc.Nodes[0].Attr {
		if a.Key == wholeMark {
			return true
		}
	}
	return false
}

// withDocumentTitle starts a document's Markdown with its own title as
// the first-level heading, as a page's starts with its <h1>, unless the
// Markdown starts with one or has the title as a heading already.
func (run *dataRun) withDocumentTitle(md string) string {
	title := collapse(run.doc.Find("head title").First().Text())
	if md == "" || title == "" || strings.HasPrefix(md, "# ") || hasHeading(md, title) || !run.spend(0, len(title)+4) {
		return md
	}
	return "# " + title + "\n\n" + md
}
