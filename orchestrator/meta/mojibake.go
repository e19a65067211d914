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
// when it holds no C1 control and no pair of the other signature (see
// hasLatin1Pair).
func undoLatin1(s string) string {
	if !hasC1(s) && !hasLatin1Pair(s) {
		return s
	}
	var b strings.Builder
	run := make([]byte, 0, 8)
	flush := func() {
		if len(run) > 0 && utf8.Valid(run) {
			b.Write(run) // the UTF-8 the run spelled
		} else {
			for _, c := range run {
				b.WriteRune(rune(c))
			}
		}
		run = run[:0]
	}
	for _, r := range s {
		if r >= 0x80 && r <= 0xFF {
			run = append(run, byte(r))
			continue
		}
		flush()
		b.WriteRune(r)
	}
	flush()
	return b.String()
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
