package meta

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFileName(t *testing.T) {
	cases := []struct {
		name, raw, disposition, want string
	}{
		{"the last path segment, extension kept", "https://example.com/docs/report.pdf", "", "report.pdf"},
		{"a percent-encoded name is decoded", "https://example.com/a/Annual%20Report%202025.pdf", "", "Annual Report 2025.pdf"},
		{"the query string is no part of the name", "https://example.com/get/file.zip?token=abc", "", "file.zip"},
		{"Content-Disposition's filename wins over the path", "https://example.com/download?id=7", `attachment; filename="data set.csv"`, "data set.csv"},
		{"an RFC 5987 filename* is decoded", "https://example.com/d", `attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`, "résumé.pdf"},
		{"a directory in the disposition name is dropped", "https://example.com/d", `attachment; filename="../../etc/passwd"`, "passwd"},
		{"a bad disposition falls back to the path", "https://example.com/x/clip.mp4", `attachment; filename=`, "clip.mp4"},
		{"a bare host gives the host", "https://example.com/", "", "example.com"},
		{"control characters are dropped", "https://example.com/a%0Ab.png", "", "ab.png"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.raw)
			if err != nil {
				t.Fatal(err)
			}
			if got := FileName(u, c.disposition); got != c.want {
				t.Errorf("FileName(%s, %q) = %q, want %q", c.raw, c.disposition, got, c.want)
			}
		})
	}
	long := strings.Repeat("a", 1000) + ".pdf"
	if got := FileName(&url.URL{Scheme: "https", Host: "x.org", Path: "/" + long}, ""); len([]rune(got)) != maxFileTitle {
		t.Errorf("a 1004-character name came back %d characters long; want it cut at %d", len([]rune(got)), maxFileTitle)
	}
}

func TestPDFInfo(t *testing.T) {
	const header = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
	cases := []struct {
		name, head, title, author string
	}{
		{"a literal title and author in the info dictionary",
			header + "1 0 obj\n<< /Title (Quarterly Results) /Author (Ada Lovelace) /Producer (Skia/PDF m120) >>\nendobj\n",
			"Quarterly Results", "Ada Lovelace"},
		{"escapes and nested parentheses in a literal",
			header + "7 0 obj <</Creator (x) /Title (Costs \\(net\\) of 2025 \\050draft\\051 (v2))>> endobj",
			"Costs (net) of 2025 (draft) (v2)", ""},
		{"a UTF-16 hex title",
			header + "3 0 obj <</Title <FEFF00520065007300FC006D00E9> /CreationDate (D:20250101)>> endobj",
			"Resümé", ""},
		{"a UTF-16 literal title",
			header + "3 0 obj <</Title (\xfe\xff\x00H\x00i) /ModDate (D:20250101)>> endobj",
			"Hi", ""},
		{"an outline entry's title is not the document's",
			header + "5 0 obj <</Title (Chapter 1) /Parent 4 0 R /Dest [3 0 R /Fit]>> endobj\n9 0 obj <</Producer (p) /Title (The Book)>> endobj",
			"The Book", ""},
		{"a nested dictionary does not end the search early",
			header + "2 0 obj <</Type /Catalog /Pages <</Kids []>> >> endobj\n8 0 obj <</Producer (p) /Title (After Nesting)>> endobj",
			"After Nesting", ""},
		{"XMP dc:title when the dictionary has none",
			header + `<x:xmpmeta><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Fish &amp; Chips</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>Jane Roe</rdf:li></rdf:Seq></dc:creator></x:xmpmeta>`,
			"Fish & Chips", "Jane Roe"},
		{"an info dictionary cut off by the prefix gives nothing",
			header + "1 0 obj << /Producer (p) /Title (Never fin",
			"", ""},
		{"a /TitleX key is not /Title",
			header + "1 0 obj << /Producer (p) /TitleX (wrong) >> endobj",
			"", ""},
		{"not a PDF at all",
			"<html><title>x</title></html> << /Producer (p) /Title (Fake) >>",
			"", ""},
		{"a PDF without metadata",
			header + "1 0 obj << /Type /Catalog >> endobj",
			"", ""},
		{"control characters in a title are folded",
			header + "1 0 obj << /Producer (p) /Title (One\\nTwo\\t\\tThree) >> endobj",
			"One Two Three", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			title, author := PDFInfo([]byte(c.head))
			if title != c.title || author != c.author {
				t.Errorf("PDFInfo = (%q, %q), want (%q, %q)", title, author, c.title, c.author)
			}
		})
	}
}

func TestPDFInfoReadsEachByteOfAHostilePrefixABoundedNumberOfTimes(t *testing.T) {
	const header = "%PDF-1.7\n"
	const n = 256 << 10 // what a file target's prefix holds at most
	info := "<< /Producer (p) /Title (Found) >>"
	cases := []struct{ name, head string }{
		{"dictionaries nested as deep as the prefix allows",
			header + strings.Repeat("<<", n/4-8) + strings.Repeat(">>", n/4-8)},
		{"nested dictionaries each with a title",
			header + strings.Repeat("<</Title(a)/Producer(b)", n/48) + strings.Repeat(">>", n/48)},
		{"dictionaries that never close",
			header + strings.Repeat("<< /Title (x) ", n/16)},
		{"an information dictionary inside nesting",
			header + strings.Repeat("<<", 10) + info + strings.Repeat(">>", 10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := []byte(c.head)
			read := 0
			forEachLeafDict(head, func(d []byte) bool {
				read += len(d)
				return true
			})
			if read > len(head) {
				t.Errorf("the dictionaries read hold %d bytes of a %d-byte prefix; each byte should be read at most once", read, len(head))
			}
		})
	}
	if title, _ := PDFInfo([]byte(cases[3].head)); title != "Found" {
		t.Errorf("the information dictionary inside nesting gave the title %q, want %q", title, "Found")
	}
}

func FuzzPDFInfo(f *testing.F) {
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Title (Quarterly \\(net\\)) /Author <FEFF0041> /Producer (p) >> endobj"))
	f.Add([]byte("%PDF-1.4\n<<<</Title(\\376\\377\\000A)/ModDate()>>>>"))
	f.Add([]byte(`%PDF-1.4 <dc:title><rdf:Alt><rdf:li>Fish &amp; Chips</rdf:li></rdf:Alt></dc:title>`))
	f.Fuzz(func(t *testing.T, head []byte) {
		title, author := PDFInfo(head)
		for _, s := range []string{title, author} {
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxFileTitle || strings.TrimSpace(s) != s {
				t.Fatalf("PDFInfo gave %q: want valid UTF-8, trimmed, within %d characters", s, maxFileTitle)
			}
			if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("PDFInfo gave %q, with a control character", s)
			}
		}
	})
}
