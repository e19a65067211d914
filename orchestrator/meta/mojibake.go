package meta

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Text that was UTF-8, decoded once more as Latin-1 somewhere on its way to
// the page (a database, a template, a feed), reads "Investorâ\u0080\u0099s"
// for "Investor’s": each of its characters beyond ASCII became two or three
// characters, the later ones among the C1 controls (U+0080 to U+009F).
// No text writes those controls on purpose, so a string that holds one is
// read as mis-decoded, and each run of its characters in U+0080 to U+00FF
// that spells valid UTF-8 as bytes is decoded back.

// repairMojibake decodes back the mis-decoded text (see above) of the text
// nodes and attribute values under n.
func repairMojibake(n *html.Node) {
	switch n.Type {
	case html.TextNode, html.CommentNode:
		n.Data = undoLatin1(n.Data)
	case html.ElementNode:
		for i := range n.Attr {
			n.Attr[i].Val = undoLatin1(n.Attr[i].Val)
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		repairMojibake(c)
	}
}

// undoLatin1 returns s with its mis-decoded runs decoded back, or s itself
// when it holds no C1 control and no pair of the other signatures (see
// hasLatin1Pair and cp1252Lead).
func undoLatin1(s string) string {
	cp1252 := strings.Contains(s, cp1252Lead)
	if !cp1252 && !hasC1(s) && !hasLatin1Pair(s) {
		return s
	}
	var b strings.Builder
	run := make([]byte, 0, 8)   // the bytes the run's characters stand for
	runes := make([]rune, 0, 8) // the run's characters, written back when they spell no UTF-8
	flush := func() {
		if len(run) > 0 && utf8.Valid(run) {
			b.Write(run) // the UTF-8 the run spelled
		} else {
			for _, r := range runes {
				b.WriteRune(r)
			}
		}
		run, runes = run[:0], runes[:0]
	}
	for _, r := range s {
		c, ok := byte(0), false
		switch {
		case r >= 0x80 && r <= 0xFF:
			c, ok = byte(r), true
		case cp1252:
			c, ok = cp1252Bytes[r]
		}
		if ok {
			run, runes = append(run, c), append(runes, r)
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
}

// Decoded as Windows-1252 rather than Latin-1, the bytes 0x80 to 0x9F
// become typographic characters instead of C1 controls: "’" (E2 80 99)
// reads "â€™", "—" reads "â€”", "“" reads "â€œ". Every one of those
// punctuation marks opens with "â€" (the bytes E2 80), which no language
// writes: a string holding it is decoded back through Windows-1252.

// cp1252Lead is the signature of text mis-decoded through Windows-1252.
const cp1252Lead = "\u00e2\u20ac"

// cp1252Bytes maps the characters Windows-1252 gives the bytes 0x80 to
// 0x9F back to those bytes (0x81, 0x8D, 0x8F, 0x90 and 0x9D are left
// undefined there and read as C1 controls).
var cp1252Bytes = map[rune]byte{
	'\u20ac': 0x80, '\u201a': 0x82, '\u0192': 0x83, '\u201e': 0x84, '\u2026': 0x85, '\u2020': 0x86, '\u2021': 0x87,
	'\u02c6': 0x88, '\u2030': 0x89, '\u0160': 0x8a, '\u2039': 0x8b, '\u0152': 0x8c, '\u017d': 0x8e,
	'\u2018': 0x91, '\u2019': 0x92, '\u201c': 0x93, '\u201d': 0x94, '\u2022': 0x95, '\u2013': 0x96, '\u2014': 0x97,
	'\u02dc': 0x98, '\u2122': 0x99, '\u0161': 0x9a, '\u203a': 0x9b, '\u0153': 0x9c, '\u017e': 0x9e, '\u0178': 0x9f,
}

// hasC1 reports whether s holds a C1 control character. Its UTF-8 starts
// with the byte 0xC2, which most text lacks: that is looked for first.
func hasC1(s string) bool {
	return strings.IndexByte(s, 0xC2) >= 0 &&
		strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 && r <= 0x9F })
}

// A character of U+00A0 to U+00FF, mis-decoded, becomes two characters
// none of which is a C1 control: "¶" becomes "Â¶", a no-break space "Â"
// and a no-break space, "é" "Ã©". Their first is "Â" or "Ã" (the bytes
// 0xC2 and 0xC3 that open those characters' UTF-8), their second one of
// U+00A0 to U+00BF: no language writes such a pair, where a letter "Â" or
// "Ã" is followed by a sign ("É»" may close a French quotation, which is
// why other pairs are not read as the signature).

// hasLatin1Pair reports whether s holds such a pair.
func hasLatin1Pair(s string) bool {
	i := strings.IndexAny(s, "ÂÃ")
	for i >= 0 {
		_, size := utf8.DecodeRuneInString(s[i:])
		if r, _ := utf8.DecodeRuneInString(s[i+size:]); r >= 0xA0 && r <= 0xBF {
			return true
		}
		s = s[i+size:]
		i = strings.IndexAny(s, "ÂÃ")
	}
	return false
}
