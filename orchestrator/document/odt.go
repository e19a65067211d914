package document

import (
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// readODT reads an OpenDocument text: headings by outline level,
// paragraphs, lists, tables, links; properties from meta.xml.
func readODT(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	a, err := openArchive(body, lim)
	if err != nil {
		return nil, err
	}
	b := &budget{ctx: ctx, lim: lim}
	if !a.has("content.xml") {
		return nil, malformed("it is no OpenDocument text: its archive has no content.xml")
	}
	d := &Document{}
	if a.has("meta.xml") {
		data, err := a.read("meta.xml")
		if err != nil {
			return nil, err
		}
		if err := readDublinCore(b.xml(data), d, true); err != nil {
			return nil, err
		}
	}
	data, err := a.read("content.xml")
	if err != nil {
		return nil, err
	}
	w := &writer{bud: b}
	if err := odtBody(b.xml(data), w); err != nil {
		return nil, err
	}
	d.HTML, d.Cut = w.b.String(), w.cut
	return d, nil
}

// odtBody writes office:text. Inline content is gathered per paragraph;
// lists nest as the XML nests them; a table's paragraphs go into its
// cells.
func odtBody(x *xmlReader, w *writer) error {
	type para struct {
		tag string
		in  inline
	}
	var stack []*para // open paragraphs and headings (notes nest them)
	var hrefs []string
	var links []*inline
	listDepth := 0
	var tables [][][]string // open tables, innermost last
	inBody := false
	cur := func() *inline {
		if len(links) > 0 {
			return links[len(links)-1]
		}
		if len(stack) > 0 {
			return &stack[len(stack)-1].in
		}
		return nil
	}
	for {
		tok, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "text" && !inBody && len(stack) == 0 {
				inBody = true
				continue
			}
			if !inBody {
				continue
			}
			switch t.Name.Local {
			case "h":
				lvl, _ := strconv.Atoi(attr(t, "outline-level"))
				stack = append(stack, &para{tag: "h" + strconv.Itoa(min(max(lvl, 1), 6))})
			case "p":
				stack = append(stack, &para{tag: "p"})
			case "list":
				if len(tables) == 0 {
					listDepth++
					w.raw("<ul>\n")
				}
			case "list-item":
				if len(tables) == 0 {
					w.raw("<li>")
				}
			case "a":
				hrefs = append(hrefs, attr(t, "href"))
				links = append(links, &inline{})
			case "s", "tab":
				if c := cur(); c != nil {
					c.text(" ")
				}
			case "line-break":
				if c := cur(); c != nil {
					c.br()
				}
			case "note", "annotation", "tracked-changes", "sequence-decls":
				if err := x.skip(); err != nil {
					return err
				}
			case "table":
				tables = append(tables, nil)
			case "table-row":
				if n := len(tables); n > 0 {
					tables[n-1] = append(tables[n-1], nil)
				}
			case "table-cell":
				if n := len(tables); n > 0 && len(tables[n-1]) > 0 {
					r := &tables[n-1][len(tables[n-1])-1]
					*r = append(*r, "")
				}
			}
		case xml.EndElement:
			if !inBody {
				continue
			}
			switch t.Name.Local {
			case "a":
				if n := len(links); n > 0 {
					l, href := links[n-1], hrefs[n-1]
					links, hrefs = links[:n-1], hrefs[:n-1]
					if c := cur(); c != nil {
						c.link(href, l.String())
					}
				}
			case "h", "p":
				if len(stack) == 0 {
					continue
				}
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				text := strings.TrimSpace(p.in.String())
				switch {
				case len(stack) > 0:
					stack[len(stack)-1].in.b.WriteString(" " + text)
				case len(tables) > 0:
					tb := tables[len(tables)-1]
					if len(tb) > 0 && len(tb[len(tb)-1]) > 0 {
						r := tb[len(tb)-1]
						if r[len(r)-1] != "" && text != "" {
							r[len(r)-1] += "<br>"
						}
						r[len(r)-1] += text
					}
				case listDepth > 0:
					w.raw(text)
				default:
					w.block(p.tag, text)
				}
			case "list-item":
				if len(tables) == 0 {
					w.raw("</li>\n")
				}
			case "list":
				if len(tables) == 0 && listDepth > 0 {
					listDepth--
					w.raw("</ul>\n")
				}
			case "table":
				if n := len(tables); n > 0 {
					rows := tables[n-1]
					tables = tables[:n-1]
					if n == 1 {
						w.table(rows)
					}
				}
			case "text":
				if len(stack) == 0 {
					inBody = false
				}
			}
		case xml.CharData:
			if c := cur(); c != nil {
				c.text(strings.ReplaceAll(string(t), "\n", " "))
			}
		}
	}
}
