package document

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PDFReader is the poppler-utils program that reads a PDF's text layer
// with each word's box; glimpse runs it as a bounded subprocess, so a
// hostile file costs at most its time, memory and output bounds and
// never the service's own process.
var PDFReader = "pdftotext"

// readPDF reads a PDF's text layer: words in the reader's reading order,
// lines joined into paragraphs, larger lines as headings, rows of aligned
// cells as tables, pages apart by page breaks. A PDF with pages but no
// text is a scan, and says so.
func readPDF(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	if !bytes.Contains(body[:min(len(body), 1024)], []byte("%PDF-")) {
		return nil, malformed("it does not start as a PDF does (%%PDF-)")
	}
	out, err := runPDFReader(ctx, body, lim)
	if err != nil {
		return nil, err
	}
	b := &budget{ctx: ctx, lim: lim}
	pages, d, err := parseBBox(b.xml(out))
	if err != nil {
		return nil, err
	}
	d.Pages = len(pages)
	words := 0
	for _, p := range pages {
		for _, l := range p.lines {
			words += len(l.words)
		}
	}
	d.Lang = pdfLang(body)
	if words == 0 && len(pages) > 0 {
		// The properties stand; the text the caller asks for does not.
		return d, &Error{Kind: NoText, Reason: fmt.Sprintf(
			"it is a PDF of %d page%s without a text layer: its pages are images, a scan most likely, and glimpse does not recognise text in images", len(pages), plural(len(pages)))}
	}
	w := &writer{bud: b}
	layoutPDF(pages, w)
	d.HTML, d.Cut = w.b.String(), w.cut
	return d, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// pdfReaders bounds the readers running at once: each may take its
// memory bound, so a burst of PDF targets waits its turn instead of
// taking the machine's memory.
var pdfReaders = make(chan struct{}, max(2, runtime.NumCPU()))

// runPDFReader runs the reader on body under the bounds: wall time by the
// context, CPU time and address space by rlimits the shell sets before it
// becomes the reader, output by the bytes read from its pipe.
func runPDFReader(ctx context.Context, body []byte, lim Limits) ([]byte, error) {
	reader, err := exec.LookPath(PDFReader)
	if err != nil {
		return nil, &Error{Kind: Unavailable, Reason: "glimpse has no PDF reader installed (" + PDFReader + " from poppler-utils)"}
	}
	select {
	case pdfReaders <- struct{}{}:
		defer func() { <-pdfReaders }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f, err := os.CreateTemp("", "glimpse-document-*.pdf")
	if err != nil {
		return nil, fmt.Errorf("writing the PDF for its reader: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(body); err != nil {
		f.Close()
		return nil, fmt.Errorf("writing the PDF for its reader: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("writing the PDF for its reader: %w", err)
	}
	rctx, cancel := context.WithTimeout(ctx, lim.PDFTime)
	defer cancel()
	cpu := max(int(lim.PDFTime/time.Second), 1)
	cmd := exec.CommandContext(rctx, "/bin/sh", "-c", `ulimit -v "$1" && ulimit -t "$2" && shift 2 && exec "$@"`, "sh",
		strconv.FormatInt(lim.PDFMemory>>10, 10), strconv.Itoa(cpu),
		reader, "-q", "-bbox-layout", "-enc", "UTF-8", f.Name(), "-")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{b: &stderr, left: 4 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if rctx.Err() != nil {
			return nil, bound("reading its text takes longer than %s", lim.PDFTime)
		}
		return nil, fmt.Errorf("starting the PDF reader: %w", err)
	}
	var out bytes.Buffer
	n, _ := io.Copy(&out, io.LimitReader(stdout, lim.PDFTextBytes+1))
	if n > lim.PDFTextBytes {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return nil, bound("its text runs past %d bytes, more than glimpse reads", lim.PDFTextBytes)
	}
	err = cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err() // the request's own time is up
	case rctx.Err() != nil:
		return nil, bound("reading its text takes longer than %s", lim.PDFTime)
	case err == nil:
		return out.Bytes(), nil
	}
	msg := strings.TrimSpace(stderr.String())
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			// SIGXCPU or SIGKILL past CPU time, SIGSEGV or SIGABRT when
			// the address space ran out.
			return nil, bound("reading its text passes the time or memory glimpse allows (%s)", ws.Signal())
		}
		// The reader is quiet (-q): a hostile file's errors would cost
		// more than its text. A PDF it cannot open that declares
		// encryption is locked by a password, as an open one would read.
		if strings.Contains(strings.ToLower(msg), "password") || bytes.Contains(body, []byte("/Encrypt")) {
			return nil, &Error{Kind: Encrypted, Reason: "it is a PDF protected by a password"}
		}
		if strings.Contains(msg, "std::bad_alloc") || strings.Contains(strings.ToLower(msg), "out of memory") {
			return nil, bound("reading its text needs more memory than glimpse allows")
		}
		return nil, malformed("it is not a PDF its reader can open%s", detail(msg))
	}
	return nil, fmt.Errorf("running the PDF reader: %w", err)
}

func detail(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + clean(msg, 160)
}

type limitedBuffer struct {
	b    *bytes.Buffer
	left int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.left > 0 {
		n := min(len(p), l.left)
		l.b.Write(p[:n])
		l.left -= n
	}
	return len(p), nil
}

// pdfLang is the document's /Lang when its catalog is written where it
// can be read without decompressing.
var langRe = regexp.MustCompile(`/Lang\s*\(([A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*)\)`)

func pdfLang(body []byte) string {
	if m := langRe.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}

type pdfWord struct {
	x0, y0, x1, y1 float64
	text           string
}

type pdfLine struct {
	words []pdfWord
	block int // the reader's block, for paragraphs
}

func (l *pdfLine) x0() float64     { return l.words[0].x0 }
func (l *pdfLine) x1() float64     { return l.words[len(l.words)-1].x1 }
func (l *pdfLine) y0() float64     { return l.words[0].y0 }
func (l *pdfLine) height() float64 { return l.words[0].y1 - l.words[0].y0 }
func (l *pdfLine) text() string {
	parts := make([]string, len(l.words))
	for i, w := range l.words {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

type pdfPage struct {
	lines  []*pdfLine
	height float64 // in points, as the words' boxes are
}

// parseBBox reads the reader's XHTML: its head's properties, and each
// page's lines of boxed words.
func parseBBox(x *xmlReader) ([]*pdfPage, *Document, error) {
	d := &Document{}
	var pages []*pdfPage
	var line *pdfLine
	var word *pdfWord
	block := 0
	inTitle := false
	for {
		tok, err := x.next()
		if err == io.EOF {
			return pages, d, nil
		}
		if err != nil {
			return nil, nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "title":
				inTitle = true
			case "meta":
				v := attr(t, "content")
				switch attr(t, "name") {
				case "Author":
					d.Author = v
				case "CreationDate":
					d.Created = parseDocDate(v)
				case "ModDate":
					d.Modified = parseDocDate(v)
				}
			case "page":
				pages = append(pages, &pdfPage{height: num(attr(t, "height"))})
			case "block":
				block++
			case "line":
				line = &pdfLine{block: block}
			case "word":
				word = &pdfWord{x0: num(attr(t, "xMin")), y0: num(attr(t, "yMin")), x1: num(attr(t, "xMax")), y1: num(attr(t, "yMax"))}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "title":
				inTitle = false
			case "word":
				if word != nil && line != nil && strings.TrimSpace(word.text) != "" {
					line.words = append(line.words, *word)
				}
				word = nil
			case "line":
				if line != nil && len(line.words) > 0 && len(pages) > 0 {
					p := pages[len(pages)-1]
					p.lines = append(p.lines, line)
				}
				line = nil
			}
		case xml.CharData:
			switch {
			case word != nil:
				word.text += string(t)
			case inTitle && len(d.Title) < maxProperty*4:
				d.Title += string(t)
			}
		}
	}
}

func num(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
