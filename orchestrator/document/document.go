package document

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"path"
	"strings"
	"time"
)

// Format is a kind of document glimpse reads.
type Format string

const (
	PDF  Format = "pdf"
	DOCX Format = "docx"
	XLSX Format = "xlsx"
	PPTX Format = "pptx"
	ODT  Format = "odt"
	RTF  Format = "rtf"
	EPUB Format = "epub"
)

// byMediaType and byExtension name the formats as servers label them; a
// generic type (application/octet-stream, application/zip) falls back to
// the file's extension.
var byMediaType = map[string]Format{
	"application/pdf": PDF, "application/x-pdf": PDF,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   DOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         XLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": PPTX,
	"application/vnd.oasis.opendocument.text":                                   ODT,
	"application/rtf": RTF, "text/rtf": RTF,
	"application/epub+zip": EPUB,
}

var byExtension = map[string]Format{
	".pdf": PDF, ".docx": DOCX, ".xlsx": XLSX, ".pptx": PPTX, ".odt": ODT, ".rtf": RTF, ".epub": EPUB,
}

// FormatOf is the format of a file target from its media type and its
// name (the Content-Disposition filename or the URL's last segment); ""
// when glimpse does not read it as a document.
func FormatOf(mediaType, name string) Format {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(mediaType, ";")[0]))
	}
	if f, ok := byMediaType[mt]; ok {
		return f
	}
	switch mt {
	case "", "application/octet-stream", "application/zip", "application/x-zip-compressed", "binary/octet-stream", "application/download":
		return byExtension[strings.ToLower(path.Ext(name))]
	}
	return ""
}

// Document is what a document holds, as glimpse answers it.
type Document struct {
	Format Format
	// HTML is the content as a fragment of semantic HTML: headings,
	// paragraphs, lists, tables, links; pages or slides apart by <hr>.
	HTML string
	// Properties, from the document's own metadata; empty when it names
	// none.
	Title, Author, Lang string
	Created, Modified   time.Time
	// Pages counts PDF pages, slides, sheets or chapters; 0 when the
	// format has none.
	Pages int
	// Cut says a bound on output ended the content early (a long sheet):
	// what came before the cut is whole.
	Cut bool
}

// Limits bound what reading one document may cost.
type Limits struct {
	MaxEntries       int   // entries an archive may list
	MaxEntryBytes    int64 // bytes one archive entry may expand to
	MaxExpandedBytes int64 // bytes every entry read may expand to together
	MaxRatio         int   // how many times its stored size an entry may expand to, past 1 MiB
	MaxDepth         int   // nesting of XML elements or RTF groups
	MaxTokens        int   // XML tokens read across the document
	MaxHTMLBytes     int   // the HTML produced
	MaxCells         int   // table cells produced across the document
	MaxColumns       int   // columns of one table
	// PDF: the reader's wall time, address space and output.
	PDFTime      time.Duration
	PDFMemory    int64
	PDFTextBytes int64
}

// DefaultLimits fit a document of the byte bound a page has (a few
// megabytes): a real document stays well inside each.
var DefaultLimits = Limits{
	MaxEntries:       10_000,
	MaxEntryBytes:    64 << 20,
	MaxExpandedBytes: 128 << 20,
	MaxRatio:         100,
	MaxDepth:         256,
	MaxTokens:        8_000_000,
	MaxHTMLBytes:     16 << 20,
	MaxCells:         200_000,
	MaxColumns:       256,
	PDFTime:          15 * time.Second,
	PDFMemory:        512 << 20,
	PDFTextBytes:     32 << 20,
}

// Read reads body as a document of format f within lim (zero fields are
// DefaultLimits'). Its errors are *Error or the context's; with a NoText
// error the document still comes back, with its properties and no
// content.
func Read(ctx context.Context, f Format, body []byte, lim Limits) (*Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lim = lim.withDefaults()
	var d *Document
	var err error
	switch f {
	case PDF:
		d, err = readPDF(ctx, body, lim)
	case DOCX:
		d, err = readDOCX(ctx, body, lim)
	case XLSX:
		d, err = readXLSX(ctx, body, lim)
	case PPTX:
		d, err = readPPTX(ctx, body, lim)
	case ODT:
		d, err = readODT(ctx, body, lim)
	case RTF:
		d, err = readRTF(ctx, body, lim)
	case EPUB:
		d, err = readEPUB(ctx, body, lim)
	default:
		return nil, &Error{Kind: Unsupported, Reason: "glimpse does not read this kind of file as a document"}
	}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			if e.Kind == NoText && d != nil {
				d.Format = f
				d.Title, d.Author, d.Lang = clean(d.Title, maxProperty), clean(d.Author, maxProperty), clean(d.Lang, 35)
				return d, e
			}
			return nil, e
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Kind: Malformed, Reason: err.Error()}
	}
	d.Format = f
	d.Title = clean(d.Title, maxProperty)
	d.Author = clean(d.Author, maxProperty)
	d.Lang = clean(d.Lang, 35)
	return d, nil
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set64 := func(v *int64, def int64) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxEntries, d.MaxEntries)
	set64(&l.MaxEntryBytes, d.MaxEntryBytes)
	set64(&l.MaxExpandedBytes, d.MaxExpandedBytes)
	set(&l.MaxRatio, d.MaxRatio)
	set(&l.MaxDepth, d.MaxDepth)
	set(&l.MaxTokens, d.MaxTokens)
	set(&l.MaxHTMLBytes, d.MaxHTMLBytes)
	set(&l.MaxCells, d.MaxCells)
	set(&l.MaxColumns, d.MaxColumns)
	if l.PDFTime <= 0 {
		l.PDFTime = d.PDFTime
	}
	set64(&l.PDFMemory, d.PDFMemory)
	set64(&l.PDFTextBytes, d.PDFTextBytes)
	return l
}

// Kind says why a document could not be read.
type Kind int

const (
	Malformed   Kind = iota // not a readable file of its format
	Bound                   // it expands past a bound: a bomb, or too much
	NoText                  // a PDF without a text layer: a scan
	Encrypted               // protected by a password
	Unsupported             // no reader for it
	Unavailable             // the reader is not installed
)

// Error is a document glimpse cannot read, and why, as a clause that
// follows "The document …".
type Error struct {
	Kind   Kind
	Reason string
}

func (e *Error) Error() string { return "the document cannot be read: " + e.Reason }

func malformed(format string, args ...any) error {
	return &Error{Kind: Malformed, Reason: fmt.Sprintf(format, args...)}
}

func bound(format string, args ...any) error {
	return &Error{Kind: Bound, Reason: fmt.Sprintf(format, args...)}
}

// maxProperty bounds a property: it is the document's to choose.
const maxProperty = 300

// clean is a property without control characters and runs of space,
// within n runes.
func clean(s string, n int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' || r == '\u00a0' }), " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n])
	}
	return s
}
