package meta

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DescriptionLimit is the longest description returned, in characters,
// ellipsis included. Microlink returns the publisher's own description, and
// publishers write those for share cards: Facebook and LinkedIn show about
// 300 characters of og:description, Twitter cards keep 200, search snippets
// about 160. 300 therefore keeps every description a publisher wrote for a
// card whole, while text taken from an article body (JSON-LD articleBody, the
// first paragraph) is cut to what a preview can show.
const DescriptionLimit = 300

// cleanText makes a text value presentable: entities left encoded by the page
// (often double-encoded, "&amp;#8217;") are decoded, invisible characters
// dropped, every run of whitespace collapsed to one space, and the result
// trimmed and put in Unicode normal form C.
func cleanText(s string) string {
	if s == "" {
		return ""
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	if strings.Contains(s, "&") {
		s = html.UnescapeString(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	pendingSpace := false
	for _, r := range s {
		switch {
		case isInvisible(r):
			continue
		case unicode.IsSpace(r) || r == '\u2028' || r == '\u2029':
			pendingSpace = true
			continue
		case unicode.IsControl(r) || r == utf8.RuneError:
			continue
		}
		if pendingSpace && b.Len() > 0 {
			b.WriteByte(' ')
		}
		pendingSpace = false
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// isInvisible reports characters that render as nothing and only get in the
// way of comparisons: zero-width spaces, direction marks and embeddings, word
// joiners, soft hyphens and byte-order marks. The zero-width joiner and
// non-joiner stay: emoji sequences and Persian script need them.
func isInvisible(r rune) bool {
	switch {
	case r == '\u00ad', r == '\u034f', r == '\u061c', r == '\u180e', r == '\ufeff':
		return true
	case r == '\u200b', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2060' && r <= '\u2064', r >= '\u2066' && r <= '\u206f':
		return true
	}
	return false
}

// smartQuotes turns typewriter quotes into typographic ones, as the Microlink
// API does for titles, descriptions and authors: "a" → “a”, it's → it’s,
// 'a' → ‘a’, '90s → ’90s. A quote after a digit with no quote open is a
// prime (5'10" → 5′10″).
func smartQuotes(s string) string {
	if !strings.ContainsAny(s, `"'`) {
		return s
	}
	rs := []rune(s)
	openDouble, openSingle := false, false
	for i, r := range rs {
		if r != '"' && r != '\'' {
			continue
		}
		var prev, next rune
		if i > 0 {
			prev = rs[i-1]
		}
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		opening := (prev == 0 || unicode.IsSpace(prev) || strings.ContainsRune("([{<-–—/“‘«", prev)) &&
			next != 0 && !unicode.IsSpace(next)
		if r == '"' {
			switch {
			case opening:
				rs[i], openDouble = '“', true
			case openDouble || !unicode.IsDigit(prev):
				rs[i], openDouble = '”', false
			default:
				rs[i] = '″'
			}
			continue
		}
		switch {
		case isLetter(prev) && isLetter(next):
			rs[i] = '’' // it's, rock'n'roll
		case opening && unicode.IsDigit(next) && i+2 < len(rs) && unicode.IsDigit(rs[i+2]) &&
			(i+3 >= len(rs) || !unicode.IsDigit(rs[i+3])):
			rs[i] = '’' // '93, the '90s
		case opening:
			rs[i], openSingle = '‘', true
		case openSingle || !unicode.IsDigit(prev):
			rs[i], openSingle = '’', false
		default:
			rs[i] = '′'
		}
	}
	return string(rs)
}

func isLetter(r rune) bool { return r != 0 && unicode.IsLetter(r) }

// Truncate shortens s to at most max characters, ellipsis included, cutting
// at the last word boundary and appending "…". Text without spaces where they
// would help (one long word, scripts written without spaces) is cut mid-run.
func Truncate(s string, max int) string {
	if max <= 0 {
		return ""
	}
	rs := []rune(s)
	if len(rs) <= max {
		return s
	}
	if max == 1 {
		return "…"
	}
	cut := max - 1 // room for the ellipsis
	i := cut
	for i > 0 && !unicode.IsSpace(rs[i]) {
		i--
	}
	if i < cut*2/3 {
		i = cut
	}
	out := strings.TrimRightFunc(string(rs[:i]), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:-–—([{", r)
	})
	out = strings.TrimSuffix(strings.TrimSuffix(out, "..."), "…")
	return out + "…"
}

// foldKey reduces a name to lower-case letters and digits so that "The
// Verge", "the-verge" and "TheVerge" compare equal.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// strPtr returns nil for an empty string, so that "the page has none" is
// always nil and never "".
func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
