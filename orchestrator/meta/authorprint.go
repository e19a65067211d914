package meta

import (
	"strings"

	"regexp"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// isPrintedValue reports a microdata value read off the element's text,
// not off a content attribute or a <meta>: text the reader sees, with
// whatever the page prints beside the name.
func isPrintedValue(s *goquery.Selection) bool {
	if goquery.NodeName(s) == "meta" {
		return false
	}
	_, content := s.Attr("content")
	return !content
}

// creditRe matches the credits bylines print beside the author's for the
// people who revised the piece: "Updated by", "Reviewed by", "Edited by",
// "Fact checked by". Whoever follows is not the author.
var creditRe = regexp.MustCompile(`(?i)^\s*(?:last\s+|medically\s+|expert\s+)?(?:updated|reviewed|edited|fact[\s-]*checked|checked|verified|revised)\s+(?:by|von|par|por|door|da|av|af)\b`)

// siteCreditsRe matches the credits of a site's makers, one per role,
// that some templates put in their author meta ("content: Example Media,
// design: Jane Roe, code: John Doe"): two roles or more, each named and
// followed by a colon. They say who made the site, not who wrote the page.
var siteCreditsRe = regexp.MustCompile(`(?i)(?:^|[,;|]\s*)(?:content|design|designed|code|coding|development|developed|programming|hosting|photos?|photography|illustrations?|seo|copy|texts?|concept|layout|theme|website|site)\s*:\s*\S[^,;|]*[,;|]\s*(?:content|design|designed|code|coding|development|developed|programming|hosting|photos?|photography|illustrations?|seo|copy|texts?|concept|layout|theme|website|site)\s*:`)

// onlyTitleWords reports a value made of job-title words alone ("Staff
// Writer", "Senior Editor"): a role printed where a name was expected.
func onlyTitleWords(s string) bool {
	words := strings.Fields(s)
	for _, w := range words {
		if w = strings.ToLower(strings.Trim(w, ",;:()|·•")); !titleWords[w] && !roleWords[w] {
			return false
		}
	}
	return len(words) > 0
}

// roleWords are more words of roles that are not names.
var roleWords = map[string]bool{
	"reviewer": true, "reviewers": true, "editors": true, "writers": true, "reporters": true, "author": true,
	"authors": true, "medical": true, "review": true, "board": true, "expert": true, "guest": true, "desk": true,
}

// creditTailRe matches text ending in a revision credit's label, the text
// just before the reviewer's name.
var creditTailRe = regexp.MustCompile(`(?i)\b(?:updated|reviewed|edited|fact[\s-]*checked|checked|verified|revised)\s+(?:by|von|par|por|door|da|av|af)\s*:?\s*$`)

// afterCredit reports an element (an author link) that a revision credit
// introduces: "Reviewed by <a>Bob</a>". The text read is what stands just
// before it, up to a few wrappers out.
func afterCredit(s *goquery.Selection) bool {
	if len(s.Nodes) == 0 {
		return false
	}
	n := s.Nodes[0]
	for range 4 {
		for prev := n.PrevSibling; prev != nil; prev = prev.PrevSibling {
			text := strings.TrimSpace(nodeText(prev))
			if text == "" {
				continue
			}
			return creditTailRe.MatchString(text)
		}
		if n = n.Parent; n == nil {
			return false
		}
	}
	return false
}

// nodeText is the text of a node and its descendants.
func nodeText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(nodeText(c))
	}
	return b.String()
}

// replyTypes are the item types of a reply to the page's own item.
var replyTypes = map[string]bool{"answer": true, "comment": true}

// isReplyItem reports a microdata or RDFa item typed as an answer or a
// comment: Q&A and forum software mark each reply as an item of its own,
// beside the question's rather than inside it.
func isReplyItem(item *goquery.Selection) bool {
	if item.Length() == 0 {
		return false
	}
	for _, t := range strings.Fields(item.AttrOr("itemtype", "") + " " + item.AttrOr("typeof", "")) {
		if replyTypes[vocabTerm(t)] {
			return true
		}
	}
	return false
}

// collectiveWords are the words of bylines that sign for a group rather
// than a person: "Team Acme", "Acme Staff", "News Desk", "The Editors".
var collectiveWords = map[string]bool{
	"team": true, "staff": true, "desk": true, "newsdesk": true, "editors": true, "editorial": true,
	"newsroom": true, "redaktion": true, "rédaction": true, "redacción": true, "redazione": true, "redactie": true,
}

// isCollectiveByline reports a byline that signs for a group: it is kept
// back while a person may still be named.
func isCollectiveByline(s string) bool {
	for _, w := range strings.Fields(s) {
		if collectiveWords[strings.ToLower(strings.Trim(w, ".,:;()"))] {
			return true
		}
	}
	return false
}

// siteSuffixRe splits a name from what follows it after a comma, a bar or
// a dash.
var siteSuffixRe = regexp.MustCompile(`\s*(?:,|\s[|–—-])\s+`)

// cutSiteName cuts the site's name off the end of a byline: "Jane Doe and
// John Roe, The Daily Example" is Jane Doe and John Roe.
func (p *page) cutSiteName(name, publisher string) string {
	locs := siteSuffixRe.FindAllStringIndex(name, -1)
	if len(locs) == 0 {
		return name
	}
	last := locs[len(locs)-1]
	head, tail := strings.TrimSpace(name[:last[0]]), foldKey(name[last[1]:])
	if head == "" || tail == "" {
		return name
	}
	for _, site := range p.siteNames(publisher) {
		if tail == site {
			return head
		}
	}
	return name
}

// authorLabelRe matches a byline that opens with a label rather than
// "By": "Author:", "Authors:", "Autor:".
var authorLabelRe = regexp.MustCompile(`(?i)^(?:authors?|autor(?:a|en|es|in)?|auteurs?|автор)\s*:(?:\s|$)`)

// nameJoinRe splits a list of names at its joining words.
var nameJoinRe = regexp.MustCompile(`\s+(?:and|&|und|et|y|e|en)\s+`)

// namesBeforeRole reads the names a printed byline lists before the role
// they share: "Jane Doe and John Roe, Extension educators" is Jane Doe and
// John Roe, "Jane Doe, Chair of the Review Panel" Jane Doe.
func namesBeforeRole(s string) string {
	head, _, ok := strings.Cut(s, ",")
	if !ok {
		return ""
	}
	var names []string
	for _, n := range nameJoinRe.Split(strings.TrimSpace(head), -1) {
		if !looksLikeName(n, false) || !properName(n) || hasDatelineWord(n) {
			return ""
		}
		names = append(names, n)
	}
	return joinNames(names)
}
