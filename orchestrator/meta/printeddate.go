package meta

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// Printed dates and the declared ones. A page declares its dates in its
// markup (JSON-LD, meta tags, microdata) and prints one for its readers
// beside the headline. The two usually agree; when they do not, the printed
// one is what the page says of itself today, and the declared one is often
// a leftover: the day a content system first saved a draft, a migration, a
// template's clock. These rules tell which printed date is which (a label
// may sit in the element around the date, or in its class) and when the
// printed date outranks the declared one.

// maxLabelContext bounds the text, in characters, of an element around a
// date that is searched for the date's label: a dateline, not a paragraph.
const maxLabelContext = 200

// inheritedDateKind is the label of a printed date whose own text has
// none: pages print the label and the date in elements of their own
// ("<span>Updated on</span> <span>April 19, 2025</span>"). It is read from
// the text just before the date in the nearest enclosing elements, up to
// stop, when a label stands there with no other date between it and this
// one.
func (p *page) inheritedDateKind(s *goquery.Selection, text string, stop *goquery.Selection) int {
	e := s
	for i := 0; i < 3; i++ {
		if stop != nil && e.IsSelection(stop) {
			break
		}
		e = e.Parent()
		if e.Length() == 0 {
			break
		}
		switch goquery.NodeName(e) {
		case "body", "html", "#document":
			return unlabelledDate
		}
		// Its length is known without reading it: a wrapper of the whole
		// page is never read once per date inside it.
		if p.textLength(e) > 4*maxLabelContext {
			break
		}
		around := spacedText(e)
		if utf8.RuneCountInString(around) > maxLabelContext {
			break
		}
		at := strings.Index(around, text)
		if at < 0 {
			continue
		}
		before := around[:at]
		kind, end := lastDateLabel(before)
		if kind != unlabelledDate {
			if _, ok := findWrittenDate(before[end:]); ok {
				return unlabelledDate // the label is another date's
			}
			return kind
		}
		if _, ok := findWrittenDate(before); ok {
			return unlabelledDate
		}
	}
	return unlabelledDate
}

// lastDateLabel finds the last date label in s: its kind and where it ends.
func lastDateLabel(s string) (kind, end int) {
	kind, start := unlabelledDate, -1
	for k, re := range dateLabelRes {
		for _, m := range re.FindAllStringIndex(s, -1) {
			if m[0] > start || m[0] == start && m[1] > end {
				kind, start, end = k, m[0], m[1]
			}
		}
	}
	return kind, end
}

// labelWords stand for a label a printed date inherits, written before its
// text so that the date reads as the page meant it (see printedDates).
var labelWords = map[int]string{publishedDate: "Published ", updatedDate: "Updated ", otherDate: "Expires ", activityDate: "Last post "}

// labelledText is a printed date's text with the label it inherits written
// before it, when its own text has none.
func (p *page) labelledText(s *goquery.Selection, text string, stop *goquery.Selection) string {
	if parts := splitDateLabels(text); len(parts) != 1 || parts[0].kind != unlabelledDate {
		return text
	}
	if k := p.inheritedDateKind(s, text, stop); k != unlabelledDate {
		return labelWords[k] + text
	}
	return text
}

// declaredDate is a date the page's markup gives, as written and as read.
type declaredDate struct {
	raw string
	dateInfo
}

// declaredDates are the dates the page's markup gives, publication and
// modification apart.
func (p *page) declaredDates() (published, modified []declaredDate) {
	read := func(out []declaredDate, raws []string) []declaredDate {
		for _, raw := range raws {
			if d, ok := p.parseDate(raw); ok {
				out = append(out, declaredDate{raw, d})
			}
		}
		return out
	}
	published = read(published, p.ldDates("datePublished", "dateCreated", "uploadDate"))
	published = read(published, p.metaDates(isPublishedKey))
	published = read(published, p.metaDates(isIssuedKey))
	published = read(published, p.itempropDates("datePublished", "dateCreated", "uploadDate"))
	modified = read(modified, p.ldDates("dateModified"))
	modified = read(modified, p.metaDates(isModifiedKey))
	modified = read(modified, p.itempropDates("dateModified"))
	return published, modified
}

// sameDate reports a printed date and a declared one that name the same
// day: the same calendar day as written; an instant written in UTC that
// falls on the printed day somewhere on Earth (a site's local midnight is
// not UTC's); or, for a numeric date that reads both ways (09.10.2024),
// the other reading.
func sameDate(printed, declared dateInfo, text string) bool {
	py, pm, pd := printed.wall.Date()
	dy, dm, dd := declared.wall.Date()
	if py == dy && pm == dm && pd == dd {
		return true
	}
	if declared.zoned && !declared.dayOnly && printed.dayOnly {
		if _, off := declared.wall.Zone(); off == 0 {
			day := time.Date(py, pm, pd, 0, 0, 0, 0, time.UTC)
			if !declared.t.Before(day.Add(-14*time.Hour)) && declared.t.Before(day.Add(36*time.Hour)) {
				return true
			}
		}
	}
	if m := dmyRe.FindStringSubmatch(text); m != nil && m[2] == m[4] {
		a, b := atoiAt(m[1], 0, len(m[1])), atoiAt(m[3], 0, len(m[3]))
		y := atoiAt(m[5], 0, len(m[5]))
		if a <= 12 && b <= 12 && a != b && y == dy &&
			(a == int(dm) && b == dd || b == int(dm) && a == dd) {
			return true
		}
	}
	return false
}

// shownPublication is the publication date printed beside the headline
// (see headlineDates) when it outranks the declared ones, nil when it does
// not. It does when a declared publication date names its day (the two
// agree, and the declared date that names the printed day comes first), when the headline also prints a different update
// date (the page tells its two dates apart itself), or when no declared
// date names its day and the declared publication date is not printed on
// the page either: a page whose declared publication names a day it never
// shows, while it shows another, is read as its readers read it. A page
// that prints its declared modification date beside the headline, as many
// templates do, keeps its declared publication.
func (p *page) shownPublication(printed, printedUpdates []string) []string {
	shown, text, ok := p.firstParsed(printed)
	if !ok {
		return nil
	}
	published, modified := p.declaredDates()
	for _, d := range published {
		if sameDate(shown, d.dateInfo, text) {
			return []string{d.raw, text}
		}
	}
	if update, updateText, ok := p.firstParsed(printedUpdates); ok && !sameDate(shown, update, updateText) {
		return []string{text}
	}
	for _, d := range modified {
		if sameDate(shown, d.dateInfo, text) {
			return nil
		}
	}
	if len(published) > 0 && p.printsAnyOf(published) {
		return nil
	}
	return []string{text}
}

// firstParsed is the first of raws that reads as a date, and its text.
func (p *page) firstParsed(raws []string) (dateInfo, string, bool) {
	for _, raw := range raws {
		if d, ok := p.parseDate(raw); ok {
			return d, raw, true
		}
	}
	return dateInfo{}, "", false
}

// printsAnyOf reports a page whose visible dates (see visibleDates) name
// the day of one of dates, other than as an update.
func (p *page) printsAnyOf(dates []declaredDate) bool {
	for _, raw := range p.visibleDates("body") {
		for _, part := range splitDateLabels(raw) {
			if part.kind != unlabelledDate && part.kind != publishedDate {
				continue
			}
			d, ok := p.parseDate(part.text)
			if !ok {
				continue
			}
			for _, want := range dates {
				if sameDate(d, want.dateInfo, part.text) {
					return true
				}
			}
		}
	}
	return false
}

// latestDeclaredChange is the latest modification date the page's markup
// declares, the zero time when it declares none.
func (p *page) latestDeclaredChange() time.Time {
	var latest time.Time
	_, modified := p.declaredDates()
	for _, d := range modified {
		if d.t.After(latest) {
			latest = d.t
		}
	}
	return latest
}

// notAfter sets apart the declared publication dates that come more than
// a day and a half after latest, the page's latest declared change:
// content is changed only after it is first published, so such a date is
// when the page was last put out again (a content system's publish
// timestamp), not when it first was. A zero latest sets apart nothing.
func (p *page) notAfter(raws []string, latest time.Time) (kept, dropped []string) {
	if latest.IsZero() {
		return raws, nil
	}
	for _, raw := range raws {
		if d, ok := p.parseDate(raw); ok && d.t.After(latest.Add(36*time.Hour)) {
			dropped = append(dropped, raw)
			continue
		}
		kept = append(kept, raw)
	}
	return kept, dropped
}

// inTeaser reports a printed date inside a short block that also holds a
// heading linking to another page: a card of a related story, whose date
// is that story's. Links to the page itself (see isPermalink) do not
// count. stop is the outermost element searched.
func (p *page) inTeaser(s *goquery.Selection, stop *goquery.Selection) bool {
	for i, e := 0, s; i < 4 && e.Length() > 0; i, e = i+1, e.Parent() {
		if stop != nil && e.IsSelection(stop) || p.textLength(e) > 4*maxLabelContext {
			return false
		}
		switch goquery.NodeName(e) {
		case "body", "html", "#document":
			return false
		}
		if e.Find("h1").Length() > 0 {
			return false // the headline's own block
		}
		found := false
		e.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
			if p.isPermalink(a) {
				return true
			}
			found = a.ParentsFiltered("h2, h3, h4, h5, h6").Length() > 0 || a.Find("h2, h3, h4, h5, h6").Length() > 0
			return !found
		})
		if found {
			return true
		}
	}
	return false
}
