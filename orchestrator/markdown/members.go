package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// Beside each post of a thread, forum software prints the member's card:
// the member's rank ("Well-known member", "Senior Member", "Moderator")
// and the fields of the member's profile, each a label and a value
// ("Joined Oct 25, 2017", "Join Date: Nov 2024", "Location London",
// "Registered: 2024-01-27"). They say who the member is, not what the
// member wrote, and read alike in every forum: the member's name and the
// post's date stay, the rank and the fields go. The counts of a card
// ("Posts: 98") go with the post's figures (see dropPostStats).

// memberFieldRe is the label of a profile field that no post's text
// begins with: it goes with its value, a colon after it or not.
var memberFieldRe = regexp.MustCompile(`(?i)^(?:joined|join\s+date|date\s+joined|registered|registration\s+date|` +
	`member\s+since|reaction\s+score|likes\s+received|trophy\s+points|best\s+answers|` +
	`mitglied\s+seit|registriert\s+seit|dabei\s+seit|inscrit\s+le|inscrit\s+depuis|registrado|miembro\s+desde|iscritto\s+il)$`)

// memberFieldColonRe is the label of a profile field whose word a post
// may also begin with ("Location is everything"): it counts only with a
// colon after it, or as the term of a definition list.
var memberFieldColonRe = regexp.MustCompile(`(?i)^(?:location|from|posts|messages|likes|points|reputation|` +
	`solutions|gender|age|occupation|ort|wohnort|beiträge|localisation|ubicación|mensajes)$`)

// memberRankRe is a member's rank as forum software names them: a kind
// of member, moderator or administrator.
var memberRankRe = regexp.MustCompile(`(?i)^(?:(?:well[- ]known|new|newly\s+registered|senior|junior|active|established|` +
	`distinguished|prominent|novice|registered|full|valued|premium|supporting|verified|banned|inactive|elite|veteran|` +
	`gold|silver|platinum|diamond|vip|staff|forum|community|regular|super|global|site|retired)\s+)?` +
	`(?:member|moderator|administrator|admin|contributor|poster|user|newbie|mod)$`)

// maxMemberLine is the most text, in bytes, of a line of a member's card.
const maxMemberLine = 60

// dropMemberCards removes, from the posts of the thread under region, the
// ranks and the profile fields of the members' cards (see above). On a
// page not known as a thread, the cards themselves show it: minRepeats
// fields that only a member's card prints ("Joined", "Member since").
func dropMemberCards(region *html.Node, thread bool) {
	if !thread && memberCards(region) < minRepeats {
		return
	}
	var drop []*html.Node
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if closedToCards(n) {
			return false
		}
		if textUpTo(n, maxMemberLine) > maxMemberLine {
			return true
		}
		text := flatText(n)
		if n.DataAtom == atom.Dt && memberLabel(termLabel(n, text), true) {
			drop = append(drop, n)
			for k := nextElement(n); k != nil && k.DataAtom == atom.Dd; k = nextElement(k) {
				drop = append(drop, k)
			}
			return false
		}
		if text == "" {
			return false
		}
		if !lineElement(n) {
			return true
		}
		if memberRankRe.MatchString(text) || memberFieldLine(text) || memberTitle(n) {
			drop = append(drop, n)
			return false
		}
		return true
	})
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
}

// memberTitle reports the title a member chose or earned, printed under
// the member's name in place of a rank ("macrumors 6502a", "Hall of
// Famer", "Happy to be here"): no pattern knows it, but the markup says
// what it is, schema.org's jobTitle of the member, or a class that names
// a user's or member's title ("userTitle", "usertitle", "member-title").
func memberTitle(n *html.Node) bool {
	if strings.EqualFold(strings.TrimSpace(attr(n, "itemprop")), "jobTitle") {
		return true
	}
	words := meta.ClassWords(attr(n, "class"))
	for i, w := range words {
		switch {
		case w == "usertitle" || w == "membertitle":
			return true
		case w == "title" && i > 0 && (words[i-1] == "user" || words[i-1] == "member"):
			return true
		}
	}
	return false
}

// lineElement reports an element that stands as a line of its own: a
// block, or an inline element with no text beside it.
func lineElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Li, atom.Dd, atom.Dl, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	case atom.Span, atom.Strong, atom.B, atom.Em, atom.Small, atom.A:
		return n.Parent != nil && noTextBeside(n)
	}
	return false
}

// termLabel is the label of a definition list's term: its text, or the
// tooltip of the icon that stands for it ("Joined" on a calendar's icon).
func termLabel(dt *html.Node, text string) string {
	if text != "" {
		return text
	}
	label := ""
	walk(dt, func(k *html.Node) bool {
		if label != "" || k.Type != html.ElementNode {
			return false
		}
		for _, key := range []string{"title", "data-original-title", "data-bs-original-title", "aria-label"} {
			if v := strings.TrimSpace(attr(k, key)); v != "" {
				label = v
				return false
			}
		}
		return true
	})
	return label
}

// memberLabel reports a profile field's label; term says it stands as a
// definition list's term, where a colon is not needed.
func memberLabel(text string, term bool) bool {
	label := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ":"))
	colon := strings.HasSuffix(strings.TrimSpace(text), ":")
	return memberFieldRe.MatchString(label) || (term || colon) && memberFieldColonRe.MatchString(label)
}

// memberFieldLine reports a line that is one profile field, its label
// and then its value: "Joined Oct 25, 2017", "Location: London".
func memberFieldLine(text string) bool {
	if memberLabel(text, false) {
		return true // the label alone, its value in a line of its own
	}
	if label, value, ok := strings.Cut(text, ":"); ok && strings.TrimSpace(value) != "" {
		return memberLabel(label+":", false)
	}
	words := strings.Fields(text)
	n := cardFieldLabel(words)
	return n > 0 && figuresOnly(words[n:])
}

// cardFieldLabel is the number of words, at most three, at the start of
// words that make the label of a field only a member's card prints (see
// memberFieldRe); 0 when they make none.
func cardFieldLabel(words []string) int {
	for i := 1; i <= 3 && i <= len(words); i++ {
		if memberFieldRe.MatchString(strings.Join(words[:i], " ")) {
			return i
		}
	}
	return 0
}

// figuresOnly reports words that are a date or a count: each holds a
// digit or names a month ("Oct 25, 2017", "1,204"), so that "Joined the
// club in 2019" is a sentence, not a field.
func figuresOnly(words []string) bool {
	for _, w := range words {
		if strings.IndexFunc(w, func(r rune) bool { return r >= '0' && r <= '9' }) < 0 &&
			!months[strings.ToLower(strings.Trim(w, ".,"))] {
			return false
		}
	}
	return len(words) > 0
}

// memberCards counts, up to minRepeats, the fields and ranks under region
// that only a member's card prints, in the layout tables of older forum
// software too.
func memberCards(region *html.Node) int {
	n := 0
	walk(region, func(k *html.Node) bool {
		if n >= minRepeats || k.Type != html.ElementNode {
			return false
		}
		if closedToCards(k) {
			return false
		}
		if textUpTo(k, maxMemberLine) > maxMemberLine || !(k.DataAtom == atom.Dt || lineElement(k)) {
			return true
		}
		text := flatText(k)
		if k.DataAtom == atom.Dt {
			text = termLabel(k, text)
		}
		if strings.HasPrefix(text, ":") || cardFieldLabel(strings.Fields(strings.ReplaceAll(text, ":", " "))) == 0 && !memberRankRe.MatchString(text) {
			return true
		}
		n++
		return false
	})
	return n
}

// closedToCards reports an element whose lines are no member's card:
// code, a quotation (of another post, card and all), a table of figures.
// A table that lays out a thread's posts, as older forum software draws
// them, is read.
func closedToCards(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Pre, atom.Code, atom.Blockquote:
		return true
	case atom.Table:
		return dataTable(n)
	}
	return false
}
