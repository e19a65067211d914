package meta

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Forum bylines. A thread signs each post with a link to its poster's
// member page, and the text of that link is a user name, which need not
// read like a person's name (galitsyn, StarredSkies, Fitzg): the rules
// for printed names would pass over it and take the poster's rank or a
// later, capitalised replier instead.

// memberPathRe matches the paths and queries of member pages: /u/jane,
// /members/jane.123/, /profile/jane, /user-126792.html,
// memberlist.php?mode=viewprofile&u=7.
var memberPathRe = regexp.MustCompile(`(?i)(?:^|/)(?:u|users?|members?|profiles?|memberlist\.php|member\.php)(?:[/.?-]|$)|(?:^|/)user-\d+(?:\.html?)?$|mode=viewprofile`)

// isMemberLink reports a link to a member page of the site itself.
func (p *page) isMemberLink(a *goquery.Selection) bool {
	href := strings.TrimSpace(a.AttrOr("href", ""))
	if href == "" || !p.isSiteLink(a) {
		return false
	}
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	return memberPathRe.MatchString(u.Path) || memberPathRe.MatchString(u.RawQuery)
}

// userLinkName returns the user name of the first member-page link in a
// byline element (or the element itself when it is one), as its site
// prints it.
func (p *page) userLinkName(s *goquery.Selection) (authorValue, bool) {
	links := s.Find("a[href]")
	if goquery.NodeName(s) == "a" {
		links = s
	}
	var found authorValue
	links.EachWithBreak(func(_ int, a *goquery.Selection) bool {
		if !p.isMemberLink(a) || afterCredit(a) {
			return true
		}
		name := cleanUserName(spacedText(a))
		if name == "" || interfaceWords[strings.ToLower(name)] {
			return true
		}
		found = authorValue{text: name, user: true}
		return false
	})
	return found, found.text != ""
}
