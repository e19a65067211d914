package document

import (
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// readDOCX reads a Word document: headings by their style's outline
// level, paragraphs, lists by their numbering, tables, links.
func readDOCX(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	a, b, main, rels, err := openOOXML(ctx, body, lim, "Word document", "word/document.xml")
	if err != nil {
		return nil, err
	}
	dx := &docx{b: b, rels: rels, w: &writer{bud: b}}
	dx.lists.w = dx.w
	if dx.headings, err = docxStyles(a, b, rels); err != nil {
		return nil, err
	}
	if dx.ordered, err = docxNumbering(a, b, rels); err != nil {
		return nil, err
	}
	d := &Document{}
	if err := readCoreProperties(a, b, d); err != nil {
		return nil, err
	}
	data, err := a.read(main)
	if err != nil {
		return nil, err
	}
	if err := dx.body(b.xml(data)); err != nil {
		return nil, err
	}
	d.HTML, d.Cut = dx.w.b.String(), dx.w.cut
	return d, nil
}

type docx struct {
	b        *budget
	rels     map[string]rel
	headings map[string]int  // style id → heading level, 1 to 6
	ordered  map[string]bool // "numId/ilvl" → numbered rather than bulleted
	w        *writer
	lists    lists
}

// docxStyles maps paragraph style ids to heading levels: the Title style
// is level 1, a style named "heading N" or with outline level N-1 is N.
func docxStyles(a *archive, b *budget, rels map[string]rel) (map[string]int, error) {
	out := map[string]int{"Title": 1}
	for i := 1; i <= 6; i++ {
		out["Heading"+strconv.Itoa(i)] = i
	}
	name := relTarget(rels, "/styles", "word/styles.xml")
	if !a.has(name) {
		return out, nil
	}
	data, err := a.read(name)
	if err != nil {
		return nil, err
	}
	x := b.xml(data)
	id := ""
	for {
		tok, err := x.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "style":
			id = ""
			if attr(se, "type") == "paragraph" {
				id = attr(se, "styleId")
			}
		case "name":
			if id == "" {
				continue
			}
			n := strings.ToLower(attr(se, "val"))
			if n == "title" {
				out[id] = 1
			} else if lvl, ok := strings.CutPrefix(n, "heading "); ok {
				if l, err := strconv.Atoi(lvl); err == nil && l >= 1 {
					out[id] = min(l, 6)
				}
			}
		case "outlineLvl":
			if l, err := strconv.Atoi(attr(se, "val")); err == nil && id != "" && l >= 0 && l < 9 {
				out[id] = min(l+1, 6)
			}
		}
	}
}

// docxNumbering says which list levels are numbered: "numId/ilvl" → true
// unless the level's format is a bullet.
func docxNumbering(a *archive, b *budget, rels map[string]rel) (map[string]bool, error) {
	out := map[string]bool{}
	name := relTarget(rels, "/numbering", "word/numbering.xml")
	if !a.has(name) {
		return out, nil
	}
	data, err := a.read(name)
	if err != nil {
		return nil, err
	}
	x := b.xml(data)
	abstract := map[string]map[string]bool{} // abstractNumId → ilvl → ordered
	var cur map[string]bool
	lvl := ""
	nums := map[string]string{} // numId → abstractNumId
	num := ""
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
		case "abstractNum":
			cur = map[string]bool{}
			abstract[attr(se, "abstractNumId")] = cur
		case "lvl":
			lvl = attr(se, "ilvl")
		case "numFmt":
			if cur != nil {
				v := attr(se, "val")
				cur[lvl] = v != "bullet" && v != "none" && v != ""
			}
		case "num":
			num = attr(se, "numId")
		case "abstractNumId":
			nums[num] = attr(se, "val")
		}
	}
	for n, abs := range nums {
		for l, o := range abstract[abs] {
			out[n+"/"+l] = o
		}
	}
	return out, nil
}

func relTarget(rels map[string]rel, typeSuffix, fallback string) string {
	for _, r := range rels {
		if strings.HasSuffix(r.typ, typeSuffix) {
			return r.target
		}
	}
	return fallback
}

// body writes the document's block content in order.
func (dx *docx) body(x *xmlReader) error {
	for {
		tok, err := x.next()
		if err == io.EOF {
			dx.lists.end()
			return nil
		}
		if err != nil {
			return err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "p":
			p, err := dx.para(x)
			if err != nil {
				return err
			}
			dx.writePara(p)
		case "tbl":
			dx.lists.end()
			rows, err := dx.table(x)
			if err != nil {
				return err
			}
			dx.w.table(rows)
		case "sectPr", "pPr", "rPr", "drawing", "pict", "object", "instrText":
			if err := x.skip(); err != nil {
				return err
			}
		}
	}
}

// docxPara is one paragraph: its inline HTML and what its properties say.
type docxPara struct {
	html    string
	style   string
	outline int // 1 to 9, from an explicit outline level; 0 when none
	numID   string
	ilvl    string
}

func (dx *docx) writePara(p docxPara) {
	level := dx.headings[p.style]
	if p.outline > 0 {
		level = min(p.outline, 6)
	}
	switch {
	case p.numID != "" && p.numID != "0" && level == 0:
		l, _ := strconv.Atoi(p.ilvl)
		dx.lists.item(l, dx.ordered[p.numID+"/"+p.ilvl], p.html)
	case level > 0:
		dx.lists.end()
		dx.w.block("h"+strconv.Itoa(level), p.html)
	default:
		dx.lists.end()
		dx.w.block("p", p.html)
	}
}

// para reads one w:p: its properties and its runs, hyperlinks kept.
func (dx *docx) para(x *xmlReader) (docxPara, error) {
	var p docxPara
	var out, link inline
	href := ""
	inLink, inText, inPPr := false, false, false
	cur := &out
	for depth := 1; depth > 0; {
		tok, err := x.next()
		if err != nil {
			return p, eofIsMalformed(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "pPr":
				inPPr = true
			case "pStyle":
				if inPPr {
					p.style = attr(t, "val")
				}
			case "outlineLvl":
				if l, err := strconv.Atoi(attr(t, "val")); err == nil && inPPr && l >= 0 && l < 9 {
					p.outline = l + 1
				}
			case "numId":
				if inPPr {
					p.numID = attr(t, "val")
				}
			case "ilvl":
				if inPPr {
					p.ilvl = attr(t, "val")
				}
			case "hyperlink":
				href = ""
				if r, ok := dx.rels[relID(t)]; ok {
					href = r.target
				}
				inLink, link = true, inline{}
				cur = &link
			case "t":
				inText = true
			case "tab":
				cur.text(" ")
			case "br", "cr":
				cur.br()
			case "rPr", "drawing", "pict", "object", "instrText", "delText", "footnoteReference":
				if err := x.skip(); err != nil {
					return p, err
				}
				depth--
			}
		case xml.EndElement:
			depth--
			switch t.Name.Local {
			case "pPr":
				inPPr = false
			case "t":
				inText = false
			case "hyperlink":
				if inLink {
					out.link(href, link.String())
					inLink, cur = false, &out
				}
			}
		case xml.CharData:
			if inText {
				cur.text(string(t))
			}
		}
	}
	if inLink {
		out.link(href, link.String())
	}
	p.html = out.String()
	return p, nil
}

// table reads one w:tbl into rows of cells; a table inside a cell is
// flattened into that cell's text.
func (dx *docx) table(x *xmlReader) ([][]string, error) {
	var rows [][]string
	nested := 0
	for depth := 1; depth > 0; {
		tok, err := x.next()
		if err != nil {
			return nil, eofIsMalformed(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "tbl":
				nested++
			case "tr":
				if nested == 0 {
					rows = append(rows, nil)
				}
			case "tc":
				if nested == 0 && len(rows) > 0 {
					rows[len(rows)-1] = append(rows[len(rows)-1], "")
				}
			case "p":
				p, err := dx.para(x)
				if err != nil {
					return nil, err
				}
				depth--
				if len(rows) > 0 && len(rows[len(rows)-1]) > 0 {
					r := rows[len(rows)-1]
					if r[len(r)-1] != "" && strings.TrimSpace(p.html) != "" {
						r[len(r)-1] += "<br>"
					}
					r[len(r)-1] += strings.TrimSpace(p.html)
				}
			case "tblPr", "tblGrid", "trPr", "tcPr":
				if err := x.skip(); err != nil {
					return nil, err
				}
				depth--
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "tbl" && nested > 0 {
				nested--
			}
		}
	}
	return rows, nil
}
