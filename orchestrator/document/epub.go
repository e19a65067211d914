package document

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
)

// readEPUB reads an e-book: its chapters in spine order as they are
// written (XHTML), kept to the semantic elements; properties from the
// package document.
func readEPUB(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	a, err := openArchive(body, lim)
	if err != nil {
		return nil, err
	}
	b := &budget{ctx: ctx, lim: lim}
	if !a.has("META-INF/container.xml") {
		return nil, malformed("it is no e-book: its archive has no META-INF/container.xml")
	}
	data, err := a.read("META-INF/container.xml")
	if err != nil {
		return nil, err
	}
	opf := ""
	x := b.xml(data)
	for opf == "" {
		tok, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rootfile" {
			opf = resolve("", attr(se, "full-path"))
		}
	}
	if opf == "" || !a.has(opf) {
		return nil, malformed("its container names no package document")
	}
	if data, err = a.read(opf); err != nil {
		return nil, err
	}
	d := &Document{}
	if err := readDublinCore(b.xml(data), d, false); err != nil {
		return nil, err
	}
	// The manifest and spine: which files, in which order.
	items := map[string]string{}
	var spine []string
	x = b.xml(data)
	for {
		tok, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "item":
			if mt := attr(se, "media-type"); mt == "application/xhtml+xml" || mt == "text/html" {
				items[attr(se, "id")] = resolve(opf, attr(se, "href"))
			}
		case "itemref":
			spine = append(spine, attr(se, "idref"))
		}
	}
	w := &writer{bud: b}
	for _, id := range spine {
		part, ok := items[id]
		if !ok || !a.has(part) || w.full() {
			continue
		}
		data, err := a.read(part)
		if err != nil {
			return nil, err
		}
		if err := xhtmlBody(b.xml(data), w); err != nil {
			return nil, err
		}
		d.Pages++
	}
	d.HTML, d.Cut = w.b.String(), w.cut
	return d, nil
}

// kept are the elements an e-book's XHTML keeps; any other is
// transparent (its content stays), and dropped ones go with their content.
var (
	kept = map[string]bool{
		"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "p": true,
		"ul": true, "ol": true, "li": true, "dl": true, "dt": true, "dd": true,
		"table": true, "thead": true, "tbody": true, "tr": true, "td": true, "th": true,
		"blockquote": true, "pre": true, "code": true, "em": true, "strong": true, "b": true, "i": true,
		"br": true, "hr": true, "a": true, "figcaption": true,
	}
	dropped = map[string]bool{"head": true, "script": true, "style": true, "svg": true, "math": true, "template": true, "noscript": true}
	void    = map[string]bool{"br": true, "hr": true}
)

// xhtmlBody writes a chapter's body with only the kept elements, no
// attributes but a link's web address.
func xhtmlBody(x *xmlReader, w *writer) error {
	type open struct {
		name string
		kept bool
	}
	var stack []open
	for {
		tok, err := x.next()
		if err == io.EOF {
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].kept {
					w.raw("</" + stack[i].name + ">")
				}
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(t.Name.Local)
			if dropped[name] {
				if err := x.skip(); err != nil {
					return err
				}
				continue
			}
			k := kept[name]
			if k {
				switch {
				case name == "a":
					href := attr(t, "href")
					if !safeHref(href) {
						k = false
						break
					}
					w.raw(`<a href="` + escapeAttr(href) + `">`)
				case name == "td" || name == "th":
					w.cells++
					if w.cells > w.bud.lim.MaxCells {
						w.cut = true
					}
					w.raw("<" + name + ">")
				default:
					w.raw("<" + name + ">")
				}
			}
			if void[name] {
				k = false
			}
			stack = append(stack, open{name, k})
		case xml.EndElement:
			name := strings.ToLower(t.Name.Local)
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].name != name {
					continue
				}
				for j := len(stack) - 1; j >= i; j-- {
					if stack[j].kept {
						w.raw("</" + stack[j].name + ">")
						if blockish(stack[j].name) {
							w.raw("\n")
						}
					}
				}
				stack = stack[:i]
				break
			}
		case xml.CharData:
			var in inline
			in.text(string(t))
			w.raw(in.String())
		}
	}
}

func blockish(name string) bool {
	switch name {
	case "a", "em", "strong", "b", "i", "code", "td", "th":
		return false
	}
	return true
}

func escapeAttr(s string) string {
	var in inline
	in.text(s)
	return in.String()
}
