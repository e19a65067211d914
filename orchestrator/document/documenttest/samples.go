// Package documenttest writes the documents glimpse's tests read: each
// format laid out part by part as its specification does, from strings in
// the code, so no test depends on a file from elsewhere.
package documenttest

import (
	"archive/zip"
	"bytes"
	"crypto/md5"
	"crypto/rc4"
	"fmt"
	"strings"
	"testing"
)

// Zip is an archive of the named parts (name, content, name, …), in
// order.
func Zip(t testing.TB, parts ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(parts); i += 2 {
		w, err := zw.Create(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(parts[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const (
	NSWord = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	nsRel  = `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"`
	relT   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
	core   = `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
		`<dc:title>%s</dc:title><dc:creator>Ada Lovelace</dc:creator><dc:language>en-GB</dc:language>` +
		`<dcterms:created xsi:type="dcterms:W3CDTF">2024-03-01T09:30:00Z</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">2024-03-05T10:00:00Z</dcterms:modified></cp:coreProperties>`
)

// PackageRels is a package's relationships naming main its document.
func PackageRels(main string) string {
	return `<?xml version="1.0"?><Relationships ` + nsRel + `><Relationship Id="rId1" Type="` + relT + `officeDocument" Target="` + main + `"/></Relationships>`
}

// DOCX is a Word document with body as its w:body, with styles
// ("Kop1" is heading 1 by name, "Sub" level 2 by outline), numbering
// (numId 1 bullets, 2 numbers), a hyperlink rId5 and core properties.
func DOCX(t testing.TB, body string) []byte {
	return Zip(t,
		"_rels/.rels", PackageRels("word/document.xml"),
		"docProps/core.xml", fmt.Sprintf(core, "Quarterly Report"),
		"word/_rels/document.xml.rels", `<?xml version="1.0"?><Relationships `+nsRel+`>`+
			`<Relationship Id="rId5" Type="`+relT+`hyperlink" Target="https://example.org/figures" TargetMode="External"/>`+
			`<Relationship Id="rId6" Type="`+relT+`numbering" Target="numbering.xml"/>`+
			`<Relationship Id="rId7" Type="`+relT+`styles" Target="styles.xml"/></Relationships>`,
		"word/styles.xml", `<?xml version="1.0"?><w:styles `+NSWord+`>`+
			`<w:style w:type="paragraph" w:styleId="Kop1"><w:name w:val="heading 1"/></w:style>`+
			`<w:style w:type="paragraph" w:styleId="Sub"><w:name w:val="Subhead"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style></w:styles>`,
		"word/numbering.xml", `<?xml version="1.0"?><w:numbering `+NSWord+`>`+
			`<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>`+
			`<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>`+
			`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num></w:numbering>`,
		"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document `+NSWord+`><w:body>`+body+`</w:body></w:document>`)
}

// Para is a w:p of one bold run in the style given ("" for none).
func Para(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// ListItem is a w:p in list numID at level lvl.
func ListItem(numID, lvl, text string) string {
	return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + lvl + `"/><w:numId w:val="` + numID + `"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
}

// Table is a w:tbl of the rows of cells.
func Table(rows ...[]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl><w:tblPr/><w:tblGrid/>`)
	for _, r := range rows {
		b.WriteString(`<w:tr>`)
		for _, c := range r {
			b.WriteString(`<w:tc><w:tcPr/>` + Para("", c) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	return b.String()
}

// SampleDOCX has a heading by a localised style name, a subheading by
// outline level, a paragraph with a link, both kinds of list, nested, and
// a table.
func SampleDOCX(t testing.TB) []byte {
	return DOCX(t, Para("Kop1", "Quarterly Report")+
		`<w:p><w:r><w:t>Revenue grew; see </w:t></w:r><w:hyperlink r:id="rId5"><w:r><w:t>the figures</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> for detail.</w:t></w:r></w:p>`+
		Para("Sub", "Regions")+
		ListItem("1", "0", "North")+ListItem("1", "1", "Coast")+ListItem("1", "0", "South")+
		ListItem("2", "0", "First step")+ListItem("2", "0", "Second step")+
		Table([]string{"Region", "Revenue"}, []string{"North", "1200"}, []string{"South", "900"})+
		`<w:sectPr/>`)
}

// XLSX is a workbook of the sheets (name, sheetData rows), with three
// shared strings ("Item", "Cost (EUR)" in two runs, "Paper & ink") and
// core properties titled Budget.
func XLSX(t testing.TB, sheets ...[2]string) []byte {
	wb := `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>`
	rels := `<?xml version="1.0"?><Relationships ` + nsRel + `><Relationship Id="rS" Type="` + relT + `sharedStrings" Target="sharedStrings.xml"/>`
	parts := []string{"_rels/.rels", PackageRels("xl/workbook.xml"), "docProps/core.xml", fmt.Sprintf(core, "Budget"),
		"xl/sharedStrings.xml", `<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>Item</t></si><si><r><t>Cost</t></r><r><t> (EUR)</t></r></si><si><t>Paper &amp; ink</t></si></sst>`}
	for i, s := range sheets {
		n := fmt.Sprint(i + 1)
		wb += `<sheet name="` + s[0] + `" sheetId="` + n + `" r:id="rId` + n + `"/>`
		rels += `<Relationship Id="rId` + n + `" Type="` + relT + `worksheet" Target="worksheets/sheet` + n + `.xml"/>`
		parts = append(parts, "xl/worksheets/sheet"+n+".xml", `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+s[1]+`</sheetData></worksheet>`)
	}
	parts = append(parts, "xl/workbook.xml", wb+`</sheets></workbook>`, "xl/_rels/workbook.xml.rels", rels+`</Relationships>`)
	return Zip(t, parts...)
}

// SampleSheet uses the shared strings, a number, an inline string, a
// boolean and a skipped row.
const SampleSheet = `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>` +
	`<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12.5</v></c></row>` +
	`<row r="4"><c r="A4" t="inlineStr"><is><t>Total</t></is></c><c r="C4" t="b"><v>1</v></c></row>`

// PPTX is a presentation of the slides (their p:spTree content), each
// with a hyperlink rL.
func PPTX(t testing.TB, slides ...string) []byte {
	pres := `<?xml version="1.0"?><p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:sldIdLst>`
	rels := `<?xml version="1.0"?><Relationships ` + nsRel + `>`
	parts := []string{"_rels/.rels", PackageRels("ppt/presentation.xml"), "docProps/core.xml", fmt.Sprintf(core, "Roadmap")}
	for i, s := range slides {
		n := fmt.Sprint(i + 1)
		pres += `<p:sldId id="` + fmt.Sprint(256+i) + `" r:id="rId` + n + `"/>`
		rels += `<Relationship Id="rId` + n + `" Type="` + relT + `slide" Target="slides/slide` + n + `.xml"/>`
		parts = append(parts, "ppt/slides/slide"+n+".xml", `<?xml version="1.0"?><p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><p:cSld><p:spTree>`+s+`</p:spTree></p:cSld></p:sld>`,
			"ppt/slides/_rels/slide"+n+".xml.rels", `<?xml version="1.0"?><Relationships `+nsRel+`><Relationship Id="rL" Type="`+relT+`hyperlink" Target="https://example.org/plan" TargetMode="External"/></Relationships>`)
	}
	parts = append(parts, "ppt/presentation.xml", pres+`</p:sldIdLst></p:presentation>`, "ppt/_rels/presentation.xml.rels", rels+`</Relationships>`)
	return Zip(t, parts...)
}

// Shape is a text shape, a placeholder of type ph when ph is not "".
func Shape(ph, paras string) string {
	nv := `<p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>`
	if ph != "" {
		nv = `<p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr><p:ph type="` + ph + `"/></p:nvPr></p:nvSpPr>`
	}
	return `<p:sp>` + nv + `<p:txBody>` + paras + `</p:txBody></p:sp>`
}

// SlidePara is an a:p of one run.
func SlidePara(text string) string {
	return `<a:p><a:r><a:rPr lang="en-US"/><a:t>` + text + `</a:t></a:r></a:p>`
}

// SamplePPTX is two slides: a title slide, and one with a link and a
// table.
func SamplePPTX(t testing.TB) []byte {
	return PPTX(t,
		Shape("ctrTitle", SlidePara("Roadmap 2025"))+Shape("", SlidePara("Where we are going")),
		Shape("title", SlidePara("Milestones"))+Shape("", SlidePara("Ship the beta")+
			`<a:p><a:r><a:rPr><a:hlinkClick r:id="rL"/></a:rPr><a:t>Read the plan</a:t></a:r></a:p>`)+
			`<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr><a:tc><a:txBody>`+SlidePara("Quarter")+`</a:txBody></a:tc><a:tc><a:txBody>`+SlidePara("Goal")+`</a:txBody></a:tc></a:tr>`+
			`<a:tr><a:tc><a:txBody>`+SlidePara("Q1")+`</a:txBody></a:tc><a:tc><a:txBody>`+SlidePara("Beta")+`</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
}

// ODT is an OpenDocument text whose office:text is text, with meta.xml
// properties.
func ODT(t testing.TB, text string) []byte {
	return Zip(t,
		"mimetype", "application/vnd.oasis.opendocument.text",
		"META-INF/manifest.xml", `<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"/>`,
		"meta.xml", `<?xml version="1.0"?><office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"><office:meta>`+
			`<dc:title>Field Notes</dc:title><meta:initial-creator>Mary Anning</meta:initial-creator><dc:language>en</dc:language><meta:creation-date>2023-06-01T08:00:00</meta:creation-date><dc:date>2023-06-02T12:00:00</dc:date></office:meta></office:document-meta>`,
		"content.xml", `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"><office:body><office:text>`+text+`</office:text></office:body></office:document-content>`)
}

// SampleODT has headings, a link, a note, a list and a table.
const SampleODT = `<text:h text:outline-level="1">Field Notes</text:h>` +
	`<text:p>Found an <text:a xlink:href="https://example.org/ichthyosaur">ichthyosaur</text:a> at low tide.<text:note><text:note-body><text:p>A footnote.</text:p></text:note-body></text:note></text:p>` +
	`<text:h text:outline-level="2">Finds</text:h>` +
	`<text:list><text:list-item><text:p>Vertebrae</text:p></text:list-item><text:list-item><text:p>Teeth</text:p></text:list-item></text:list>` +
	`<table:table><table:table-row><table:table-cell><text:p>Bone</text:p></table:table-cell><table:table-cell><text:p>Count</text:p></table:table-cell></table:table-row>` +
	`<table:table-row><table:table-cell><text:p>Rib</text:p></table:table-cell><table:table-cell><text:p>14</text:p></table:table-cell></table:table-row></table:table>`

// EPUB is an e-book of the chapters (their XHTML body), with package
// metadata.
func EPUB(t testing.TB, chapters ...string) []byte {
	manifest, spine := "", ""
	parts := []string{"mimetype", "application/epub+zip",
		"META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`}
	for i, c := range chapters {
		n := fmt.Sprint(i + 1)
		manifest += `<item id="c` + n + `" href="text/ch` + n + `.xhtml" media-type="application/xhtml+xml"/>`
		spine += `<itemref idref="c` + n + `"/>`
		parts = append(parts, "OEBPS/text/ch"+n+".xhtml", `<?xml version="1.0" encoding="utf-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title><style>p{}</style></head><body>`+c+`</body></html>`)
	}
	parts = append(parts, "OEBPS/content.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">`+
		`<dc:title>A Voyage</dc:title><dc:creator>Maria Sibylla Merian</dc:creator><dc:language>de</dc:language><dc:date>1705-01-01</dc:date><meta property="dcterms:modified">2024-01-02T03:04:05Z</meta></metadata>`+
		`<manifest>`+manifest+`<item id="css" href="s.css" media-type="text/css"/></manifest><spine>`+spine+`</spine></package>`)
	return Zip(t, parts...)
}

// SampleRTF has info properties, a heading, code-page and Unicode text,
// a table and a picture.
const SampleRTF = `{\rtf1\ansi\deff0\deflang2057{\fonttbl{\f0 Times;}}{\colortbl;\red0\green0\blue0;}` +
	`{\info{\title Ship\'92s Log}{\author James Cook}{\creatim\yr1770\mo4\dy19\hr6\min0}}` +
	`{\*\generator Hand}\pard\outlinelevel0\b Ship\'92s Log\b0\par` +
	`\pard Land sighted to the west. Caf\u233?.\par` +
	`\trowd\cellx2000\cellx4000\intbl Day\cell Miles\cell\row\trowd\cellx2000\cellx4000\intbl Monday\cell 120\cell\row` +
	`\pard After the table.\par{\pict\pngblip 89504e47}}`

// PDFText is one line of a hand-written PDF page: where, how large.
type PDFText struct {
	X, Y, Size float64
	Text       string
}

// PDF writes a PDF whose pages show the texts in Helvetica, a font
// every reader knows without it being embedded, with an information
// dictionary; image pages instead of text make a scan's PDF.
func PDF(pages [][]PDFText, scanned bool) []byte { return pdf(pages, scanned, "") }

// LockedPDF is SamplePDF behind a user password, with the standard
// security handler of PDF 1.4 (revision 2, 40-bit RC4): a reader that
// is not given the password cannot open it. Only the password check is
// written; the content itself is left as it was.
func LockedPDF(password string) []byte { return pdf(samplePages, false, password) }

// pdfPad pads passwords to 32 bytes in the standard security handler.
var pdfPad = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

func padded(pw string) []byte { return append([]byte(pw), pdfPad...)[:32] }

func rc4Of(key, data []byte) []byte {
	c, _ := rc4.NewCipher(key)
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

// lockDict is the /Encrypt dictionary and the file /ID for password.
func lockDict(password string) (dict, id string) {
	fileID := []byte("glimpse-test-id!")
	ownerKey := md5.Sum(padded("owner"))
	o := rc4Of(ownerKey[:5], padded(password))
	h := md5.New()
	h.Write(padded(password))
	h.Write(o)
	h.Write([]byte{0xfc, 0xff, 0xff, 0xff}) // P = -4, little-endian
	h.Write(fileID)
	key := h.Sum(nil)[:5]
	u := rc4Of(key, pdfPad)
	return fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /O <%x> /U <%x> /P -4 >>", o, u), fmt.Sprintf("<%x>", fileID)
}

func pdf(pages [][]PDFText, scanned bool, password string) []byte {
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	font := add(`<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>`)
	img := add("<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\x10\x80\x80\x10\nendstream")
	pagesID := len(objs) + 1 + 2*len(pages) // the Pages object comes after every page
	var kids []string
	for _, p := range pages {
		var c strings.Builder
		if scanned {
			c.WriteString("q 400 0 0 500 100 150 cm /Im1 Do Q\n")
		} else {
			for _, t := range p {
				esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(t.Text)
				fmt.Fprintf(&c, "BT /F1 %g Tf %g %g Td (%s) Tj ET\n", t.Size, t.X, t.Y, esc)
			}
		}
		cs := add(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", c.Len(), c.String()))
		pg := add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >> >>", pagesID, cs, font, img))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	add(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	catalog := add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R /Lang (en-GB) >>", pagesID))
	info := add(`<< /Title (Annual Survey) /Author (Grace Hopper) /Producer (hand) /CreationDate (D:20240102030405Z) /ModDate (D:20240203040506Z) >>`)
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	trailer := ""
	if password != "" {
		dict, id := lockDict(password)
		objs = append(objs, dict)
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(objs), dict)
		trailer = fmt.Sprintf(" /Encrypt %d 0 R /ID [%s %s]", len(objs), id, id)
		xref = b.Len()
	}
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R%s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, info, trailer, xref)
	return b.Bytes()
}

// SamplePDF has a title, a section heading, prose, a table of three
// columns with a header set tight, and a second page.
func SamplePDF() []byte { return PDF(samplePages, false) }

var samplePages = [][]PDFText{{
	{72, 720, 24, "Annual Survey"},
	{72, 690, 11, "The survey counted birds at three sites over the year,"},
	{72, 676, 11, "and the counts rose at every site."},
	{72, 640, 16, "Counts by site"},
	{72, 610, 11, "Site"}, {200, 610, 11, "Spring"}, {300, 610, 11, "Autumn"},
	{72, 594, 11, "Marsh"}, {200, 594, 11, "120"}, {300, 594, 11, "140"},
	{72, 578, 11, "Wood"}, {200, 578, 11, "80"}, {300, 578, 11, "95"},
	{72, 562, 11, "Coast"}, {200, 562, 11, "200"}, {300, 562, 11, "230"},
	{72, 520, 11, "Counts were made at dawn."},
}, {
	{72, 720, 16, "Methods"},
	{72, 690, 11, "Observers walked a fixed route."},
}}
