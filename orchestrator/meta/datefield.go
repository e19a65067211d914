package meta

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
)

// dates returns when the page's content was first published and when it
// was last modified, "" for what the page does not say. Microlink's date is
// the modification date when there is one, else the publication date.
//
// Publication, most trusted first:
//   - the date printed beside the headline, when the declared dates below
//     do not contradict it (see shownPublication);
//   - the main JSON-LD item's datePublished, dateCreated, uploadDate (and
//     an event's startDate);
//   - meta tags whose name says published, publication or pubdate, then
//     issued or created (see metaDateKey), and the same keys inside JSON
//     meta values (parsely-page's pub_date); microdata datePublished;
//     citation, Dublin Core and sailthru dates, <meta name=date|displaydate>;
//   - <time datetime> (inside the article first), each element's
//     data-*date* and data-*time* attributes before it;
//   - visible dates in the article: bylines, post meta lines and elements
//     whose class or id says date, time or publish;
//   - a /2026/11/20/ path in the canonical or final URL;
//   - dates printed near the headline in unlabelled elements, those labelled
//     published or posted first (see headlineDates);
//   - visible dates anywhere in the page.
//
// Modification: the main JSON-LD item's dateModified, meta tags whose name
// says modified or updated (article:modified_time, og:updated_time, ...),
// microdata dateModified.
//
// <meta http-equiv> values are HTTP headers (Last-Modified says when the
// file last changed, not the article) and are never read.
func (p *page) dates(author string) (published, modified string) {
	var headlinePub, headlineMod, headlineActivity, headlineShown, articlePub, articleMod []string
	headlineDone, articleDone := false, false
	headline := func() {
		if !headlineDone {
			headlineDone = true
			headlinePub, headlineMod, headlineActivity, headlineShown = p.headlineDates()
		}
	}
	article := func() {
		if !articleDone {
			articleDone = true
			articlePub, articleMod = printedDates(p.visibleDates("article, main, [role=main], [itemprop~=articleBody]"))
		}
	}
	var bylinePub, bylineMod []string
	bylineDone := false
	byline := func() {
		if !bylineDone {
			bylineDone = true
			bylinePub, bylineMod = p.bylineDates(author)
		}
	}
	var statedPub, statedMod []string
	statedDone := false
	stated := func() {
		if !statedDone {
			statedDone = true
			statedPub, statedMod = p.dateStatements()
		}
	}
	modified = p.firstDate([]func() []string{
		func() []string { return p.ldDates("dateModified") },
		func() []string { return p.metaDates(isModifiedKey) },
		func() []string { return p.itempropDates("dateModified") },
		func() []string { return p.itempropKeyDates(isModifiedKey) },
		func() []string { headline(); return headlineMod },
		func() []string { byline(); return bylineMod },
		func() []string { stated(); return statedMod },
	})
	// Declared publication dates after the latest declared change come
	// last (see notAfter).
	var latestChange *time.Time
	var republished []string
	declared := func(raws []string) []string {
		if latestChange == nil {
			latestChange = new(p.latestDeclaredChange())
		}
		kept, dropped := p.notAfter(raws, *latestChange)
		republished = append(republished, dropped...)
		return kept
	}
	published = p.firstDate([]func() []string{
		func() []string {
			headline()
			return p.shownPublication(headlineShown, slices.Concat(headlineMod, headlineActivity))
		},
		func() []string { return declared(p.ldDates("datePublished", "dateCreated", "uploadDate", "startDate")) },
		func() []string { return declared(p.metaDates(isPublishedKey)) },
		func() []string { return declared(p.metaDates(isIssuedKey)) },
		func() []string { return declared(p.itempropDates("datePublished", "dateCreated", "uploadDate")) },
		func() []string { return declared(p.itempropKeyDates(isPublishedKey)) },
		func() []string {
			return p.metaDates(func(k string) bool {
				switch k {
				case "citationdate", "citationonlinedate", "dcdate", "dctermsdate", "sailthrudate", "date",
					"displaydate", "articledate":
					return true
				}
				return false
			})
		},
		func() []string { return p.itempropDates("date") },
		p.timeElements,
		func() []string { article(); return articlePub },
		p.urlDates,
		func() []string { headline(); return headlinePub },
		func() []string { byline(); return bylinePub },
		func() []string {
			pub, _ := printedDates(p.visibleDates("body"))
			return pub
		},
		func() []string { stated(); return statedPub },
		// A page that prints only when it was updated shows that date as
		// its own: the content is at least that old.
		func() []string { headline(); return headlineMod },
		func() []string { article(); return articleMod },
		func() []string { stated(); return statedMod },
		func() []string { return republished },
	})
	return published, modified
}

// firstDate returns the first date the sources give, in order, made more
// precise by a later copy of it: a bare day by an instant on that same day,
// a time without a zone by the same wall time with one.
func (p *page) firstDate(sources []func() []string) string {
	var chosen dateInfo
	found := false
	for _, source := range sources {
		for _, raw := range source() {
			d, ok := p.parseDate(raw)
			switch {
			case !ok:
				continue
			case !found:
				chosen, found = d, true
			case toTheSecond(chosen, d):
				return FormatDate(d.t)
			case refines(chosen, d):
				if chosen.dayOnly {
					return FormatDate(d.t)
				}
				// The chosen wall time, to the second, in the zone the copy gives.
				w := chosen.wall
				return FormatDate(time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), d.wall.Location()))
			default:
				continue
			}
			if !chosen.dayOnly && chosen.zoned && chosen.t.Truncate(time.Minute) != chosen.t {
				return FormatDate(chosen.t) // nothing can make it more precise
			}
		}
	}
	if !found {
		return ""
	}
	return FormatDate(chosen.t)
}

// toTheSecond reports a later copy of an instant printed to the minute
// ("7:31 pm EDT") that gives its seconds.
func toTheSecond(chosen, later dateInfo) bool {
	return chosen.zoned && !chosen.dayOnly && later.zoned && !later.dayOnly &&
		chosen.t.Truncate(time.Minute) == chosen.t && later.t != chosen.t &&
		later.t.Truncate(time.Minute) == chosen.t
}

// refines reports a later copy of the chosen date that says more: the
// instant (a time with its zone) on a day given bare, or the zone of a time
// given without one. A time without a zone on a bare day would move the
// date by a guess.
func refines(chosen, later dateInfo) bool {
	if later.dayOnly || !later.zoned {
		return false
	}
	cy, cm, cd := chosen.wall.Date()
	ly, lm, ld := later.wall.Date()
	sameDay := cy == ly && cm == lm && cd == ld
	if chosen.dayOnly {
		return sameDay
	}
	return !chosen.zoned && sameDay &&
		chosen.wall.Hour() == later.wall.Hour() && chosen.wall.Minute() == later.wall.Minute()
}

// metaDateKey reduces a meta name to the letters and digits after its
// namespace, so that every spelling of a key compares alike:
// "rnews:datePublished" → "datepublished", "DC.date.issued" →
// "dcdateissued", "article:published_time" → "publishedtime".
func metaDateKey(k string) string {
	if i := strings.LastIndex(k, ":"); i >= 0 {
		k = k[i+1:]
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("-_:. ", r) {
			return -1
		}
		return unicode.ToLower(r)
	}, k)
}

// notDateKeyRe matches meta keys that name something about a date's
// subject rather than the date: who published, which title, what type.
var notDateKeyRe = regexp.MustCompile(`publisher|title|name|author|by$|url|type|place|location|status|user|year$|timezone|zone$`)

func isModifiedKey(k string) bool {
	return !notDateKeyRe.MatchString(k) &&
		(strings.Contains(k, "modified") || strings.Contains(k, "updated") || k == "lastmod" || strings.Contains(k, "revised"))
}

func isPublishedKey(k string) bool {
	if notDateKeyRe.MatchString(k) {
		return false
	}
	for _, w := range []string{"published", "publication", "pubdate", "publishdate", "publishtime", "releasedate"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

func isIssuedKey(k string) bool {
	return !notDateKeyRe.MatchString(k) && (strings.Contains(k, "issued") || strings.Contains(k, "created"))
}

// metaDates returns, in document order, the contents of the <meta name>,
// property and itemprop tags whose key (see metaDateKey) matches, and the
// values of matching keys inside meta contents that are JSON objects
// (<meta name="parsely-page" content='{"pub_date": …}'>). http-equiv tags
// are HTTP headers, not dates of the content.
func (p *page) metaDates(match func(key string) bool) []string {
	var out []string
	for _, m := range p.metas {
		if m.attr == "http-equiv" {
			continue
		}
		c := strings.TrimSpace(m.content)
		if c == "" {
			continue
		}
		if strings.HasPrefix(c, "{") {
			var obj map[string]any
			if json.Unmarshal([]byte(c), &obj) == nil {
				for _, k := range slices.Sorted(maps.Keys(obj)) {
					if v, ok := obj[k].(string); ok && match(metaDateKey(k)) {
						out = append(out, v)
					}
				}
			}
			continue
		}
		if match(metaDateKey(m.key)) {
			if day, ok := monthOnly(c); ok {
				c = day // "2023 Jan", a journal's issue
			}
			out = append(out, c)
		}
	}
	return out
}

// ldDates returns the values of props that the main JSON-LD items carry:
// every item's first prop, then every item's second, and so on.
func (p *page) ldDates(props ...string) []string {
	var out []string
	for _, prop := range props {
		for _, n := range p.ld.nodesUpTo(kindPage) {
			if s := p.ld.ldText(n[prop]); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// itempropDates reads microdata and RDFa dates: content, datetime or title
// attributes, else the text.
func (p *page) itempropDates(props ...string) []string {
	var out []string
	for _, prop := range props {
		p.doc.Find("[itemprop], [property]").Each(func(_ int, s *goquery.Selection) {
			if !isItemProp(s, prop) || inSubordinateItem(s) {
				return
			}
			for _, attr := range []string{"content", "datetime", "title"} {
				if v, ok := s.Attr(attr); ok && strings.TrimSpace(v) != "" {
					out = append(out, v)
					return
				}
			}
			out = append(out, s.Text())
		})
	}
	return out
}

// itempropKeyDates reads the elements (not <meta>, read with the meta
// tags) whose itemprop, in any spelling (published-date, pubDate), matches
// like a meta name (see metaDateKey): their content, datetime or title
// attribute, else their text.
func (p *page) itempropKeyDates(match func(key string) bool) []string {
	var out []string
	p.doc.Find("[itemprop]").Each(func(_ int, s *goquery.Selection) {
		if goquery.NodeName(s) == "meta" || len(out) >= 8 || inSubordinateItem(s) {
			return
		}
		for _, prop := range strings.Fields(s.AttrOr("itemprop", "")) {
			if !match(metaDateKey(prop)) {
				continue
			}
			for _, attr := range []string{"content", "datetime", "title"} {
				if v, ok := s.Attr(attr); ok && strings.TrimSpace(v) != "" {
					out = append(out, v)
					return
				}
			}
			out = append(out, s.Text())
			return
		}
	})
	return out
}

// timeElements returns <time datetime> values, those inside the article
// first: a page lists many dates (comments, related stories), the article's
// own comes first within it. Other elements with a datetime attribute
// (<relative-time>, <time-ago>) come last. An element's data-*date* and
// data-*time* attributes come before its datetime: scripts that print a
// local time keep the zoned original there.
func (p *page) timeElements() []string {
	var out []string
	for _, sel := range []string{"article time[datetime]", "main time[datetime]", "time[datetime]", "[datetime]"} {
		p.doc.Find(sel).Each(func(_ int, s *goquery.Selection) {
			if inSubordinateItem(s) || aboutElsewhere(s) {
				return
			}
			out = append(out, dataDates(s)...)
			out = append(out, s.AttrOr("datetime", ""))
		})
	}
	return out
}

// aboutElsewhere reports an element inside a block about other pages or
// other people (comments, related stories, quotes; see isElsewhere).
func aboutElsewhere(s *goquery.Selection) bool {
	for e := s.Parent(); e.Length() > 0; e = e.Parent() {
		switch goquery.NodeName(e) {
		case "body", "html", "#document":
			return false
		}
		if isElsewhere(e) {
			return true
		}
	}
	return false
}

// dataDates returns the values of an element's data-* attributes whose name
// says date or time (data-origindate, data-timestamp, data-published-time).
func dataDates(s *goquery.Selection) []string {
	var out []string
	for _, n := range s.Nodes {
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "data-") && (strings.Contains(k, "date") || strings.Contains(k, "time")) &&
				strings.TrimSpace(a.Val) != "" {
				out = append(out, a.Val)
			}
		}
	}
	return out
}

// visibleDates returns the text of bylines, post meta lines and elements
// named for dates inside scope, for pages whose only date is the one printed
// for readers; each element's data-*date* attributes first (see
// timeElements).
func (p *page) visibleDates(scope string) []string {
	if out, ok := p.visible[scope]; ok {
		return out
	}
	out := p.readVisibleDates(scope)
	if p.visible == nil {
		p.visible = map[string][]string{}
	}
	p.visible[scope] = out
	return out
}

// readVisibleDates is visibleDates, read from the document.
func (p *page) readVisibleDates(scope string) []string {
	var out []string
	sel := `[class*="byline" i], [class*="publish" i], [class*="posted" i], [class*="meta" i], [id*="date" i], [class*="date" i], [class*="time" i], time`
	p.doc.Find(scope).Find(sel).Each(func(_ int, s *goquery.Selection) {
		if len(out) >= 40 || s.ParentsFiltered("script, style, noscript, svg, template").Length() > 0 ||
			inSubordinateItem(s) || aboutElsewhere(s) {
			return
		}
		out = append(out, dataDates(s)...)
		t := cleanText(s.Text())
		if t != "" && len(t) <= 200 {
			out = append(out, p.labelledText(s, t, nil))
		}
		for _, k := range tooltipAttrs {
			if v := s.AttrOr(k, ""); v != "" {
				out = append(out, v)
			}
		}
	})
	return out
}

// tooltipAttrs hold the text a page shows on hover: where a date is
// printed as "1 year ago", the day itself is often there ("Friday, October
// 4th, 2024 at 3:43 PM").
var tooltipAttrs = []string{"title", "data-tooltip", "data-tippy-content", "data-original-title", "data-bs-original-title"}

// linkedElsewhere reports an element that is, or is inside, a link to
// another page. A link to the page itself, a post's permalink, is the
// post's own date in threads and comment-less blogs alike.
func (p *page) linkedElsewhere(s *goquery.Selection) bool {
	a := s
	if goquery.NodeName(s) != "a" {
		a = s.ParentsFiltered("a").First()
	}
	if a.Length() == 0 {
		return false
	}
	return !p.isPermalink(a)
}

// isPermalink reports a link to the page itself: the same path, with or
// without another query or fragment (viewtopic.php?p=12#p12 on
// viewtopic.php?t=3).
func (p *page) isPermalink(a *goquery.Selection) bool {
	href := strings.TrimSpace(a.AttrOr("href", ""))
	if href == "" || strings.HasPrefix(href, "#") {
		return href != ""
	}
	for _, raw := range []string{p.base.String(), p.canonicalURL()} {
		page, err := url.Parse(raw)
		if err != nil || raw == "" {
			continue
		}
		u, err := page.Parse(href)
		if err == nil && strings.EqualFold(u.Hostname(), page.Hostname()) && u.Path == page.Path {
			return true
		}
	}
	return false
}

// linksADate reports an element with a link whose text holds a date.
func linksADate(s *goquery.Selection) bool {
	found := false
	s.Find("a").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		_, found = findWrittenDate(cleanText(a.Text()))
		return !found
	})
	return found
}

// Labels of printed dates, in the languages whose dates ParseDate reads:
// publishedLabelRe says the date is the publication's, updatedLabelRe that
// it is a later change, and otherLabelRe that it is no date of the content
// at all (when a member registered, when an offer ends).
var (
	publishedLabelRe = regexp.MustCompile(`(?i)\b(?:published|posted|asked|started|created|written on|first published|date published)\b|` +
		`publié|publiée|veröffentlicht|erschienen|publicado|publicada|pubblicato|gepubliceerd|geplaatst|opublikowano|` +
		`опубликовано|публикация|掲載|公開|配信|发布|發布|发表|發表`)
	updatedLabelRe = regexp.MustCompile(`(?i)\b(?:updated|last modified|modified|edited|revised|last reviewed|reviewed|` +
		`fact checked|last changed)\b|aktualisiert|geändert|mis à jour|mise à jour|actualizado|actualizada|` +
		`atualizado|aggiornato|bijgewerkt|zaktualizowano|обновлено|обновлён|更新|修改|最終更新`)
	otherLabelRe = regexp.MustCompile(`(?i)\b(?:registered|joined|member since|last seen|last active|last login|last visit|` +
		`birthday|born|expires|expiry|deadline|closing date|ends|valid until|offer ends|sale ends|copyright)\b|` +
		`registriert|mitglied seit|inscrit|inscrito|iscritto|зарегистрирован|©`)
	// activityLabelRe says the date is a thread's latest activity: no
	// change to the content the page is about, but a sign that the other
	// dates printed beside it are the thread's own.
	activityLabelRe = regexp.MustCompile(`(?i)\b(?:last post|latest post|last reply|latest reply|last activity|last comment)\b|` +
		`letzter beitrag|dernier message|último mensaje|ultimo messaggio`)
)

// dateLabelRes are the label expressions by the kind of date they label.
var dateLabelRes = map[int]*regexp.Regexp{publishedDate: publishedLabelRe, updatedDate: updatedLabelRe,
	otherDate: otherLabelRe, activityDate: activityLabelRe}

// Kinds of printed dates, by their label.
const (
	unlabelledDate = iota
	publishedDate
	updatedDate
	otherDate
	activityDate
)

// labelledDate is a piece of printed text holding at most one labelled date.
type labelledDate struct {
	text string
	kind int
}

// splitDateLabels cuts a printed text at each date label, so that
// "Published May 3, 2024 · Updated June 1, 2024" gives the publication and
// the update apart; text before the first label is unlabelled.
func splitDateLabels(t string) []labelledDate {
	type mark struct{ at, kind int }
	var marks []mark
	for kind, re := range dateLabelRes {
		for _, m := range re.FindAllStringIndex(t, 8) {
			marks = append(marks, mark{m[0], kind})
		}
	}
	if len(marks) == 0 {
		return []labelledDate{{t, unlabelledDate}}
	}
	slices.SortFunc(marks, func(a, b mark) int {
		if a.at != b.at {
			return a.at - b.at
		}
		return a.kind - b.kind
	})
	var out []labelledDate
	if marks[0].at > 0 {
		out = append(out, labelledDate{t[:marks[0].at], unlabelledDate})
	}
	for i, m := range marks {
		end := len(t)
		if i+1 < len(marks) {
			end = marks[i+1].at
		}
		out = append(out, labelledDate{t[m.at:end], m.kind})
	}
	return out
}

// printedDates sorts printed texts into publication dates and
// modification dates by their labels (see splitDateLabels); a text without
// a label is the publication's, and dates labelled as something else are
// dropped.
func printedDates(texts []string) (published, modified []string) {
	for _, t := range texts {
		for _, part := range splitDateLabels(t) {
			if _, ok := findWrittenDate(part.text); !ok && part.kind != unlabelledDate {
				continue
			}
			switch part.kind {
			case unlabelledDate, publishedDate:
				published = append(published, part.text)
			case updatedDate:
				modified = append(modified, part.text)
			}
		}
	}
	return published, modified
}

// headlineDates returns the dates printed near the headline in elements
// that carry no date markup at all: numeric (2019.03.05), CJK (2019年3月5日)
// or with a written month. They are read in the blocks around the headline,
// nearest first (see articleBlocks), within a few lines of text of it and
// outside links, those labelled as the publication date or printed in a
// byline before the others. Dates labelled as updates are modifications,
// and a thread's latest activity is activity. shown is the first of the
// publication dates outside teasers of other pages (see inTeaser), which
// alone may outrank the declared dates (see shownPublication).
func (p *page) headlineDates() (published, modified, activity, shown []string) {
	h := p.mainHeading()
	for i, block := range p.articleBlocks() {
		if i >= maxByDepth {
			break
		}
		var labelled, plain, updated, latest []string
		// The same, without the dates of teasers of other pages.
		var ownLabelled, ownPlain []string
		block.Find("*").Each(func(_ int, s *goquery.Selection) {
			if n := p.textLength(s); n == 0 || n > 300 {
				return // cheap to know, and most elements are too long or empty
			}
			t := spacedText(s)
			if t == "" || utf8.RuneCountInString(t) > 100 {
				return
			}
			if _, ok := findWrittenDate(t); !ok {
				return
			}
			if h != nil && (s.IsSelection(h) || s.ParentsFiltered("h1").Length() > 0) || outsideArticle(s, block) {
				return
			}
			// Linked dates belong to lists of other posts ("A trip
			// (2016/07/30)"); the article's own stands near its headline.
			if p.linkedElsewhere(s) || linksADate(s) || p.textDistance(s) > maxBylineDistance {
				return
			}
			for _, part := range splitDateLabels(p.labelledText(s, t, block)) {
				if _, ok := findWrittenDate(part.text); !ok {
					continue
				}
				switch {
				case part.kind == updatedDate:
					updated = append(updated, part.text)
				case part.kind == activityDate:
					latest = append(latest, part.text)
				case part.kind == publishedDate || part.kind == unlabelledDate && byWordRe.MatchString(t):
					labelled = append(labelled, part.text)
					if len(ownLabelled) == 0 && !p.inTeaser(s, block) {
						ownLabelled = append(ownLabelled, part.text)
					}
				case part.kind == unlabelledDate:
					plain = append(plain, part.text)
					if len(ownPlain) == 0 && !p.inTeaser(s, block) {
						ownPlain = append(ownPlain, part.text)
					}
				}
			}
		})
		if len(labelled)+len(plain)+len(updated)+len(latest) > 0 {
			return append(labelled, plain...), updated, latest, append(ownLabelled, ownPlain...)
		}
	}
	return nil, nil, nil, nil
}

var (
	urlDateRe = regexp.MustCompile(`/((?:19|20)\d{2})/(0?[1-9]|1[0-2])/(0?[1-9]|[12]\d|3[01])(?:/|$)`)
	// urlDashDateRe is a date at the start of a path segment:
	// /2024-03-05-a-title, /articles/2024-03-05+title.
	urlDashDateRe = regexp.MustCompile(`/((?:19|20)\d{2})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[-_+/.]|$)`)
)

// urlDates reads the date many sites put in article paths
// (/2026/11/20/title, /2026-11-20-title), from the canonical URL, og:url
// and the final URL.
func (p *page) urlDates() []string {
	var out []string
	for _, raw := range []string{p.canonicalURL(), p.meta("og:url"), p.url.String()} {
		raw = strings.TrimSpace(raw)
		if strings.Contains(raw, "%2F") || strings.Contains(raw, "%2f") {
			// A URL escaped whole (https://host%2Fa%2Fb) still names its path.
			if dec, err := url.PathUnescape(raw); err == nil {
				raw = dec
			}
		}
		u, err := url.Parse(raw)
		if err != nil || raw == "" {
			continue
		}
		path := u.Path
		m := urlDateRe.FindStringSubmatch(path)
		if m == nil {
			m = urlDashDateRe.FindStringSubmatch(path)
		}
		if m != nil {
			mo, _ := strconv.Atoi(m[2])
			d, _ := strconv.Atoi(m[3])
			// Written out, the day reads as a day without a time (at noon, as
			// for every written date), which a full time may refine.
			out = append(out, fmt.Sprintf("%d %s %s", d, time.Month(mo), m[1]))
		}
	}
	return out
}
