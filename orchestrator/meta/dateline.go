package meta

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Bylines without a label or a class. Many pages print the writer in the
// line under the headline with nothing to mark it but what stands beside
// it: the date ("Dec 26, 2025 · Jane Doe in Guides", "Jane Doe | Senior
// Writer | July 2, 2025", "03/01/2017 by Jane Doe, Committee Chair") or a
// link to the section it is filed in ("<b>Jane Doe</b> in <a>SEO</a>").
// datelineNames reads such a line when nothing else names a person.

// maxDatelineDistance is how far from the headline, in characters of text,
// the line may stand: it is printed right under or above the title.
const maxDatelineDistance = 300

// maxDatelineLength bounds the line's text: a date, a name, a role, a
// section.
const maxDatelineLength = 140

// datelineSeparators split a line into its parts.
var datelineSeparators = regexp.MustCompile(`\s*[|•·●◦▪/—–]\s*|\s+-\s+`)

// datelineWords are words of what else such a line prints, which no name
// holds: reading times, labels, sections.
var datelineWords = map[string]bool{
	"reading": true, "time": true, "min": true, "mins": true, "minute": true, "minutes": true, "updated": true,
	"published": true, "posted": true, "last": true, "modified": true, "news": true, "blog": true, "home": true,
	"category": true, "categories": true, "tags": true, "tag": true, "uncategorized": true, "listen": true,
	"print": true, "save": true, "ago": true, "today": true, "yesterday": true, "edition": true, "issue": true,
	"team": true, "staff": true, "editorial": true, "sponsored": true, "advertisement": true, "press": true,
	"release": true, "guide": true, "guides": true, "tips": true, "how": true, "what": true, "why": true,
	"the": true, "of": true, "for": true, "to": true, "with": true, "your": true, "our": true,
}

// blockTags are the elements that start a new line of text.
var blockTags = map[string]bool{
	"p": true, "div": true, "li": true, "ul": true, "ol": true, "section": true, "article": true, "header": true,
	"footer": true, "aside": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"table": true, "tr": true, "td": true, "figure": true, "blockquote": true, "form": true, "nav": true,
	"main": true, "dl": true, "dd": true, "dt": true, "pre": true, "address": true,
}

// datelineNames returns the name printed in a line beside the headline
// that holds a date or files the piece in a section; nearest line first.
func (p *page) datelineNames() []authorValue {
	h := p.mainHeading()
	if h == nil {
		return nil
	}
	blocks := p.articleBlocks()
	for i, block := range blocks {
		if i >= nearBlocks {
			break
		}
		var found []authorValue
		block.Find("*").EachWithBreak(func(_ int, s *goquery.Selection) bool {
			// Cheap tests first: this runs over every element near the
			// headline.
			if l := p.textLength(s); l == 0 || l > 2*maxDatelineLength || p.textDistance(s) > maxDatelineDistance {
				return true
			}
			if !isLine(s) || s.Is("h1") || s.Find("h1").Length() > 0 || s.ParentsFiltered("h1").Length() > 0 || outsideArticle(s, block) {
				return true
			}
			if name := p.datelineName(s); name != "" {
				found = append(found, authorValue{text: name})
				return false
			}
			return true
		})
		if len(found) > 0 {
			return found
		}
	}
	return nil
}

// isLine reports an element that holds one line of text: no block inside
// it, some text, not too much.
func isLine(s *goquery.Selection) bool {
	n := s.Nodes[0]
	if blockTags[n.Data] && n.Data != "p" && n.Data != "div" && n.Data != "li" && n.Data != "address" {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && blockTags[c.Data] {
			return false
		}
	}
	text := spacedText(s)
	return text != "" && len(text) <= maxDatelineLength
}

// datelineName reads the name off one line, or "".
func (p *page) datelineName(s *goquery.Selection) string {
	text := spacedText(s)
	filed := filedInSection(s)
	dated := false
	s.Find("time").Each(func(_ int, t *goquery.Selection) {
		if tt := spacedText(t); tt != "" {
			text = strings.Replace(text, tt, " | ", 1)
			dated = true
		}
	})
	for range 3 {
		w, ok := findWrittenDate(text)
		if !ok {
			break
		}
		text = text[:w.start] + " | " + text[w.end:]
		dated = true
	}
	if !dated && !filed {
		return ""
	}
	// Links other than to an author's page name sections and sources.
	s.Find("a").Each(func(_ int, a *goquery.Selection) {
		if at := spacedText(a); at != "" && !a.Is(authorLinks) {
			text = strings.Replace(text, at, " | ", 1)
		}
	})
	for _, part := range datelineSeparators.Split(text, -1) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name := cleanAuthor(part, p.url.Hostname(), true)
		if comma := strings.Index(name, ","); comma > 0 && !looksLikeName(name, false) {
			name = strings.TrimSpace(name[:comma]) // "Jane Doe, Chair of the Committee"
		}
		if name == "" || !looksLikeName(name, false) || !properName(name) || onlyTitleWords(name) || hasDatelineWord(name) {
			continue
		}
		return name
	}
	return ""
}

// filedInSection reports a line that files the piece under a section:
// a name in an element of its own, then "in" and a link.
func filedInSection(s *goquery.Selection) bool {
	var kids []*html.Node
	for c := s.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" || c.Type == html.CommentNode {
			continue
		}
		if c.Type == html.ElementNode && (c.Data == "img" || c.Data == "svg" || c.Data == "i") {
			continue // an avatar or an icon
		}
		kids = append(kids, c)
	}
	for i := 0; i+2 < len(kids); i++ {
		name, in, link := kids[i], kids[i+1], kids[i+2]
		if name.Type == html.ElementNode && name.Data != "a" && in.Type == html.TextNode &&
			strings.EqualFold(strings.TrimSpace(in.Data), "in") && link.Type == html.ElementNode && link.Data == "a" {
			return true
		}
	}
	// "Jane Doe in <a>Guides</a>" with the name as plain text.
	for i := 0; i+1 < len(kids); i++ {
		if t := kids[i]; t.Type == html.TextNode && strings.HasSuffix(strings.TrimSpace(t.Data), " in") &&
			kids[i+1].Type == html.ElementNode && kids[i+1].Data == "a" {
			return true
		}
	}
	return false
}

// hasDatelineWord reports a candidate holding a word no name holds: a
// label, a section, a role.
func hasDatelineWord(s string) bool {
	for _, w := range strings.Fields(s) {
		if w = strings.ToLower(strings.Trim(w, ".,:;()")); datelineWords[w] || titleWords[w] || roleWords[w] {
			return true
		}
	}
	return false
}

// nameParticles are the lower-case words names hold between capitalised
// ones: "Ludwig van Beethoven", "Maria de la Cruz".
var nameParticles = map[string]bool{
	"de": true, "da": true, "di": true, "del": true, "della": true, "der": true, "den": true, "van": true,
	"von": true, "la": true, "le": true, "du": true, "dos": true, "das": true, "bin": true, "al": true, "ter": true,
}

// properName is stricter than looksLikeName for a name no markup
// announces: two to four words, each capitalised or a particle, no
// symbols.
func properName(s string) bool {
	words := strings.Fields(s)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if nameParticles[w] {
			continue
		}
		r := []rune(w)
		if !unicode.IsUpper(r[0]) || strings.ContainsAny(w, "&+@#%*=<>[]{}()\"") {
			return false
		}
	}
	return true
}
