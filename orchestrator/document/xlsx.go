package document

import (
	"context"
	"encoding/xml"
	"html"
	"io"
	"strings"
)

// readXLSX reads an Excel workbook: one table per sheet, under the
// sheet's name, its first row the header. Cells are placed by their
// reference, so a sheet whose few cells name far-apart places costs what
// it holds, not the grid between them.
func readXLSX(ctx context.Context, body []byte, lim Limits) (*Document, error) {
	a, b, main, rels, err := openOOXML(ctx, body, lim, "Excel workbook", "xl/workbook.xml")
	if err != nil {
		return nil, err
	}
	shared, err := xlsxShared(a, b, relTarget(rels, "/sharedStrings", "xl/sharedStrings.xml"))
	if err != nil {
		return nil, err
	}
	data, err := a.read(main)
	if err != nil {
		return nil, err
	}
	type sheet struct{ name, part string }
	var sheets []sheet
	x := b.xml(data)
	for {
		tok, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sheet" {
			if r, ok := rels[relID(se)]; ok {
				sheets = append(sheets, sheet{attr(se, "name"), r.target})
			}
		}
	}
	d := &Document{Pages: len(sheets)}
	if err := readCoreProperties(a, b, d); err != nil {
		return nil, err
	}
	w := &writer{bud: b}
	for _, s := range sheets {
		if w.full() || !a.has(s.part) {
			continue
		}
		data, err := a.read(s.part)
		if err != nil {
			return nil, err
		}
		rows, cut, err := xlsxRows(b.xml(data), shared, lim.MaxColumns, lim.MaxCells-w.cells)
		if err != nil {
			return nil, err
		}
		w.block("h2", html.EscapeString(s.name))
		w.table(rows)
		if cut {
			w.cut = true
		}
	}
	d.HTML, d.Cut = w.b.String(), w.cut
	return d, nil
}

// xlsxShared reads the shared strings table: each item's text, rich runs
// joined.
func xlsxShared(a *archive, b *budget, name string) ([]string, error) {
	if !a.has(name) {
		return nil, nil
	}
	data, err := a.read(name)
	if err != nil {
		return nil, err
	}
	var out []string
	var cur strings.Builder
	inT, inPhonetic := false, false
	x := b.xml(data)
	for {
		tok, err := x.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "t":
				inT = true
			case "rPh":
				inPhonetic = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				out = append(out, cur.String())
			case "t":
				inT = false
			case "rPh":
				inPhonetic = false
			}
		case xml.CharData:
			if inT && !inPhonetic {
				cur.Write(t)
			}
		}
	}
}

// xlsxRows reads a worksheet's rows as escaped cell HTML, within maxCols
// columns and maxCells cells; cut says a bound ended it. Empty rows and
// trailing empty columns are left out.
func xlsxRows(x *xmlReader, shared []string, maxCols, maxCells int) (rows [][]string, cut bool, err error) {
	var row []string
	cells := 0
	typ, col := "", 0
	var val strings.Builder
	inV := false
	used := 0 // columns in use across rows
	for {
		tok, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row = nil
			case "c":
				typ, col = attr(t, "t"), columnOf(attr(t, "r"), len(row))
				val.Reset()
			case "v", "t":
				inV = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inV = false
			case "c":
				if col >= maxCols {
					cut = true
					continue
				}
				v := val.String()
				if typ == "s" {
					v = ""
					if i, ok := atoiSmall(strings.TrimSpace(val.String())); ok && i < len(shared) {
						v = shared[i]
					}
				} else if typ == "b" {
					v = map[string]string{"1": "TRUE", "0": "FALSE"}[strings.TrimSpace(v)]
				}
				if strings.TrimSpace(v) == "" {
					continue
				}
				for len(row) <= col {
					row = append(row, "")
				}
				row[col] = strings.ReplaceAll(html.EscapeString(strings.TrimSpace(v)), "\n", "<br>")
				used = max(used, col+1)
			case "row":
				if len(row) == 0 {
					continue
				}
				cells += used
				if cells > maxCells {
					return trimColumns(rows, used), true, nil
				}
				rows = append(rows, row)
			}
		case xml.CharData:
			if inV {
				val.Write(t)
			}
		}
	}
	return trimColumns(rows, used), cut, nil
}

func trimColumns(rows [][]string, used int) [][]string {
	for i, r := range rows {
		if len(r) < used {
			rows[i] = append(r, make([]string, used-len(r))...)
		}
	}
	return rows
}

// columnOf is the zero-based column of a cell reference ("C7" is 2);
// without a usable reference, the cell follows the one before it.
func columnOf(ref string, next int) int {
	n := 0
	letters := 0
	for _, c := range ref {
		if c >= 'A' && c <= 'Z' {
			n = n*26 + int(c-'A'+1)
			letters++
			if letters > 3 {
				return next
			}
			continue
		}
		break
	}
	if letters == 0 {
		return next
	}
	return n - 1
}

func atoiSmall(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
