package document

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// budget is what reading one document may still spend across its parts:
// XML tokens, HTML bytes and table cells.
type budget struct {
	ctx    context.Context
	lim    Limits
	tokens int
}

// xmlReader reads one XML part within the document's budget and its
// nesting bound. encoding/xml expands no entity a document declares, but
// a declared entity still means a document built to be expanded, as no
// office format writes one: such a part is refused.
type xmlReader struct {
	d     *xml.Decoder
	b     *budget
	depth int
}

func (b *budget) xml(data []byte) *xmlReader {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") || strings.EqualFold(label, "us-ascii") {
			return r, nil
		}
		return nil, malformed("it declares the character set %q, which glimpse does not read in XML", clean(label, 40))
	}
	return &xmlReader{d: d, b: b}
}

// next is the next token, copied so it outlives the following call; it
// ends with io.EOF.
func (x *xmlReader) next() (xml.Token, error) {
	x.b.tokens++
	if x.b.tokens > x.b.lim.MaxTokens {
		return nil, bound("it holds more than %d XML tokens", x.b.lim.MaxTokens)
	}
	if x.b.tokens&4095 == 0 {
		if err := x.b.ctx.Err(); err != nil {
			return nil, err
		}
	}
	tok, err := x.d.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return nil, malformed("its XML is broken at line %d: %s", se.Line, clean(se.Msg, 120))
		}
		return nil, err
	}
	switch t := tok.(type) {
	case xml.StartElement:
		x.depth++
		if x.depth > x.b.lim.MaxDepth {
			return nil, bound("its XML nests deeper than %d elements", x.b.lim.MaxDepth)
		}
	case xml.EndElement:
		x.depth--
	case xml.Directive:
		if bytes.Contains(t, []byte("ENTITY")) {
			return nil, bound("its XML declares entities, which glimpse does not expand")
		}
	}
	return xml.CopyToken(tok), nil
}

// skip reads past the end of the element just started.
func (x *xmlReader) skip() error {
	for depth := 1; depth > 0; {
		tok, err := x.next()
		if err != nil {
			return eofIsMalformed(err)
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

func eofIsMalformed(err error) error {
	if err == io.EOF {
		return malformed("its XML ends early")
	}
	return err
}

// attr is the value of the attribute with the local name, in any
// namespace.
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// textOf is the character data of the element just started, its
// children's included, with space collapsed.
func (x *xmlReader) textOf() (string, error) {
	var b strings.Builder
	for depth := 1; depth > 0; {
		tok, err := x.next()
		if err != nil {
			return "", eofIsMalformed(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if b.Len() < maxProperty*4 {
				b.Write(t)
			}
		}
	}
	return strings.Join(strings.Fields(b.String()), " "), nil
}

// relID is an element's relationship id (r:id): the id attribute in the
// relationships namespace, which an element may carry beside an id of
// its own.
func relID(e xml.StartElement) string {
	for _, a := range e.Attr {
		if a.Name.Local == "id" && strings.HasSuffix(a.Name.Space, "/relationships") {
			return a.Value
		}
	}
	return ""
}
