package render

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// File is a target that is a file rather than a page: a PDF, an image, a
// video, an archive. What is known of it comes from its response headers
// and, when glimpse fetched it itself, from its first bytes.
type File struct {
	MediaType    string // lower case, without parameters: "application/pdf"
	Size         int64  // from Content-Length; -1 when unknown
	Disposition  string // the Content-Disposition header, for the file's name
	LastModified string // the Last-Modified header
	// Head is at most maxFileHead bytes of the body (MaxDocumentBytes of
	// a document's); nil when the browser fetched the file, whose bytes
	// glimpse never sees.
	Head []byte
	// Whole says Head is the whole file: a document read within
	// MaxDocumentBytes.
	Whole bool
	// Shown says the browser displays the file (an image, a video), so it
	// can be printed or captured like a page; a file it only downloads
	// cannot.
	Shown bool
}

// maxFileHead bounds what is read of a file target: enough for an image's
// dimensions and a PDF's information dictionary when it comes early, never
// the whole file.
const maxFileHead = 256 << 10

// MaxDocumentBytes bounds a document target (a PDF, a Word file) read
// whole for its text: the bound a page's own bytes have.
const MaxDocumentBytes = maxStaticBytes

// isFileType reports whether a response of media type mt is a file rather
// than something the browser reads as a page (HTML, XML, text, JSON).
// Without a type the browser sniffs, so it is not treated as a file.
func isFileType(mt string) bool {
	mt = strings.ToLower(mt)
	switch {
	case mt == "":
		return false
	case mt == "image/svg+xml":
		return true // an image, though the browser shows it as a document
	case strings.HasPrefix(mt, "text/"),
		mt == "application/xhtml+xml", mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/javascript", mt == "application/ecmascript":
		return false
	}
	return true
}

// fileOf describes a file target from its headers; get reads a header by
// its name.
func fileOf(mediaType string, get func(string) string) *File {
	mt, _, err := mime.ParseMediaType(mediaType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(mediaType, ";")[0]))
	}
	return &File{MediaType: mt, Size: BodySize(get), Disposition: get("content-disposition"), LastModified: get("last-modified")}
}

// BodySize is the length of a response's file from its headers (get reads
// one by name); -1 when they do not tell it. A compressed body's length is
// not the file's.
func BodySize(get func(string) string) int64 {
	if cl := strings.TrimSpace(get("content-length")); cl != "" && get("content-encoding") == "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			return n
		}
	}
	return -1
}

// readHead reads the first bytes of a file target's body, at most
// limit; the rest is never transferred past what the connection already
// buffered. whole says the body ended within limit.
func readHead(resp *http.Response, limit int) (head []byte, whole bool, err error) {
	if limit > maxFileHead {
		// A document is read whole when it fits: grown as it comes, so a
		// short one costs what it holds.
		var buf bytes.Buffer
		n, err := io.Copy(&buf, io.LimitReader(resp.Body, int64(limit)+1))
		if n > int64(limit) {
			return buf.Bytes()[:limit], false, err
		}
		return buf.Bytes(), err == nil, err
	}
	head = make([]byte, limit)
	n, err := io.ReadFull(resp.Body, head)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return head[:n], true, nil
	}
	return head[:n], false, err
}
