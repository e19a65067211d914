package markdown

import (
	"bytes"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
)

// proseEscapeTexts are paragraphs of plain text full of what Markdown could
// read as markup: comparisons, generics, tags written as text, autolinks,
// comments, underscores and stars.
var proseEscapeTexts = []string{
	"If 5 < 6 and 7 > 3, then a <= b.",
	"It returns Result<bool, Error> or List<Map<String, Int>>, when x <y + 1.",
	"Type man <subject> in a shell, or <a href=\"x\">, and close with </div >.",
	"Mail <me@example.com> or see <https://example.com/a_b> and <!-- this -->.",
	"A tag that goes on: <img src='a.png'",
	"Set max_connections and _private_ names, snake_case_words, 2*3*4 and *stars*.",
	"Brackets [like these] and a_b<c>d and <3 and a<-b and <?php and <!DOCTYPE.",
	"Vec<u8> & HashMap<K, V>: use &lt; to write a less-than sign.",
}

// TestEscapesKeepTheTextACommonMarkReaderSees converts each text, as the
// paragraph of a page, to Markdown, reads that Markdown back with a
// CommonMark reader, and compares the text it shows with the page's: the
// converter may leave out an escape only where the reader needs none.
func TestEscapesKeepTheTextACommonMarkReaderSees(t *testing.T) {
	for _, text := range proseEscapeTexts {
		t.Run(text, func(t *testing.T) {
			checkReadBack(t, text)
		})
	}
}

// FuzzEscapesKeepTheTextACommonMarkReaderSees is the same check on other
// texts; its seeds run with the tests.
func FuzzEscapesKeepTheTextACommonMarkReaderSees(f *testing.F) {
	for _, text := range proseEscapeTexts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 200 || strings.ContainsAny(text, "\r\n\t\\`\x00") || strings.TrimSpace(text) != text || text == "" {
			t.Skip() // one line of prose, as a paragraph holds it
		}
		if strings.IndexFunc(text, func(r rune) bool { return unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) }) < 0 {
			t.Skip() // a paragraph of nothing a reader sees (a zero-width joiner) is no paragraph
		}
		for _, r := range text {
			// A C1 control is no character a page writes on purpose:
			// text holding one is read as mis-decoded UTF-8 and decoded
			// back (see repairMojibake), not kept as it stands.
			if r < ' ' || r == 0x7f || r >= 0x80 && r <= 0x9f || r == '\ufffd' {
				t.Skip()
			}
		}
		checkReadBack(t, text)
	})
}

var spacesRe = regexp.MustCompile(`\s+`)

// checkReadBack converts text, as a paragraph, and reads it back.
func checkReadBack(t *testing.T, text string) {
	t.Helper()
	md := convertBody(t, "<p>"+html.EscapeString(text)+"</p>")
	var out bytes.Buffer
	if err := goldmark.Convert([]byte(md), &out); err != nil {
		t.Fatalf("reading back %q: %v", md, err)
	}
	shown := shownText(out.String())
	// A soft hyphen only says where a line may break inside a word: the
	// converter leaves it out (see cleaner.clone), as a reader sees the
	// word whole, and the space it stood beside may then end the line.
	if want := strings.TrimSpace(spacesRe.ReplaceAllString(strings.ReplaceAll(text, "\u00ad", ""), " ")); shown != want {
		t.Fatalf("the Markdown %q reads back as %q, not %q", md, shown, want)
	}
}

// shownText is the text a browser shows for an HTML fragment with no tags
// but the ones CommonMark writes for a paragraph; any other tag in it is
// markup the reader found, and stays in the text to be seen.
func shownText(fragment string) string {
	s := strings.TrimSpace(fragment)
	s = strings.TrimPrefix(s, "<p>")
	s = strings.TrimSuffix(s, "</p>")
	return spacesRe.ReplaceAllString(html.UnescapeString(s), " ")
}
