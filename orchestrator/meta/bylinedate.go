package meta

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// The byline's date. Many pages print the writer's name and the day of
// publication together, in a box of their own: under the headline, but
// also at the article's end, beside the writer's picture, where no rule of
// the headline's reaches. Once the writer is known, the box around the
// name is read for a date.

// bylineNameRe splits a byline naming several writers.
var bylineNameRe = regexp.MustCompile(`\s*(?:,|&|\band\b|\bund\b|\bet\b|\by\b)\s*`)

// maxBylineBox bounds the text, in characters, of the box around a
// writer's name that is read for a date: a byline, not a paragraph.
const maxBylineBox = 300

// bylineDates returns the dates printed in the box around the first
// place the page prints author's name, publications first; nil when the
// page prints no date there.
func (p *page) bylineDates(author string) (published, modified []string) {
	author = strings.TrimSpace(author)
	name := strings.TrimSpace(bylineNameRe.Split(author, 2)[0])
	if utf8.RuneCountInString(name) < 3 {
		return nil, nil
	}
	var at *goquery.Selection
	p.doc.Find("body *").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if n := p.textLength(s); n < len(name) || n > len(author)+40 {
			return true // cheap to know: most elements are far longer
		}
		if t := strings.TrimSpace(cleanText(s.Text())); !strings.EqualFold(t, name) && !strings.EqualFold(t, author) ||
			s.ParentsFiltered("head, script, style, noscript, template, svg").Length() > 0 ||
			inSubordinateItem(s) || aboutElsewhere(s) {
			return true
		}
		at = s
		return false
	})
	if at == nil {
		return nil, nil
	}
	box := at
	for range 3 {
		box = box.Parent()
		if box.Length() == 0 || p.textLength(box) > maxBylineBox {
			break
		}
		switch goquery.NodeName(box) {
		case "body", "html":
			return nil, nil
		}
		t := spacedText(box)
		if _, ok := findWrittenDate(t); !ok || linksADate(box) {
			continue
		}
		return printedDates([]string{p.labelledText(box, t, nil)})
	}
	return nil, nil
}
