package document

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
)

// readPPTX reads a PowerPoint presentation: each slide in order, its
// title a heading, its text boxes paragraphs, its tables tables, slides
// apart by a page break.
func readPPTX(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	a, b, main, rels, err := openOOXML(ctx, body, lim, "PowerPoint presentation", "ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	data, err := a.read(main)
	if err != nil {
		return nil, err
	}
	var slides []string
	x := b.xml(data)
	for {
		tok, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sldId" {
			if r, ok := rels[relID(se)]; ok {
				slides = append(slides, r.target)
			}
		}
	}
	d := &Document{Pages: len(slides)}
	if err := readCoreProperties(a, b, d); err != nil {
		return nil, err
	}
	w := &writer{bud: b}
	for i, part := range slides {
		if w.full() || !a.has(part) {
			continue
		}
		if i > 0 {
			w.pageBreak(i + 1)
		}
		srels, err := ooxmlRels(a, b, relsOf(part), part)
		if err != nil {
			return nil, err
		}
		data, err := a.read(part)
		if err != nil {
			return nil, err
		}
		if err := pptxSlide(b.xml(data), srels, w); err != nil {
			return nil, err
		}
	}
	d.HTML, d.Cut = w.b.String(), w.cut
	return d, nil
}

// pptxSlide writes one slide's shapes in document order.
func pptxSlide(x *xmlReader, rels map[string]rel, w *writer) error {
	title := false
	var para, run inline
	href := ""
	inText := false
	var rows [][]string
	inTable := false
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
			switch t.Name.Local {
			case "sp":
				title = false
			case "ph":
				ph := attr(t, "type")
				title = ph == "title" || ph == "ctrTitle"
			case "p":
				para = inline{}
			case "r", "fld":
				run, href = inline{}, ""
			case "hlinkClick":
				if r, ok := rels[relID(t)]; ok {
					href = r.target
				}
			case "t":
				inText = true
			case "br":
				para.br()
			case "tbl":
				inTable, rows = true, nil
			case "tr":
				rows = append(rows, nil)
			case "tc":
				if len(rows) > 0 {
					rows[len(rows)-1] = append(rows[len(rows)-1], "")
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				inText = false
			case "r", "fld":
				if href != "" {
					para.link(href, run.String())
				} else {
					para.b.WriteString(run.String())
				}
			case "p":
				p := strings.TrimSpace(para.String())
				switch {
				case inTable && len(rows) > 0 && len(rows[len(rows)-1]) > 0:
					r := rows[len(rows)-1]
					if r[len(r)-1] != "" && p != "" {
						r[len(r)-1] += "<br>"
					}
					r[len(r)-1] += p
				case title:
					w.block("h2", p)
				default:
					w.block("p", p)
				}
			case "tbl":
				inTable = false
				w.table(rows)
			}
		case xml.CharData:
			if inText {
				run.text(string(t))
			}
		}
	}
}
