package meta

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"
)

// author returns who wrote the page. Sources, most specific first:
//   - the author (or creator) of the main JSON-LD item, resolved through @id
//     references; several authors are joined ("A and B", "A, B and C");
//   - <meta name=author>, article:author (when a name, not a profile URL),
//     parsely-author, sailthru.author, citation_author, Dublin Core creator,
//     byl;
//   - microdata and RDFa author: [itemprop=author] (its name when it is an
//     item), [property=author]; <link rel=author title>;
//   - the byline printed with the article (see bylineNames);
//   - twitter:creator, when it gives a name rather than a handle.
//
// Every value is cleaned of "By", handles, URLs and dates. A handle alone
// (@jane, jane_doe) is never an author. A name that is an organisation —
// the publisher again, a company, a news agency, the copyright holder, or a
// JSON-LD Organization — is kept back while a later source may still name a
// person, and returned only when none does: a personal site's author is its
// publisher too, but a company in <meta name=author> must not hide the
// journalist in the byline.
func (p *page) author(publisher string) string {
	fallback, printedOrg := "", ""
	for _, src := range p.authorSources() {
		if src.unmarked && fallback != "" {
			continue
		}
		var names []string
		seen := map[string]bool{}
		for _, v := range src.values() {
			name := ""
			if v.user {
				name = cleanUserName(v.text)
			} else {
				name = p.cutSiteName(cleanAuthor(v.text, p.url.Hostname(), src.visible || v.printed), publisher)
			}
			if name == "" && !src.visible && fallback == "" && p.isOwnDomainName(v.text) {
				fallback = cleanText(v.text) // the site signs with its domain: "Example.com"
			}
			if name == "" || seen[foldKey(name)] {
				continue
			}
			seen[foldKey(name)] = true
			if v.org || p.isOrganization(name, publisher) || isCollectiveByline(name) {
				switch {
				case fallback == "" && !src.visible:
					fallback = name
				case printedOrg == "" && src.visible:
					printedOrg = name
				}
				continue
			}
			names = append(names, name)
			if src.visible {
				break // one byline is enough; the rest of the page repeats or lists others
			}
		}
		if len(names) > 0 {
			return smartQuotes(p.ownerFullName(joinNames(names), publisher))
		}
	}
	if fallback == "" {
		// A page that names no person but prints an organisation as its
		// byline ("Podium Staff") is signed by that organisation.
		fallback = printedOrg
	}
	if fallback == "" {
		fallback = p.domainOwner(publisher)
	}
	return smartQuotes(fallback)
}

// authorValue is one name a source offers.
type authorValue struct {
	text string
	// org is set when the markup types the author as an organisation.
	org bool
	// user marks a forum's or a Q&A site's user name, which is its
	// poster's name there even when it reads as a handle (jane_doe42).
	user bool
	// printed marks a name read off an element's text rather than an
	// attribute: it carries what bylines print around a name (a job
	// title, "Updated"), cut as from a visible byline.
	printed bool
}

type authorSource struct {
	values func() []authorValue
	// visible marks names read off page text, which bylineNames has judged
	// to look like names; they are never kept back as a fallback.
	visible bool
	// unmarked marks names read off text that no markup or label calls a
	// byline; an organisation the markup names as the author beats them.
	unmarked bool
}

func (p *page) authorSources() []authorSource {
	texts := func(vs []string) []authorValue {
		out := make([]authorValue, 0, len(vs))
		for _, v := range vs {
			out = append(out, authorValue{text: v})
		}
		return out
	}
	sources := []authorSource{{values: p.ldAuthors}}
	for _, key := range []string{"author", "article:author", "og:article:author", "parsely-author", "sailthru.author",
		"citation_author", "dc.creator", "dcterms.creator", "byl"} {
		sources = append(sources, authorSource{values: func() []authorValue {
			vs := p.metaAll(key)
			if key == "citation_author" || key == "dc.creator" || key == "dcterms.creator" {
				for i, v := range vs {
					vs[i] = uninvert(v)
				}
			}
			return texts(vs)
		}})
	}
	return append(sources, []authorSource{
		{values: p.cardLabelAuthors},
		{values: p.profileLinkAuthors},
		{values: p.microdataAuthors},
		{values: p.microformatAuthors},
		{values: p.posterAuthors},
		{values: func() []authorValue {
			var out []authorValue
			p.doc.Find(`link[rel~="author" i][title]`).Each(func(_ int, s *goquery.Selection) {
				// Documentation generators point rel=author at a page
				// "About these documents".
				if t := s.AttrOr("title", ""); !hasInterfaceWord(t) {
					out = append(out, authorValue{text: t})
				}
			})
			return out
		}},
		{values: p.bylineNames, visible: true},
		{values: p.datelineNames, visible: true, unmarked: true},
		{values: p.authorBoxNames, visible: true, unmarked: true},
		{values: p.moreByNames, visible: true},
		{values: p.labelledNames, visible: true, unmarked: true},
		{values: p.noscriptAuthors},
		{values: p.threadUserNames},
		{values: func() []authorValue { return texts(p.metaAll("twitter:creator")) }},
		{values: p.dataLayerAuthors, unmarked: true},
	}...)
}

// pagePostAuthorRe finds the post's author in the data layer that
// WordPress's tag-manager plugin writes into the page:
// dataLayer_content = {"pagePostType":"post","pagePostAuthor":"Jane Roe"}.
var pagePostAuthorRe = regexp.MustCompile(`"pagePostAuthor"\s*:\s*("(?:[^"\\]|\\.){1,200}")`)

// maxDataLayerScripts bounds the inline scripts read for a data layer.
const maxDataLayerScripts = 40

// dataLayerAuthors returns the author a tag manager's data layer names:
// the last thing read, when nothing the page prints or declares names one.
func (p *page) dataLayerAuthors() []authorValue {
	var out []authorValue
	p.doc.Find("script:not([src])").EachWithBreak(func(i int, s *goquery.Selection) bool {
		text := s.Text()
		if !strings.Contains(text, "pagePostAuthor") {
			return i < maxDataLayerScripts
		}
		if m := pagePostAuthorRe.FindStringSubmatch(text); m != nil {
			var name string
			if json.Unmarshal([]byte(m[1]), &name) == nil {
				out = append(out, authorValue{text: name})
			}
		}
		return false
	})
	return out
}

// looksLikeName is the extra test for names read off page text: two to six
// words (one allowed when oneWord), no digits, not a sentence, no button
// labels, mostly capitalised.
func looksLikeName(s string, oneWord bool) bool {
	words := strings.Fields(s)
	if len(words) < 2 && !(oneWord && len(words) == 1) || len(words) > 6 || strings.ContainsFunc(s, unicode.IsDigit) {
		return false
	}
	if last := words[len(words)-1]; strings.LastIndexAny(last, ".!?") == len(last)-1 && utf8.RuneCountInString(last) > 3 {
		return false // a sentence, not "Martin Luther King Jr."
	}
	if strings.ContainsAny(s, "!?;|:") {
		return false
	}
	seen := map[string]bool{}
	for _, w := range words {
		lw := strings.ToLower(strings.Trim(w, ".,"))
		if interfaceWords[lw] || seen[lw] {
			return false // "Share Tweet Email", "Follow Follow"
		}
		if clauseWords[w] {
			return false // "Wes Bos is a Full Stack …": a sentence about someone
		}
		seen[lw] = true
	}
	// A name's words start with a capital (or are particles such as "de",
	// "van"); "read more stories" or "comments" do not.
	capital := 0
	for _, w := range words {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) || !unicode.IsLower(r) {
			capital++
		}
	}
	return capital*2 > len(words)
}

// hasInterfaceWord reports text holding a word of interfaceWords.
func hasInterfaceWord(s string) bool {
	for _, w := range strings.Fields(s) {
		if interfaceWords[strings.ToLower(strings.Trim(w, ".,"))] {
			return true
		}
	}
	return false
}

// clauseWords are words of a sentence, written in lower case, that no name
// holds: a bio's opening cut short reads "Jane Roe is a Senior …".
var clauseWords = map[string]bool{"is": true, "was": true, "are": true, "were": true, "has": true, "have": true,
	"had": true, "who": true, "which": true, "our": true, "your": true, "my": true, "we": true}

// interfaceWords are the words of buttons and links printed around bylines,
// which no name contains.
var interfaceWords = map[string]bool{
	"share": true, "tweet": true, "email": true, "e-mail": true, "follow": true, "unfollow": true,
	"profile": true, "subscribe": true, "comment": true, "comments": true, "menu": true, "login": true,
	"read": true, "view": true, "posts": true, "articles": true, "stories": true, "privacy": true,
	"policy": true, "terms": true, "cookies": true, "contact": true, "facebook": true, "twitter": true,
	"linkedin": true, "instagram": true, "whatsapp": true, "reddit": true, "pinterest": true, "bio": true,
	"meet": true, "about": true,
}

// ldAuthors returns the author names of the first main JSON-LD item that
// names any, marking those typed as organisations.
func (p *page) ldAuthors() []authorValue {
	for _, n := range p.ld.nodesUpTo(kindPage) {
		user := false
		for _, t := range ldTypes(n) {
			user = user || discussionTypes[t]
		}
		for _, prop := range []string{"author", "creator"} {
			if vs := p.ld.ldParties(n[prop], 0); len(vs) > 0 {
				for i := range vs {
					vs[i].user = user && !vs[i].org
				}
				return vs
			}
		}
	}
	// A product is made by its brand, as metascraper reads it.
	for _, n := range p.ld.nodesUpTo(kindArticle) {
		if !slices.Contains(ldTypes(n), "product") {
			continue
		}
		for _, name := range p.ld.ldNames(n["brand"], 0) {
			if strings.TrimSpace(name) != "" {
				return []authorValue{{text: name, org: true}}
			}
		}
	}
	return nil
}

// ldParties is ldNames with the kind of each party: an object typed as an
// Organization (or kin) is no person.
func (g *ldGraph) ldParties(v any, depth int) []authorValue {
	if depth > 4 {
		return nil
	}
	switch t := g.resolve(v).(type) {
	case ldNode:
		org := false
		for _, typ := range ldTypes(t) {
			org = org || partyTypes[typ] && typ != "person"
		}
		var out []authorValue
		for _, name := range g.ldNames(t, depth+1) {
			out = append(out, authorValue{text: name, org: org})
		}
		return out
	case []any:
		var out []authorValue
		for _, e := range t {
			out = append(out, g.ldParties(e, depth+1)...)
		}
		return out
	}
	var out []authorValue
	for _, name := range g.ldNames(v, depth+1) {
		out = append(out, authorValue{text: name})
	}
	return out
}

// microdataAuthors returns the names of microdata or RDFa author elements —
// the name inside an author item, or the element's own value — of the first
// item that has any: a page listing other articles carries their authors too.
func (p *page) microdataAuthors() []authorValue {
	return p.microdataAuthorsIn(p.doc.Selection)
}

// microdataAuthorsIn is microdataAuthors over the elements under root.
func (p *page) microdataAuthorsIn(root *goquery.Selection) []authorValue {
	var out []authorValue
	var owner, ownerEntry *goquery.Selection
	root.Find("[itemprop], [property]").Each(func(_ int, s *goquery.Selection) {
		if !HasToken(s.AttrOr("itemprop", ""), "author") && !HasToken(s.AttrOr("property", ""), "author") &&
			!HasToken(s.AttrOr("itemprop", ""), "creator") && !HasToken(s.AttrOr("property", ""), "creator") {
			return
		}
		if goquery.NodeName(s) == "meta" && s.AttrOr("itemprop", "") == "" {
			return // <meta property=article:author> and kin are read with the meta tags
		}
		if inSubordinateItem(s) {
			return // an answer's or a comment's author
		}
		item := s.Parent().Closest("[itemscope], [typeof], [vocab]")
		if isReplyItem(item) {
			return // an answer's or a reply's author, even where it is no nested item
		}
		// Within the item (or outside any), an <article> is an entry of
		// its own: the cards of other posts each carry their own author.
		entry := s.Closest("article")
		if entry.Length() > 0 && item.Length() > 0 && !item.Contains(entry.Nodes[0]) {
			entry = entry.Slice(0, 0)
		}
		if owner == nil {
			owner, ownerEntry = item, entry
		} else if item.Length() != owner.Length() || (item.Length() > 0 && !item.IsSelection(owner)) {
			return
		} else if entry.Length() != ownerEntry.Length() || (entry.Length() > 0 && !entry.IsSelection(ownerEntry)) {
			return
		}
		if _, scoped := s.Attr("itemscope"); scoped {
			found, printed := "", true
			s.Find("[itemprop]").EachWithBreak(func(_ int, c *goquery.Selection) bool {
				if HasToken(c.AttrOr("itemprop", ""), "name") {
					found, printed = itemValue(c), isPrintedValue(c)
				}
				return strings.TrimSpace(found) == ""
			})
			if found == "" {
				found, printed = s.Text(), true
			}
			typ := strings.ToLower(s.AttrOr("itemtype", ""))
			out = append(out, authorValue{text: found, org: strings.Contains(typ, "organization") || strings.Contains(typ, "corporation"),
				user: isDiscussionItem(item), printed: printed})
			return
		}
		if n := goquery.NodeName(s); n == "a" || n == "link" {
			if t := strings.TrimSpace(s.Text()); t != "" {
				out = append(out, authorValue{text: t})
			} else {
				out = append(out, authorValue{text: s.AttrOr("title", "")})
			}
			return
		}
		out = append(out, authorValue{text: itemValue(s), printed: isPrintedValue(s)})
	})
	return out
}

// microformatAuthors returns the author microformats name: the first
// element the page marks as an entry's author (class p-author or
// u-author) outside a comment or a cited entry, read as its card's p-name
// when it is a card (h-card) that names one, else as its text. IndieWeb
// blogs and some link aggregators mark their posts so and nothing else.
func (p *page) microformatAuthors() []authorValue {
	var out []authorValue
	p.doc.Find(".p-author, .u-author").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.Closest(".h-cite, .p-comment, .u-comment, .h-review").Length() > 0 || outsideArticle(s, nil) {
			return true
		}
		name := ""
		if s.HasClass("h-card") {
			name = cleanText(s.Find(".p-name").First().Text())
		}
		if name == "" {
			name = cleanText(s.Text())
		}
		if name == "" {
			return true
		}
		out = append(out, authorValue{text: name})
		return false
	})
	return out
}

// isSiteLink reports a link to the site itself (an author page), not to
// somewhere else: links in an author's bio name their books and projects.
func (p *page) isSiteLink(s *goquery.Selection) bool {
	href := strings.TrimSpace(s.AttrOr("href", ""))
	if href == "" || strings.HasPrefix(href, "/") && !strings.HasPrefix(href, "//") || !strings.Contains(href, ":") && !strings.HasPrefix(href, "//") {
		return true
	}
	u, err := p.base.Parse(href)
	if err != nil {
		return false
	}
	target := registrableDomain(u.Hostname())
	for _, own := range []string{p.url.String(), p.canonicalURL()} {
		if o, err := url.Parse(own); err == nil && target != "" && registrableDomain(o.Hostname()) == target {
			return true
		}
	}
	return false
}

// authorLinks match links to an author's page: rel=author, or a path that
// names authors, people or profiles in the main European languages.
const authorLinks = `a[rel~="author" i], a[href*="/author/" i], a[href*="/authors/" i], a[href*="/writer/" i], ` +
	`a[href*="/writers/" i], a[href*="/contributor/" i], a[href*="/contributors/" i], a[href*="/journalist/" i], ` +
	`a[href*="/autor/" i], a[href*="/autoren/" i], a[href*="/auteur/" i], a[href*="/autore/" i], a[href*="/auteurs/" i], ` +
	`a[href*="/people/" i], a[href*="/profile/" i], a[href*="/profiles/" i], a[href*="/staff/" i], a[href*="/u/" i]`

// bylineBlocks match the elements pages print a byline in, by their class.
const bylineBlocks = `[class*="byline" i], [class*="author" i], [class*="writer" i], [rel~="author" i]`

// bylineNames returns the names printed as the article's byline, from the
// first block around the headline that has any (see articleBlocks), page
// furniture and blocks about other pages left out: author-page links and
// elements classed as a byline, an author or a writer, then — for pages
// whose class names are hashed — short text that starts with "By". The
// headline's own block wins over the wider page, so a byline under the
// title beats a list of writers further down; beyond the nearest blocks a
// byline must also stand within a few lines of text of the headline.
func (p *page) bylineNames() []authorValue {
	return p.bylineNamesWithin(maxBylineDistance)
}

// bylineNamesWithin is bylineNames with a byline beyond the nearest blocks
// at most maxDistance characters of text from the headline.
func (p *page) bylineNamesWithin(maxDistance int) []authorValue {
	var out []authorValue
	lang := p.lang()
	for i, block := range p.articleBlocks() {
		var found []*goquery.Selection
		block.Find(bylineBlocks + ", " + authorLinks).Each(func(_ int, s *goquery.Selection) {
			if !outsideArticle(s, block) {
				found = append(found, s)
			}
		})
		if i < maxByDepth {
			found = append(found, byTextHolders(block, lang)...)
		}
		for _, s := range found {
			if i >= nearBlocks && p.textDistance(s) > maxBylineDistance && (p.textDistance(s) > maxDistance || !inBylineBlock(s)) {
				continue
			}
			if goquery.NodeName(s) == "a" && !HasToken(s.AttrOr("rel", ""), "author") && !p.isSiteLink(s) {
				continue // a reference to a person's page elsewhere, not a byline
			}
			if creditRe.MatchString(spacedText(s)) || afterCredit(s) {
				continue // the reviewer's or the editor's credit
			}
			if v, ok := p.bylineName(s); ok {
				out = append(out, v)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// nearBlocks is how many blocks up from the headline a byline may stand at
// any distance from it; further up it must be close (see maxBylineDistance).
const nearBlocks = 3

// maxByDepth is how many blocks up from the headline text starting with
// "By" is read as a byline: further away it is more often a caption or a
// sentence.
const maxByDepth = 5

// byWordRe matches text that opens a byline: "By", "Von", "Par", "Por",
// "Door", "Av", "Af", alone or before a name.
var byWordRe = regexp.MustCompile(`^(?:(?:[Ww]ritten|[Pp]osted|[Pp]ublished|[Rr]eported)\s+)?(By|by|BY|Von|von|Par|par|Por|por|Door|door|Av|av|Af|af)(?:\s*:?\s|:?$)`)

// byWordLangs are the languages of the byline words other than "By": on a
// page that declares another language they are ordinary words ("Door
// Anchor for Resistance Bands", "Par 3 courses").
var byWordLangs = map[string][]string{"von": {"de"}, "par": {"fr"}, "por": {"es", "pt"}, "door": {"nl"},
	"av": {"sv", "no", "nb", "nn"}, "af": {"da"}}

// opensByline reports text that opens with a byline word in the page's
// language, lang ("" when the page declares none).
func opensByline(text, lang string) bool {
	m := byWordRe.FindStringSubmatch(text)
	if m == nil {
		return false
	}
	langs, foreign := byWordLangs[strings.ToLower(m[1])]
	return !foreign || lang == "" || slices.Contains(langs, lang)
}

// byTextHolders returns the elements inside block, outside furniture, that
// hold a text starting with a byline word, widened to their parent when the
// word stands alone in its element ("<span>By</span><a>Jane</a>").
func byTextHolders(block *goquery.Selection, lang string) []*goquery.Selection {
	var out []*goquery.Selection
	block.Find("*").Each(func(_ int, s *goquery.Selection) {
		for c := s.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.TextNode || !opensByline(strings.TrimSpace(c.Data), lang) {
				continue
			}
			holder := s
			text := spacedText(holder)
			if !opensByline(text, lang) {
				return // "a portrait by …" inside a sentence or caption
			}
			if len(strings.Fields(text)) <= 2 {
				holder = holder.Parent()
			}
			if utf8.RuneCountInString(spacedText(holder)) <= 120 && !outsideArticle(holder, block) {
				out = append(out, holder)
			}
			return
		}
	})
	return out
}

// bylineName reads the author's name off one byline element, in order of
// trust: the text of links to author pages inside it; the text after "By",
// or the first short part of it that reads as a name ("By Meg Wagner" next
// to "NEWS DESK | Dec 16"); the whole text when it sets a name word by word.
func (p *page) bylineName(s *goquery.Selection) (authorValue, bool) {
	if goquery.NodeName(s) == "a" {
		if v, ok := p.authorLinkName(s); ok {
			return v, true
		}
	}
	var links []string
	s.Find(authorLinks).Each(func(_ int, a *goquery.Selection) {
		if v, ok := p.authorLinkName(a); ok && !outsideArticle(a, s) && !afterCredit(a) {
			links = append(links, v.text)
		}
	})
	if len(links) > 0 {
		return authorValue{text: joinNames(dedupeFold(links))}, true
	}
	if v, ok := p.userLinkName(s); ok {
		return v, true
	}
	if strings.TrimSpace(s.Text()) == "" {
		// An author's photo alone: its description is their name.
		if img := s.Find("img[alt]").First(); img.Length() > 0 {
			alt := strings.TrimSpace(photoWordsRe.ReplaceAllString(img.AttrOr("alt", ""), " "))
			if t := cleanAuthor(alt, p.url.Hostname(), true); looksLikeName(t, false) && !strings.EqualFold(t, "author") {
				return authorValue{text: t}, true
			}
		}
		return authorValue{}, false
	}
	if hasClassToken(s, authorAboutWords) && s.Children().Length() == 0 {
		// The author's description ("Licensed Q Grader, M.A. Journalism")
		// names no one; the name stands just before it in the same box. A
		// bio box that holds the name in an element of its own is read
		// as any byline.
		return p.nameBefore(s)
	}
	parts := p.bylineParts(s)
	if name := nameAfterBy(parts); name != "" {
		return authorValue{text: name}, true
	}
	// A name set word by word in elements of its own: <span>Meg</span>
	// <span>Wagner</span>.
	for _, part := range parts {
		if part.elsewhere || len(strings.Fields(part.text)) > 1 {
			return authorValue{}, false
		}
	}
	if t := cleanAuthor(spacedText(s), p.url.Hostname(), true); looksLikeName(t, false) {
		return authorValue{text: t}, true
	}
	return authorValue{}, false
}

// photoWordsRe are the words a photo's description adds to a name:
// "Jane Roe avatar", "Photo of Jane Roe", "Jane Roe's headshot".
var photoWordsRe = regexp.MustCompile(`(?i)(?:^(?:photo|picture|image|portrait)\s+of\s+|(?:'s)?\s+(?:avatar|photo|picture|headshot|image|portrait|profile\s+(?:picture|photo|image))$)`)

// authorAboutWords are class words of an element about the author rather
// than naming them: "author-description", "author-bio", "author-job".
var authorAboutWords = map[string]bool{"description": true, "desc": true, "bio": true, "biography": true,
	"job": true, "position": true, "credentials": true}

// nameBefore is a name printed alone just before s: the element before it
// in its box, or before the box holding it, at most two levels up.
func (p *page) nameBefore(s *goquery.Selection) (authorValue, bool) {
	for range 3 {
		prev := s.PrevAllFiltered("*").First()
		for prev.Length() > 0 && strings.TrimSpace(prev.Text()) == "" {
			prev = prev.PrevAllFiltered("*").First()
		}
		if prev.Length() > 0 {
			t := spacedText(prev)
			if utf8.RuneCountInString(t) > 60 {
				return authorValue{}, false
			}
			if t = cleanAuthor(t, p.url.Hostname(), true); looksLikeName(t, false) {
				return authorValue{text: t}, true
			}
			return authorValue{}, false
		}
		s = s.Parent()
	}
	return authorValue{}, false
}

// authorLinkName is the name a link to an author page shows; a link marked
// rel=author may show a single word.
func (p *page) authorLinkName(a *goquery.Selection) (authorValue, bool) {
	rel := HasToken(a.AttrOr("rel", ""), "author")
	if !rel && (!a.Is(authorLinks) || !p.isSiteLink(a)) {
		return authorValue{}, false
	}
	t := cleanAuthor(spacedText(a), p.url.Hostname(), true)
	if !looksLikeName(t, rel || namesItsPage(a, t)) {
		return authorValue{}, false
	}
	return authorValue{text: t}, true
}

// namesItsPage reports a link whose text is the last part of its path,
// as an author page's link shows a writer who goes by one name: "Yucy"
// to /blog/author/yucy/.
func namesItsPage(a *goquery.Selection, text string) bool {
	u, err := url.Parse(strings.TrimSpace(a.AttrOr("href", "")))
	if err != nil {
		return false
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	return len(segs) >= 2 && foldKey(segs[len(segs)-1]) == foldKey(text) && foldKey(text) != ""
}

// bylinePart is one part of a byline element (see bylineParts).
type bylinePart struct {
	text string
	// elsewhere marks a link to another site: a book or a project named in
	// an author's bio rather than the author.
	elsewhere bool
}

// bylineParts splits a byline element into its parts in document order: a
// part is a text, a link, or an element holding a single piece of text;
// elements holding several pieces are split further, so that "By Meg
// Wagner" and "NEWS DESK | Dec 16" beside it stay apart.
func (p *page) bylineParts(s *goquery.Selection) []bylinePart {
	var out []bylinePart
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if t := cleanText(c.Data); t != "" {
					out = append(out, bylinePart{text: t})
				}
			case html.ElementNode:
				switch c.Data {
				case "script", "style", "noscript", "template", "svg", "img":
					continue
				}
				if c.Data != "a" && textPieces(c) > 1 {
					walk(c)
					continue
				}
				e := goquery.NewDocumentFromNode(c).Selection
				if t := spacedText(e); t != "" {
					out = append(out, bylinePart{text: t, elsewhere: c.Data == "a" && !p.isSiteLink(e)})
				}
			}
		}
	}
	for _, n := range s.Nodes {
		walk(n)
	}
	return out
}

// textPieces counts the children of n that hold text.
func textPieces(n *html.Node) int {
	count := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			count++
		case c.Type == html.ElementNode && c.Data != "script" && c.Data != "style" &&
			strings.TrimSpace(goquery.NewDocumentFromNode(c).Text()) != "":
			count++
		}
	}
	return count
}

// nameAfterBy finds the name in a byline's parts: the parts after a lone
// "By" (joined while they continue a list of names: "A", "and", "B"; a
// single word will do there, "by kottke"), or the rest of a part that starts
// with "By". A byline without "By" gives the first part that reads as a
// name and is no link to another site.
func nameAfterBy(parts []bylinePart) string {
	clean := func(s string) string { return cleanAuthor(s, "", true) }
	byFound := false
	for i, part := range parts {
		if !byWordRe.MatchString(part.text) && !authorLabelRe.MatchString(part.text) {
			continue
		}
		byFound = true
		if rest := clean(part.text); rest != "" && !byWordRe.MatchString(rest) && !authorLabelRe.MatchString(rest) {
			if looksLikeName(rest, false) {
				return rest
			}
			if list := namesBeforeRole(rest); list != "" {
				return list
			}
			continue
		}
		if list := namesBeforeRole(byPrefixRe.ReplaceAllString(cleanText(part.text), "")); list != "" {
			return list // a role too long to be cleaned with the name
		}
		// Names after the first need a joining word before them: "A", "and",
		// "B" is two authors, "A", "Senior Reporter" is one with a title.
		var names []string
		joined := true
		for _, next := range parts[i+1:] {
			switch strings.ToLower(strings.TrimSpace(next.text)) {
			case "and", "&", ",", "und", "et", "y", "e", "en", "og", "och":
				joined = true
				continue
			}
			n := clean(next.text)
			if !joined || !looksLikeName(n, len(names) == 0) {
				break
			}
			names = append(names, n)
			joined = strings.HasSuffix(next.text, ",")
		}
		if len(names) > 0 {
			return joinNames(names)
		}
	}
	if byFound {
		return "" // the byline says where the name is, and there is none
	}
	for _, part := range parts {
		if n := clean(part.text); !part.elsewhere && looksLikeName(n, false) {
			return n
		}
	}
	return ""
}

func dedupeFold(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if k := foldKey(n); !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

var (
	byPrefixRe = regexp.MustCompile(`(?i)^(?:(?:written|posted|posts|published|reported|story|words|text|photos?|articles?)\s+)?(?:by|von|par|por|door|di|da|av|af|autor(?:a|en|es|in)?|authors?|auteurs?|автор)\s*:?\s+`)
	handleRe   = regexp.MustCompile(`\s*\(?@[\p{L}\p{N}_.]+\)?`)
	emailRe    = regexp.MustCompile(`\s*\(?[\w.+-]+@[\w-]+\.[\w.-]+\)?`)
	urlInText  = regexp.MustCompile(`(?i)\s*\(?(?:https?://|www\.)\S+\)?`)
	// clauseRe is what a printed byline adds after the name: "Jane Doe in
	// Science on May 3".
	clauseRe = regexp.MustCompile(`\s+(?:in|on)(?:\s.*)?$`)
	// socialRe is the label of a link to a profile: "Jane Doe on
	// Instagram", "Friends of the Park on Facebook".
	socialRe = regexp.MustCompile(`(?i)\s+on\s+(?:facebook|twitter|x|instagram|linkedin|youtube|tiktok|threads|mastodon|bluesky|pinterest)$`)
)

// cleanAuthor turns a raw byline into a name, or "" when what is left is not
// one: a URL, a handle, a date, the site's host name, a placeholder or a
// paragraph. A visible byline also loses the clauses pages print after the
// name (" in Science", " on Monday").
func cleanAuthor(s, host string, visible bool) string {
	s = cleanText(s)
	if creditRe.MatchString(s) || siteCreditsRe.MatchString(s) {
		return ""
	}
	for range 2 {
		s = strings.TrimSpace(byPrefixRe.ReplaceAllString(s, ""))
	}
	s = strings.TrimLeft(s, "—–-:|·•∙ ")
	if s == "" || isURLLike(s) || isHandle(s) {
		return ""
	}
	s = emailRe.ReplaceAllString(s, "")
	s = urlInText.ReplaceAllString(s, "")
	if h := strings.TrimSpace(handleRe.ReplaceAllString(s, "")); h != "" {
		s = h
	}
	// A date glued to the byline ("Jane Doe, May 3, 2016", "May 3, 2016 ·
	// Jane Doe") is not part of the name.
	if w, ok := findWrittenDate(s); ok && w.start > 0 {
		s = s[:w.start]
	} else if ok && w.start == 0 {
		s = strings.TrimLeft(s[w.end:], " ,;|·•-–—")
	}
	s = socialRe.ReplaceAllString(s, "")
	if visible {
		s = clauseRe.ReplaceAllString(s, "")
	}
	// A footnote's mark after the name ("Jane Doe, MD*", "Jane Doe†")
	// points to a note about the author, and is no part of the name.
	s = strings.Trim(strings.TrimSpace(s), ",;|·•∙-–— \"“”„«»*†‡")
	if visible {
		// Markup names a person or an organisation on purpose; printed
		// bylines run the name into the title beside it, or set the title
		// apart with a dash or a bar ("Eliz - Product marketer").
		s = strings.Trim(cutTitles(cutDashedTitle(s)), ",;|·•-–— ")
	}
	if foldKey(s) == "" || !strings.ContainsFunc(s, unicode.IsLetter) || onlyTitleWords(s) {
		return ""
	}
	if len([]rune(s)) > 80 || len(strings.Fields(s)) > 10 {
		return ""
	}
	if host != "" && foldKey(s) == foldKey(strings.TrimPrefix(host, "www.")) {
		return ""
	}
	switch strings.ToLower(s) {
	case "admin", "administrator", "staff", "editor", "unknown", "anonymous", "null", "undefined", "author", "guest",
		"about the author", "about author", "written by", "posted by":
		return ""
	}
	return s
}

// titleWords are the words of job titles, departments and labels that
// bylines print after a name: "Jane Doe Senior Tech Reporter", "Jane Doe,
// Staff Writer", "Jane Doe Last updated".
var titleWords = map[string]bool{
	"writer": true, "reporter": true, "editor": true, "director": true, "coordinator": true, "manager": true,
	"consultant": true, "founder": true, "co-founder": true, "cofounder": true, "ceo": true, "cto": true, "cfo": true,
	"coo": true, "cmo": true, "head": true, "senior": true, "junior": true, "former": true, "staff": true,
	"contributor": true, "contributing": true, "correspondent": true, "columnist": true, "specialist": true,
	"analyst": true, "strategist": true, "lead": true, "chief": true, "vp": true, "president": true,
	"officer": true, "associate": true, "assistant": true, "intern": true, "producer": true, "photographer": true,
	"marketing": true, "content": true, "tech": true, "technology": true, "digital": true, "social": true,
	"updated": true, "modified": true, "reviewed": true, "edited": true, "published": true, "posted": true,
	"winemaker": true, "expert": true, "journalist": true, "engineer": true, "designer": true, "developer": true,
	"marketer": true,
}

// cutDashedTitle cuts a job title set after a name with a dash or a bar:
// the part after it holds a word of titleWords.
func cutDashedTitle(s string) string {
	for _, sep := range []string{" - ", " – ", " — ", " | "} {
		head, tail, ok := strings.Cut(s, sep)
		if !ok || strings.TrimSpace(head) == "" {
			continue
		}
		for _, w := range strings.FieldsFunc(tail, func(r rune) bool { return unicode.IsSpace(r) || r == '/' }) {
			if w = strings.ToLower(strings.Trim(w, ",;:()|·•")); titleWords[w] || w == "author" || w == "reviewer" {
				return head // "Jane Roe - Author/Reviewer"
			}
		}
	}
	return s
}

// cutTitles cuts what follows a name of two or more words when it opens
// with a job title or a label: "Liz Kenny Former McKinsey Consultant" is
// Liz Kenny. A list of names keeps its joining words.
func cutTitles(s string) string {
	words := strings.Fields(s)
	for i := 2; i < len(words); i++ {
		w := strings.ToLower(strings.Trim(words[i], ",;:()|·•"))
		if !titleWords[w] {
			continue
		}
		name := words[:i]
		for len(name) > 2 {
			switch strings.ToLower(strings.Trim(name[len(name)-1], ",")) {
			case "and", "&", "by", "last", "on", "the", "a":
				name = name[:len(name)-1]
				continue
			}
			break
		}
		return strings.Join(name, " ")
	}
	return s
}

// isHandle reports a user name rather than a person's name: one token that
// starts with @, or mixes letters with digits or underscores (jane_doe,
// user7567). People's names carry neither.
func isHandle(s string) bool {
	if strings.ContainsAny(strings.TrimSpace(s), " \t") {
		return false
	}
	return strings.HasPrefix(s, "@") || strings.ContainsAny(s, "_") || strings.ContainsFunc(s, unicode.IsDigit)
}

// isURLLike reports values that are addresses rather than names:
// "https://…", "www.…", "example.com", "example.com/jane". A dotted name
// whose last part is no real top-level domain ("odno.kino") is a name.
func isURLLike(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	if strings.Contains(l, "://") || strings.HasPrefix(l, "www.") || strings.HasPrefix(l, "//") {
		return true
	}
	if strings.ContainsAny(l, " ") || !strings.Contains(l, ".") {
		return false
	}
	host, _, _ := strings.Cut(l, "/")
	if strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return false
	}
	_, icann := publicsuffix.PublicSuffix(host)
	return icann
}

// invertedRe is a name written family name first, as library catalogues
// and the citation vocabularies write it: "Curie, Marie", "Berger, Emery
// D.", "van der Berg, Anna".
var invertedRe = regexp.MustCompile(`^\s*((?:\p{Ll}+\s+)*\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?)\s*,\s*(\p{Lu}[\p{L}'’-]*\.?(?:\s+\p{Lu}[\p{L}'’-]*\.?){0,2})\s*$`)

// nameSuffixes follow a name after a comma without being a given name.
var nameSuffixes = map[string]bool{"jr": true, "sr": true, "ii": true, "iii": true, "iv": true, "md": true, "phd": true,
	"dds": true, "rn": true, "esq": true, "mba": true, "cpa": true, "dvm": true, "do": true, "np": true, "pa": true}

// uninvert writes a name given family name first ("Curie, Marie") in the
// order a byline prints it ("Marie Curie"); any other value is kept.
func uninvert(v string) string {
	m := invertedRe.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	given := m[2]
	for w := range strings.FieldsSeq(given) {
		w = strings.ToLower(strings.Trim(w, "."))
		// A suffix or a credential, or initials in capitals ("MD", "RN"),
		// is not a given name.
		if nameSuffixes[w] {
			return v
		}
	}
	if len(given) > 1 && strings.ToUpper(given) == given && !strings.Contains(given, ".") {
		return v
	}
	return given + " " + m[1]
}

// joinNames lists names the way a byline does: "A", "A and B", "A, B and C".
func joinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// discussionTypes are the item types of a thread's posts and a Q&A page's
// question, whose authors sign with user names.
var discussionTypes = map[string]bool{
	"discussionforumposting": true, "socialmediaposting": true, "question": true, "answer": true,
	"comment": true, "qapage": true, "posting": true,
}

// isDiscussionItem reports a microdata or RDFa item (or one it is nested
// in) typed as a forum post, a question or kin.
func isDiscussionItem(item *goquery.Selection) bool {
	for e := item; e.Length() > 0; e = e.Parent().Closest("[itemscope], [typeof]") {
		for _, t := range strings.Fields(e.AttrOr("itemtype", "") + " " + e.AttrOr("typeof", "")) {
			if discussionTypes[vocabTerm(t)] {
				return true
			}
		}
	}
	return false
}

// cleanUserName keeps a forum user name as the site prints it: one to
// four words, no URL, no e-mail address, no placeholder.
func cleanUserName(s string) string {
	s = strings.Trim(cleanText(s), "@ ,;:|·•")
	if s == "" || utf8.RuneCountInString(s) > 40 || len(strings.Fields(s)) > 4 || isURLLike(s) ||
		emailRe.MatchString(s) || !strings.ContainsFunc(s, unicode.IsLetter) {
		return ""
	}
	switch strings.ToLower(s) {
	case "admin", "administrator", "guest", "anonymous", "deleted", "[deleted]", "unknown", "null", "undefined", "moderator":
		return ""
	}
	return s
}

// posterAttrs are the attributes forum and Q&A software put the poster's
// user name in, on each post's element.
var posterAttrs = []string{"data-author", "data-author-name", "data-author-username", "data-username", "data-poster", "data-user-name"}

// starterRe finds the label a thread prints before or around its
// original poster's name: "Thread starter", "Topic author", "Started by".
var starterRe = regexp.MustCompile(`(?i)^\s*(?:thread starter|topic (?:author|starter)|original poster|started by|discussion started by)\b\s*:?\s*`)

// startedByRe reads the name after "started by" in a thread's summary
// line: "Discussion in 'Hosting' started by jane, Jun 1, 2024".
var startedByRe = regexp.MustCompile(`(?i)\bstarted by:?\s+([^,·|•(]{1,40}?)\s*(?:,|·|\||•|\(|$)`)

// posterAuthors returns the original poster of a discussion: the user
// name on the first post's element (data-author and kin, or an author
// attribute on a custom element), the name a thread labels as its
// starter, else the user name on the first of a thread's several posts.
// Quotes and page furniture are left out: a quoted post names another
// poster, a header the reader.
func (p *page) posterAuthors() []authorValue {
	var found string
	p.doc.Find("body *").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		n := s.Nodes[0]
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			hit := slices.Contains(posterAttrs, k) || k == "author" && strings.Contains(n.Data, "-")
			if hit && strings.TrimSpace(a.Val) != "" && !outsideArticle(s, nil) {
				found = a.Val
				return false
			}
		}
		return true
	})
	if found != "" {
		return []authorValue{{text: found, user: true}}
	}
	var out []authorValue
	p.doc.Find("body *").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		own := ownText(s)
		if own == "" || !starterRe.MatchString(own) && !strings.Contains(strings.ToLower(own), "started by") || outsideArticle(s, nil) {
			return true
		}
		text := spacedText(s)
		if m := startedByRe.FindStringSubmatch(text); m != nil {
			out = append(out, authorValue{text: m[1], user: true})
			return false
		}
		// The label stands alone; the name is what follows it in its
		// parent: <li><span>Thread starter</span> <a>jane</a></li>.
		rest := strings.TrimSpace(starterRe.ReplaceAllString(spacedText(s.Parent()), ""))
		if rest != "" && len(strings.Fields(rest)) <= 4 {
			out = append(out, authorValue{text: rest, user: true})
			return false
		}
		return true
	})
	return out
}

// threadUserNames returns the user name on the first of a thread's posts
// when the page signs several posts with user names and says nothing else
// of its author.
func (p *page) threadUserNames() []authorValue {
	users := p.doc.Find(`a.username, a.user-name, .username a, a[class~="author-name" i], a[class*="username" i], span.username`)
	var names []string
	users.Each(func(_ int, s *goquery.Selection) {
		if !outsideArticle(s, nil) && !aboutElsewhere(s) {
			if t := cleanText(s.Text()); t != "" {
				names = append(names, t)
			}
		}
	})
	if len(names) >= 2 { // a thread: several posts, each signed
		return []authorValue{{text: names[0], user: true}}
	}
	return nil
}

// ownText is the text of an element's own text nodes, not its children's.
func ownText(s *goquery.Selection) string {
	var b strings.Builder
	for c := s.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return cleanText(b.String())
}

// profileLinkAuthors reads the name of an author given only as a profile
// URL (article:author, <link rel=author href>): the text of the page's
// own link to that profile.
func (p *page) profileLinkAuthors() []authorValue {
	var out []authorValue
	for _, raw := range p.metaEach("article:author", "og:article:author", "author") {
		target := p.abs(raw)
		if target == "" || !isURLLike(raw) {
			continue
		}
		if u, err := url.Parse(target); err != nil || registrableDomain(u.Hostname()) != registrableDomain(p.url.Hostname()) {
			continue // a profile elsewhere (a social network) is linked as the network's name
		}
		p.doc.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
			if p.abs(a.AttrOr("href", "")) != target {
				return true
			}
			if t := cleanText(a.Text()); t != "" {
				out = append(out, authorValue{text: t, user: true})
				return false
			}
			return true
		})
		if len(out) > 0 {
			return out
		}
	}
	return nil
}
