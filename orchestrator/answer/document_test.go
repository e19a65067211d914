package answer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/document"
	"github.com/glimpse/glimpse/orchestrator/document/documenttest"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// fileSource serves one body at every URL, or fails, and counts opens.
type fileSource struct {
	body  []byte
	fail  bool
	opens atomic.Int64
}

func (s *fileSource) Open(ctx context.Context, raw string) (io.ReadCloser, func(string) string, error) {
	s.opens.Add(1)
	if s.fail {
		return nil, nil, errors.New("connection refused")
	}
	return io.NopCloser(bytes.NewReader(s.body)), func(string) string { return "" }, nil
}

func TestReadDocumentReadsWhatItMayAndSaysWhyWhenItCannot(t *testing.T) {
	docx := documenttest.SampleDOCX(t)
	big := bytes.Repeat([]byte{'x'}, render.MaxDocumentBytes+1)
	const docxType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	cases := []struct {
		name      string
		file      render.File
		src       *fileSource
		fetch     bool
		pdf       bool
		wantDoc   bool   // a document comes back
		wantCode  string // the error's code, "" for none
		says      string
		wantOpens int64
	}{
		{"a document the plain fetch kept whole is read without fetching", render.File{MediaType: docxType, Head: docx, Whole: true, Size: -1},
			&fileSource{}, true, false, true, "", "", 0},
		{"a document the browser fetched is fetched again when its content is asked for", render.File{MediaType: docxType, Size: -1},
			&fileSource{body: docx}, true, false, true, "", "", 1},
		{"it is not fetched for its properties alone", render.File{MediaType: docxType, Size: -1},
			&fileSource{body: docx}, false, false, false, "", "", 0},
		{"a file that is no document is not read", render.File{MediaType: "image/png", Size: -1},
			&fileSource{body: docx}, true, false, false, "", "", 0},
		{"a document whose length passes the bound is refused without fetching", render.File{MediaType: docxType, Size: render.MaxDocumentBytes + 1},
			&fileSource{body: docx}, true, false, false, apierr.CodeFetch, "larger than 5242880 bytes", 0},
		{"a document that turns out longer than the bound is refused at the bound", render.File{MediaType: docxType, Size: -1},
			&fileSource{body: big}, true, false, false, apierr.CodeFetch, "larger than 5242880 bytes", 1},
		{"a document that cannot be fetched again says so", render.File{MediaType: docxType, Size: -1},
			&fileSource{fail: true}, true, false, false, apierr.CodeFetch, "could not be fetched", 1},
		{"a damaged document says what is broken", render.File{MediaType: docxType, Head: []byte("PK not a zip"), Whole: true, Size: -1},
			&fileSource{}, true, false, false, apierr.CodeFetch, "Word document cannot be read: it is not a readable zip archive", 0},
		{"a scan says it has no text, and keeps its properties", render.File{MediaType: "application/pdf", Head: documenttest.PDF([][]documenttest.PDFText{{}}, true), Whole: true, Size: -1},
			&fileSource{}, true, true, true, apierr.CodeFetch, "without a text layer", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.pdf {
				if _, err := exec.LookPath(document.PDFReader); err != nil {
					t.Skip("pdftotext is not installed: the document package's tests say so")
				}
			}
			comp := New(Config{Logger: slog.New(slog.DiscardHandler), Metrics: metrics.NewOrchestrator(prometheus.NewRegistry())})
			u, _ := url.Parse("https://files.example/report.docx")
			f := c.file
			p := &render.Page{URL: u, File: &f, Assets: c.src}
			fd := comp.readDocument(t.Context(), p, c.fetch)
			if got := c.src.opens.Load(); got != c.wantOpens {
				t.Errorf("the file was fetched %d times, want %d", got, c.wantOpens)
			}
			if (fd.read() != nil) != c.wantDoc {
				t.Errorf("document %+v, want one: %v", fd.read(), c.wantDoc)
			}
			var err error
			if fd != nil {
				err = fd.err
			}
			if c.wantCode == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != c.wantCode || !strings.Contains(e.Message, c.says) {
				t.Fatalf("err = %v, want %s saying %q", err, c.wantCode, c.says)
			}
			if e.Status() != 424 || e.Data["url"] != u.String() {
				t.Errorf("status %d, data %v; want 424 and the target's url", e.Status(), e.Data)
			}
		})
	}
}

func TestDocumentErrorsAreTheCallersOnlyWhenTheDocumentIsAtFault(t *testing.T) {
	u, _ := url.Parse("https://files.example/a.pdf")
	p := &render.Page{URL: u, File: &render.File{MediaType: "application/pdf"}}
	cases := []struct {
		name string
		err  error
		want string // the code, or "context" for the context's own error
		says string
	}{
		{"a missing reader is the operator's", &document.Error{Kind: document.Unavailable, Reason: "no reader"}, apierr.CodeFatal, ""},
		{"a password is the document's", &document.Error{Kind: document.Encrypted, Reason: "it is a PDF protected by a password"}, apierr.CodeFetch, "only a document without a password"},
		{"a bound is the document's", &document.Error{Kind: document.Bound, Reason: "its XML nests deeper than 256 elements"}, apierr.CodeFetch, "larger or more deeply built"},
		{"the request's own deadline stays the context's", context.DeadlineExceeded, "context", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := documentError(p, document.PDF, c.err)
			if c.want == "context" {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want the context's", err)
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) || e.Code != c.want || !strings.Contains(e.Message, c.says) {
				t.Errorf("err = %v, want %s saying %q", err, c.want, c.says)
			}
		})
	}
}

func TestADocumentPageIsAllContentAndSaysWhereItWasCut(t *testing.T) {
	d := &document.Document{Title: "A <Report>", Lang: "en-GB", HTML: "<h2>One</h2><p>Text.</p>\n", Cut: true}
	doc := documentPage(d)
	if !isWhole(doc) {
		t.Error("the document's page is not marked whole")
	}
	if got := doc.Find("head title").Text(); got != "A <Report>" {
		t.Errorf("title %q", got)
	}
	if got := doc.Find("html").AttrOr("lang", ""); got != "en" {
		t.Errorf("lang %q, want en", got)
	}
	body, _ := doc.Find("body").Html()
	if !strings.HasSuffix(strings.TrimSpace(body), cutNote) {
		t.Errorf("a cut document's body does not end with the note: %s", body)
	}
	page, _ := meta.ParseDocument(strings.NewReader("<html><body><p>x</p></body></html>"))
	if isWhole(page) {
		t.Error("a page is marked whole")
	}
	if html, _ := doc.Html(); strings.Contains(html, wholeMark) {
		t.Errorf("the mark shows in the page's HTML: %s", html)
	}
}
