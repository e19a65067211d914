package meta

import (
	"bytes"
	"mime"
	"net/url"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxFileTitle bounds a title taken from a file's name or its own
// metadata: both are the target's to choose.
const maxFileTitle = 300

// FileName is the name a file target goes by: the filename its server
// gives in Content-Disposition, else the last segment of the URL path,
// percent-decoded, extension kept (as a browser would save it), else the
// host. It is the title of a file that names none itself.
func FileName(u *url.URL, disposition string) string {
	if _, params, err := mime.ParseMediaType(disposition); err == nil {
		// mime decodes filename* (RFC 5987) into filename.
		if name := cleanFileName(params["filename"]); name != "" {
			return name
		}
	}
	if u == nil {
		return ""
	}
	if name := cleanFileName(path.Base(u.Path)); name != "" && name != "/" && name != "." {
		return name
	}
	return u.Hostname()
}

// cleanFileName keeps the last path segment of a name, without control
// characters, within maxFileTitle.
func cleanFileName(s string) string {
	s = strings.ReplaceAll(s, `\`, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return clipRunes(strings.TrimSpace(s), maxFileTitle)
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	// A cut that ends in white space would leave it at the end.
	return strings.TrimRightFunc(string([]rune(s)[:n]), unicode.IsSpace)
}

// PDFInfo reads a PDF's own title and author from the first bytes of the
// file: the document information dictionary (/Title, /Author) when it is
// written uncompressed there, else the XMP packet's dc:title and
// dc:creator. Either comes back empty when the prefix does not hold it;
// nothing here decompresses, so a crafted file costs no more than its
// prefix.
func PDFInfo(head []byte) (title, author string) {
	// The header may follow some junk, within the first kilobyte.
	if !bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")) {
		return "", ""
	}
	for _, dict := range infoDicts(head) {
		if title == "" {
			title = pdfStringAfter(dict, "/Title")
		}
		if author == "" {
			author = pdfStringAfter(dict, "/Author")
		}
	}
	if title == "" {
		title = xmpValue(head, "dc:title")
	}
	if author == "" {
		author = xmpValue(head, "dc:creator")
	}
	return clipRunes(strings.TrimSpace(title), maxFileTitle), clipRunes(strings.TrimSpace(author), maxFileTitle)
}

// infoDicts are the dictionaries of head that look like a document
// information dictionary: with a title or author and a producer, creator
// or date beside it. Outline entries carry /Title too, but with /Parent.
// Only dictionaries that hold no other are read, as an information
// dictionary holds none: each byte of head is then looked at a bounded
// number of times, so deeply nested `<<` cost one pass, not one pass per
// level.
func infoDicts(head []byte) [][]byte {
	var out [][]byte
	forEachLeafDict(head, func(d []byte) bool {
		if (bytes.Contains(d, []byte("/Title")) || bytes.Contains(d, []byte("/Author"))) &&
			!bytes.Contains(d, []byte("/Parent")) &&
			(bytes.Contains(d, []byte("/Producer")) || bytes.Contains(d, []byte("/Creator")) ||
				bytes.Contains(d, []byte("/CreationDate")) || bytes.Contains(d, []byte("/ModDate"))) {
			out = append(out, d)
		}
		return len(out) < 8
	})
	return out
}

// maxDictDepth bounds the open dictionaries remembered; deeper ones are
// counted, never read.
const maxDictDepth = 32

// forEachLeafDict calls visit with each complete dictionary of head that
// holds no other, in the order they close, skipping literal strings inside
// dictionaries, until visit returns false or a literal runs past head.
func forEachLeafDict(head []byte, visit func(d []byte) bool) {
	type open struct {
		start  int
		parent bool // holds another dictionary
	}
	var stack []open // the open dictionaries, up to maxDictDepth
	depth := 0       // all open dictionaries
	for i := 0; i+1 < len(head); i++ {
		switch {
		case head[i] == '(' && depth > 0:
			_, n := pdfLiteral(head[i:])
			if n <= 0 {
				return
			}
			i += n - 1
		case head[i] == '<' && head[i+1] == '<':
			if len(stack) > 0 && len(stack) == depth {
				stack[len(stack)-1].parent = true
			}
			if depth == len(stack) && depth < maxDictDepth {
				stack = append(stack, open{start: i})
			}
			depth++
			i++
		case head[i] == '>' && head[i+1] == '>' && depth > 0:
			depth--
			i++
			if depth < len(stack) {
				o := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if !o.parent && !visit(head[o.start:i+1]) {
					return
				}
			}
		}
	}
}

// pdfStringAfter is the string value of key in dict: a literal (…) or a
// hex <…> string, decoded.
func pdfStringAfter(dict []byte, key string) string {
	i := bytes.Index(dict, []byte(key))
	for i >= 0 {
		rest := dict[i+len(key):]
		// /Title must not match /TitleSomething.
		if len(rest) > 0 && !isPDFDelimiter(rest[0]) {
			j := bytes.Index(rest, []byte(key))
			if j < 0 {
				return ""
			}
			i += len(key) + j
			continue
		}
		rest = bytes.TrimLeft(rest, " \t\r\n\f\x00")
		switch {
		case len(rest) > 0 && rest[0] == '(':
			raw, n := pdfLiteral(rest)
			if n <= 0 {
				return ""
			}
			return decodePDFText(raw)
		case len(rest) > 1 && rest[0] == '<' && rest[1] != '<':
			end := bytes.IndexByte(rest, '>')
			if end < 0 {
				return ""
			}
			return decodePDFText(pdfHex(rest[1:end]))
		}
		return ""
	}
	return ""
}

func isPDFDelimiter(c byte) bool {
	return strings.IndexByte(" \t\r\n\f\x00()<>[]{}/%", c) >= 0
}

// pdfLiteral decodes the literal string at the start of b and returns its
// bytes and the length it took in b, or n <= 0 when it does not end in b.
func pdfLiteral(b []byte) (out []byte, n int) {
	depth := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\\' && i+1 < len(b):
			i++
			switch e := b[i]; e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case '\r', '\n':
				// A line continuation.
				if e == '\r' && i+1 < len(b) && b[i+1] == '\n' {
					i++
				}
			default:
				if e >= '0' && e <= '7' {
					v := 0
					k := 0
					for ; k < 3 && i+k < len(b) && b[i+k] >= '0' && b[i+k] <= '7'; k++ {
						v = v*8 + int(b[i+k]-'0')
					}
					i += k - 1
					out = append(out, byte(v))
				} else {
					out = append(out, e)
				}
			}
		case c == '(':
			if depth > 0 {
				out = append(out, c)
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return out, i + 1
			}
			out = append(out, c)
		default:
			if depth == 0 {
				return nil, 0
			}
			out = append(out, c)
		}
	}
	return nil, 0
}

func pdfHex(h []byte) []byte {
	var digits []byte
	for _, c := range h {
		if v, ok := hexValue(c); ok {
			digits = append(digits, v)
		}
	}
	if len(digits)%2 == 1 {
		digits = append(digits, 0)
	}
	out := make([]byte, 0, len(digits)/2)
	for i := 0; i < len(digits); i += 2 {
		out = append(out, digits[i]<<4|digits[i+1])
	}
	return out
}

func hexValue(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodePDFText turns a PDF text string into UTF-8: UTF-16BE after its
// byte order mark, UTF-8 after its own, else PDFDocEncoding, read as
// Latin-1 (they differ only in rarely used punctuation).
func decodePDFText(b []byte) string {
	switch {
	case len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff:
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
		return pdfText(string(utf16.Decode(u)))
	case len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf:
		return pdfText(strings.ToValidUTF8(string(b[3:]), ""))
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return pdfText(string(r))
}

// pdfText folds white space and drops control characters.
func pdfText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

var xmpItem = regexp.MustCompile(`(?s)<rdf:li[^>]*>([^<]{1,1000})</rdf:li>`)

// xmpValue is the first item of an XMP property such as dc:title.
func xmpValue(head []byte, prop string) string {
	i := bytes.Index(head, []byte("<"+prop+">"))
	if i < 0 {
		return ""
	}
	rest := head[i:]
	end := bytes.Index(rest, []byte("</"+prop+">"))
	if end < 0 {
		return ""
	}
	m := xmpItem.FindSubmatch(rest[:end])
	if m == nil {
		return ""
	}
	return pdfText(xmlUnescape(strings.ToValidUTF8(string(m[1]), "")))
}

var xmlEntities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&")

func xmlUnescape(s string) string { return xmlEntities.Replace(s) }
