package meta

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// Date statements. Some pages print their date nowhere near the headline
// and in no element named for dates, but in a line of its own that says
// what the date is: "Last updated: November 13, 2025" under a government
// page's text, "Page last reviewed: 3 May 2024" at the foot of a health
// article, "Updated: 10/31/2024" above a post's first paragraph. The label
// leads the line and the date ends it, so the line is about the page and
// not a sentence that mentions a day.

// maxStatementLength bounds a date statement, in characters.
const maxStatementLength = 100

// maxStatementLead bounds the words before a statement's label ("Page
// last reviewed", "This article was last updated on").
const maxStatementLead = 3

// maxStatementTail bounds, in characters, what may follow a statement's
// date: a time of day and its zone ("at 3:45 pm EST").
const maxStatementTail = 24

// dateStatements returns the dates the page states in lines of their own
// (see above), publications and changes apart, in document order. They
// are read in the page's main content (its article or main element), or
// in its body outside the site's header, navigation, sidebars and footer
// when it marks none.
func (p *page) dateStatements() (published, modified []string) {
	scope := p.doc.Find("article, main, [role=main]").First()
	whole := scope.Length() == 0
	if whole {
		scope = p.doc.Find("body")
	}
	scope.Find("*").Each(func(_ int, s *goquery.Selection) {
		if n := p.textLength(s); n == 0 || n > 2*maxStatementLength {
			return // cheap to know: most elements are far longer
		}
		if !isLine(s) {
			return
		}
		t := spacedText(s)
		if utf8.RuneCountInString(t) > maxStatementLength {
			return
		}
		kind, text, ok := statedDateKind(t)
		if !ok || s.ParentsFiltered("script, style, noscript, template, svg").Length() > 0 ||
			inSubordinateItem(s) || aboutElsewhere(s) ||
			whole && s.ParentsFiltered("header, nav, aside, footer, [role=banner], [role=navigation], [role=complementary], [role=contentinfo]").Length() > 0 {
			return
		}
		switch kind {
		case publishedDate:
			published = append(published, text)
		case updatedDate:
			modified = append(modified, text)
		}
	})
	return published, modified
}

// statedDateKind reports whether t is a date statement, the kind of date
// it labels and the text to read the date from: a publication or update
// label within its first few words, then a date, then at most a time of
// day. A statement of a month alone is read as its first day.
func statedDateKind(t string) (kind int, text string, ok bool) {
	best, bestAt, bestEnd := unlabelledDate, len(t), 0
	for _, kind := range []int{publishedDate, updatedDate} {
		if m := dateLabelRes[kind].FindStringIndex(t); m != nil && m[0] < bestAt {
			best, bestAt, bestEnd = kind, m[0], m[1]
		}
	}
	if best == unlabelledDate {
		return unlabelledDate, "", false
	}
	switch strings.ToLower(t[bestAt:bestEnd]) {
	case "edited", "reviewed":
		// A post's edit in a thread, a customer's review: dates of one
		// contribution, not of the page.
		return unlabelledDate, "", false
	}
	lead := t[:bestAt]
	if strings.IndexFunc(lead, unicode.IsDigit) >= 0 || len(strings.Fields(lead)) > maxStatementLead ||
		otherLabelRe.MatchString(t) {
		return unlabelledDate, "", false
	}
	rest := t[bestEnd:]
	if day, ok := monthOnly(rest); ok {
		return best, t[:bestEnd] + " " + day, true // "Last updated: June 2022"
	}
	w, ok := findWrittenDate(rest)
	if !ok || utf8.RuneCountInString(rest[w.end:]) > maxStatementTail {
		return unlabelledDate, "", false
	}
	// Between the label and the date stand only words such as "on" and
	// punctuation, never another sentence.
	if between := rest[:w.start]; len(strings.Fields(between)) > 2 || strings.IndexFunc(between, unicode.IsDigit) >= 0 {
		return unlabelledDate, "", false
	}
	return best, t, true
}
