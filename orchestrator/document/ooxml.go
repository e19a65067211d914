package document

import (
	"context"
	"encoding/xml"
	"io"
	"strings"
	"time"
)

// openOOXML opens an Office Open XML package of the kind named (as in "a
// Word document") whose main part is usually fallback: its archive, the
// budget its reading spends, its main part and that part's relations.
func openOOXML(ctx context.Context, body []byte, lim Limits, kind, fallback string) (a *archive, b *budget, main string, rels map[string]rel, err error) {
	if a, err = openArchive(body, lim); err != nil {
		return nil, nil, "", nil, err
	}
	b = &budget{ctx: ctx, lim: lim}
	main = ooxmlMain(a, b, fallback)
	if !a.has(main) {
		return nil, nil, "", nil, malformed("it is no %s: its archive has no %s", kind, main)
	}
	if rels, err = ooxmlRels(a, b, relsOf(main), main); err != nil {
		return nil, nil, "", nil, err
	}
	return a, b, main, rels, nil
}

// ooxmlMain is the main part of an Office Open XML package, from its
// package relationships, else the usual name.
func ooxmlMain(a *archive, b *budget, fallback string) string {
	rels, err := ooxmlRels(a, b, "_rels/.rels", "")
	if err == nil {
		for _, r := range rels {
			if strings.HasSuffix(r.typ, "/officeDocument") {
				return r.target
			}
		}
	}
	return fallback
}

type rel struct{ typ, target string }

// ooxmlRels reads a relationships part: id → type and target, made
// absolute within the package for internal targets. part is the part the
// relationships belong to ("" for the package).
func ooxmlRels(a *archive, b *budget, relsName, part string) (map[string]rel, error) {
	out := map[string]rel{}
	if !a.has(relsName) {
		return out, nil
	}
	data, err := a.read(relsName)
	if err != nil {
		return nil, err
	}
	x := b.xml(data)
	for {
		tok, err := x.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "Relationship" {
			t := attr(se, "Target")
			if attr(se, "TargetMode") != "External" {
				t = resolve(part, t)
			}
			out[attr(se, "Id")] = rel{typ: attr(se, "Type"), target: t}
		}
	}
}

// relsOf is the relationships part name of a part.
func relsOf(part string) string {
	dir, file := "", part
	if i := strings.LastIndexByte(part, '/'); i >= 0 {
		dir, file = part[:i+1], part[i+1:]
	}
	return dir + "_rels/" + file + ".rels"
}

// readCoreProperties fills d from docProps/core.xml (Dublin Core): the
// properties every Office Open XML package may carry.
func readCoreProperties(a *archive, b *budget, d *Document) error {
	name := "docProps/core.xml"
	if !a.has(name) {
		return nil
	}
	data, err := a.read(name)
	if err != nil {
		return err
	}
	return readDublinCore(b.xml(data), d, false)
}

// readDublinCore reads dc:title, dc:creator, dc:language and the dates
// (dcterms:created and dcterms:modified, OPF's dc:date, ODF's
// meta:creation-date and dc:date) wherever they appear in the part.
func readDublinCore(x *xmlReader, d *Document, odf bool) error {
	for {
		tok, err := x.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var field *string
		var date *time.Time
		switch se.Name.Local {
		case "title":
			field = &d.Title
		case "creator", "initial-creator":
			field = &d.Author
		case "language":
			field = &d.Lang
		case "created", "creation-date":
			date = &d.Created
		case "modified":
			date = &d.Modified
		case "date":
			// OPF's dc:date is publication; ODF's dc:date is the last save.
			if attr(se, "event") == "modification" || odf {
				date = &d.Modified
			} else {
				date = &d.Created
			}
		case "meta":
			// EPUB 3 writes the modification date as a meta property.
			if attr(se, "property") != "dcterms:modified" {
				continue
			}
			date = &d.Modified
		default:
			continue
		}
		v, err := x.textOf()
		if err != nil {
			return err
		}
		switch {
		case field != nil && *field == "":
			*field = v
		case date != nil && date.IsZero():
			*date = parseDocDate(v)
		}
	}
}

// parseDocDate reads the dates documents write: W3CDTF in the XML
// formats, with or without a zone or a time.
func parseDocDate(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
