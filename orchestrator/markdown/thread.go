package markdown

import (
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/glimpse/glimpse/orchestrator/meta"
)

// A thread is a series of posts of one shape, the opening post first:
// each a block of its own (its author, perhaps a date, then its text),
// siblings of the same tag and class. A story with readers' comments
// under it has the same series, but after the story, which is a block of
// another shape; a thread's series starts where its content starts. Many
// forums declare nothing, or call every page an article, and only this
// shape tells their replies from the comments under a story.

// minThreadShare is the least share of the region's prose that the posts
// of a thread hold together.
const minThreadShare = 0.5

// threadShape reports whether region is a thread: a series of at least
// minRepeats posts holding minThreadShare of its prose, with no more prose
// before the first post than the first post holds (its title, a line of
// breadcrumbs). A tree of posts (see nestedPosts) may follow a short
// story, which its discussion outweighs many times: a link shared with a
// few lines of its own, and the readers' thread about it.
func threadShape(region *html.Node) bool {
	posts := threadPosts(region, false)
	tree := false
	if posts == nil {
		posts = nestedPosts(region)
		tree = posts != nil
	}
	if posts == nil {
		// Posts each headed by a reply's title ("Re: Squeaky bearings")
		// are a thread's, not a listing's excerpts under their titles;
		// the search for them is made only where such titles are.
		if replyTitles(region) < minRepeats-1 {
			return false
		}
		if posts = threadPosts(region, true); !replyHeaded(posts) {
			return false
		}
	}
	if posts == nil {
		return false
	}
	if first := openingPost(posts[0]); first != nil {
		posts = append([]*html.Node{first}, posts...)
	}
	before := proseBefore(region, posts[0])
	if before <= min(proseLen(posts[0]), maxProseBeforeThread) {
		return true
	}
	if !tree || before > maxSharedStory {
		return false
	}
	prose := 0
	for _, p := range posts {
		prose += proseLen(p)
	}
	return prose >= minDiscussionFactor*before
}

// maxSharedStory is the most prose, in bytes, of a story a tree of posts
// discusses, and minDiscussionFactor how many times its prose the posts
// hold: a few lines that share a link, and a long thread about it. A
// story of its own with its comments below is longer, or its comments
// fewer.
const (
	maxSharedStory      = 1500
	minDiscussionFactor = 10
)

// minOpeningProseShare is the least share of an opening post's text that
// is prose. Its place and its template already say it is a post; a
// thread may open with a list of sources, mostly links, which a reply or
// a listing's card is not held to.
const minOpeningProseShare = 0.2

// openingPost is the post before a series of replies that the series
// left out because the thread's title heads it: a sibling of the same tag
// and class before the first reply, with nothing but empty elements (a
// rule, a slot for an advertisement) between them, shaped like a post.
// Forum software prints the title over the opening post alone.
func openingPost(reply *html.Node) *html.Node {
	prev := reply.PrevSibling
	for prev != nil && (prev.Type != html.ElementNode || flatText(prev) == "") {
		if prev.Type == html.TextNode && strings.TrimSpace(prev.Data) != "" {
			return nil
		}
		prev = prev.PrevSibling
	}
	if prev == nil || prev.Data != reply.Data || seriesClass(attr(prev, "class")) != seriesClass(attr(reply, "class")) ||
		!postShapeOf(prev, true, minOpeningProseShare) {
		return nil
	}
	return prev
}

// replyTitleRe is the title of a reply: the thread's title after "Re:", or
// the mark of another language's mail and forum software.
var replyTitleRe = regexp.MustCompile(`(?i)^\s*(?:re|aw|sv|vs|odp|rif|antw|r)\s*(?:\[\d+\])?\s*:\s*\S`)

// replyTitles counts the headings under region that are replies' titles,
// up to minRepeats.
func replyTitles(region *html.Node) int {
	n := 0
	walk(region, func(k *html.Node) bool {
		if n >= minRepeats || k.Type != html.ElementNode {
			return false
		}
		if headingLevel(k) > 0 {
			if replyTitleRe.MatchString(textOf(k)) {
				n++
			}
			return false
		}
		return true
	})
	return n
}

// replyHeaded reports posts whose headings are, from the second post on,
// mostly replies' titles.
func replyHeaded(posts []*html.Node) bool {
	if len(posts) < minRepeats {
		return false
	}
	replies := 0
	for _, post := range posts[1:] {
		if h := findFirst(post, func(k *html.Node) bool { return headingLevel(k) > 0 }); h != nil && replyTitleRe.MatchString(textOf(h)) {
			replies++
		}
	}
	return 2*replies >= len(posts)-1
}

// threadPosts finds the posts of a thread under region: the first series,
// in document order, of at least minRepeats siblings of one tag and class
// shaped like posts that hold minThreadShare of the region's prose; nil
// when there is none. Posts headed by a title count only when headed is
// true: on a page known to be a thread, not a listing of excerpts.
func threadPosts(region *html.Node, headed bool) []*html.Node {
	total := proseLen(region)
	if total == 0 {
		return nil
	}
	var posts []*html.Node
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		groups := map[string][]*html.Node{}
		var order []string
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if !postShape(k, headed) {
				continue
			}
			key := k.Data + "." + seriesClass(attr(k, "class"))
			if groups[key] == nil {
				order = append(order, key)
			}
			groups[key] = append(groups[key], k)
		}
		for _, key := range order {
			g := groups[key]
			if len(g) < minRepeats {
				continue
			}
			prose := 0
			for _, k := range g {
				prose += proseLen(k)
			}
			if float64(prose) >= minThreadShare*float64(total) {
				posts = g
				return
			}
		}
		for k := n.FirstChild; k != nil && posts == nil; k = k.NextSibling {
			if k.Type == html.ElementNode {
				visit(k)
			}
		}
	}
	visit(region)
	return posts
}

// minNestedPosts is the fewest posts of a thread drawn as a tree.
const minNestedPosts = 5

// nestedWords are the class words of the boxes a thread drawn as a tree
// nests: a comment, a reply, a post, a message.
var nestedWords = map[string]bool{"comment": true, "comments": true, "reply": true, "replies": true,
	"post": true, "posts": true, "message": true, "messages": true, "thread": true}

// nestedPosts finds a thread drawn as a tree, each reply inside the post
// it answers: boxes of one tag and class (a word of which names a comment,
// a reply or a post) holding their own text and, after it, the same boxes
// again. One level may hold fewer than minRepeats siblings; the tree holds
// minNestedPosts or more, minRepeats of them with prose of their own, and
// some inside others. The posts are the outermost boxes. A layout's grid
// nests its rows and columns too, but names them for the layout.
func nestedPosts(region *html.Node) []*html.Node {
	total := proseLen(region)
	if total == 0 {
		return nil
	}
	groups := map[string][]*html.Node{}
	var order []string
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		class := seriesClass(attr(n, "class"))
		if class == "" {
			return true
		}
		named := slices.ContainsFunc(meta.ClassWords(class), func(w string) bool { return nestedWords[w] })
		if named && postShape(n, true) {
			key := n.Data + "." + class
			if groups[key] == nil {
				order = append(order, key)
			}
			groups[key] = append(groups[key], n)
		}
		return true
	})
	for _, key := range order {
		g := groups[key]
		if len(g) < minNestedPosts {
			continue
		}
		member := map[*html.Node]bool{}
		for _, n := range g {
			member[n] = true
		}
		var tops []*html.Node
		nested, own, prose := 0, 0, 0
		for _, n := range g {
			inner := false
			for p := n.Parent; p != nil && !inner; p = p.Parent {
				inner = member[p]
			}
			if inner {
				nested++
			} else {
				tops = append(tops, n)
				prose += proseLen(n)
			}
			if ownProse(n, member) >= minRepeatProse {
				own++
			}
		}
		if nested >= minRepeats-1 && own >= minRepeats && float64(prose) >= minThreadShare*float64(total) {
			return tops
		}
	}
	return nil
}

// ownProse is the prose of n (see proseLen) outside the boxes of member
// inside it.
func ownProse(n *html.Node, member map[*html.Node]bool) int {
	total := 0
	walk(n, func(k *html.Node) bool { return (k == n || !member[k]) && proseStep(k, &total) })
	return total
}

// maxProseBeforeThread is the most prose, in bytes, a thread's region
// holds before its first post: a title, a count of replies, a line of
// breadcrumbs. A story before its comments says more.
const maxProseBeforeThread = 200

// postShape reports a block shaped like a post: a container (not a
// paragraph, a list or a table) of at least two blocks, such as the
// author's line and the text, with prose of its own.
func postShape(n *html.Node, headed bool) bool {
	return postShapeOf(n, headed, minRepeatProseShare)
}

// postShapeOf is postShape with share as the least share of the block's
// text that is prose.
func postShapeOf(n *html.Node, headed bool, share float64) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.DataAtom {
	case atom.P, atom.Blockquote, atom.Pre, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Figure, atom.A, atom.Span,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Img, atom.Picture:
		return false
	}
	// A post says something of its own; a card of a listing is mostly
	// its link.
	if p := proseLen(n); p < minRepeatProse || float64(p) < share*float64(collapsedText(n)) {
		return false
	}
	// An excerpt in a listing is headed by its title; a post is not.
	// A heading without words is a post's permalink, not a title.
	if !headed && findFirst(n, func(k *html.Node) bool { return headingLevel(k) > 0 && collapsedText(k) > 0 }) != nil {
		return false
	}
	// Wrappers of one block each lead down to the post's parts.
	for depth := 0; depth < maxPostWrappers; depth++ {
		var only *html.Node
		blocks := 0
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type == html.ElementNode && collapsedText(k) > 0 {
				blocks++
				only = k
			}
		}
		if blocks >= 2 {
			return true
		}
		if blocks == 0 {
			return false
		}
		n = only
	}
	return false
}

// maxPostWrappers is how many wrappers of one block each a post may be
// nested in.
const maxPostWrappers = 4

// proseBefore is the prose of root that comes before the element at in
// document order, outside it.
func proseBefore(root, at *html.Node) int {
	total, done := 0, false
	walk(root, func(k *html.Node) bool {
		if done || k == at {
			done = true
			return false
		}
		return proseStep(k, &total)
	})
	return total
}

// threadTypes are the schema.org types of a thread or a question with its
// answers. In JSON-LD a Question counts only at the top of a document: an
// FAQPage lists its questions as Question too.
var threadTypes = map[string]bool{"qapage": true, "discussionforumposting": true}

// declaresThread reports a page that declares itself a thread or a
// question: a QAPage or DiscussionForumPosting anywhere in its JSON-LD, a
// Question at the top of it, or an item of microdata of those types that
// no other item holds.
func declaresThread(page *html.Node) bool {
	found := false
	walk(page, func(n *html.Node) bool {
		if found || n.Type != html.ElementNode {
			return false
		}
		if doc, ok := jsonLD(n); ok {
			ldTypes(doc, 0, func(t string) { found = found || threadTypes[schemaType(t)] })
			topLevelTypes(doc, 0, func(t string) { found = found || t == "question" })
			return false
		}
		if hasAttr(n, "itemscope") {
			t := schemaType(attr(n, "itemtype"))
			found = threadTypes[t] || t == "question"
			return false // an item inside another is a part of it
		}
		return true
	})
	return found
}

// maxStatText is the longest text, in bytes, of a post's figure: its
// author's count of messages, reactions or points, a post's number.
const maxStatText = 40

// dropPostStats removes the figures around the posts of a thread: blocks
// whose text is numbers and at most two words ("Messages 1,204", "Posts:
// 75", "#12", "4.7K"). They describe the member, not what the member
// wrote; a post's date (named by its month, or written in figures as
// 11-29-2024) stays.
func dropPostStats(region *html.Node) {
	walk(region, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		switch n.DataAtom {
		case atom.Table, atom.Tbody, atom.Thead, atom.Tr, atom.Td, atom.Th, atom.Pre, atom.Code:
			return n.DataAtom != atom.Pre && n.DataAtom != atom.Code
		}
		if collapsedText(n) > maxStatText {
			return true
		}
		if postStat(spacedText(n)) {
			n.Parent.RemoveChild(n)
		}
		return false
	})
}

// postStat reports a short text of numbers and at most two words, none of
// them a month, that is not a date written in figures.
func postStat(text string) bool {
	if numericDateRe.MatchString(text) {
		return false
	}
	figures, words := 0, 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !wordRune(r) || r == '_' }) {
		switch {
		case figure(w):
			figures++
		case months[strings.ToLower(w)]:
			return false
		default:
			words++
		}
	}
	return figures > 0 && words <= 2
}

// figure reports a number as forums write counts: digits, perhaps with a
// K or M after them.
func figure(w string) bool {
	w = strings.TrimRight(w, "kKmM")
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// months are the names of months and their abbreviations in English.
var months = map[string]bool{
	"jan": true, "feb": true, "mar": true, "apr": true, "may": true, "jun": true, "jul": true, "aug": true, "sep": true,
	"sept": true, "oct": true, "nov": true, "dec": true, "january": true, "february": true, "march": true, "april": true,
	"june": true, "july": true, "august": true, "september": true, "october": true, "november": true, "december": true,
}

// spacedText is the text under n with a space between its text nodes, so
// that a term and its value in separate cells read as two words.
func spacedText(n *html.Node) string {
	var parts []string
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode {
			parts = append(parts, k.Data)
		}
		return true
	})
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// seriesClass is what the posts of one series share of their class: its
// first name, without figures. Forums mark every other post ("bg1",
// "bg2"), the first, the unread or the member's own with further names.
func seriesClass(class string) string {
	f := strings.Fields(class)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimRight(f[0], "0123456789")
}
