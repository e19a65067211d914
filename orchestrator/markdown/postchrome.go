package markdown

import (
	"net/url"
	"path"
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Every post of a thread is drawn by one template: the member's card
// (name, rank, "Joined", "Posts: 65703"), the post's date and number, its
// controls ("Reply with quote", "Report", "Like", "Share"), then the text.
// The controls and the labels of the figures read the same in every post,
// but for their numbers; the member's name and the date differ from post
// to post, and the text is the post's own. A short part of the template
// that reads the same, numbers aside, in minRepeats posts and at least
// half of them is the thread's furniture, not what a member wrote.

// maxChromeText is the longest text, in bytes, of one post's part of the
// template that counts as furniture.
const maxChromeText = 60

// dropPostChrome removes, from the posts of the thread under region, the
// short parts of their template that read the same in most posts.
func dropPostChrome(region *html.Node) {
	posts := threadPosts(region, true)
	if posts == nil {
		return
	}
	type part struct {
		long  bool           // one post's part says more than maxChromeText
		reads map[string]int // how many posts' part reads so, numbers aside
	}
	parts := map[string]*part{}
	for _, post := range posts {
		seen := map[string]bool{}
		eachPart(post, func(n *html.Node, key string) bool {
			p := parts[key]
			if p == nil {
				p = &part{reads: map[string]int{}}
				parts[key] = p
			}
			if collapsedText(n) > maxChromeText {
				p.long = true
			} else if r := shapeText(n); r != "" && !seen[key+"\x00"+r] {
				seen[key+"\x00"+r] = true
				p.reads[r]++
			}
			return true
		})
	}
	least := max(minRepeats, (len(posts)+1)/2)
	for _, post := range posts {
		var drop []*html.Node
		eachPart(post, func(n *html.Node, key string) bool {
			// A link, emphasis or code amid the words of a text is the
			// text's own, however often the posts repeat it; but a label
			// that opens a short line of the member's card in most posts
			// ("<dd><strong>Founded:</strong> Dec 11, 2021</dd>") is a
			// field of the card, and goes with its line.
			if holdsWords(n.Parent) {
				if r := shapeText(n); r != "" && strings.HasSuffix(r, ":") && parts[key].reads[r] >= least &&
					!textBefore(n) && collapsedText(n.Parent) <= maxChromeText && n.Parent != post {
					drop = append(drop, n.Parent)
					return false
				}
				return true
			}
			if r := shapeText(n); r != "" && collapsedText(n) <= maxChromeText && parts[key].reads[r] >= least {
				drop = append(drop, n)
				// The label of a field of the member's card takes its value
				// with it: "Joined" and the member's day (see dropMemberCards).
				if n.DataAtom == atom.Dt && memberLabel(termLabel(n, r), true) {
					for k := nextElement(n); k != nil && k.DataAtom == atom.Dd; k = nextElement(k) {
						drop = append(drop, k)
					}
				}
				return false
			}
			return true
		})
		for _, n := range drop {
			if n.Parent != nil { // a value that went with its label
				n.Parent.RemoveChild(n)
			}
		}
	}
}

// shapeText is the text under n with white space collapsed and each
// number standing on its own ("65,703", "#12", "9:28") written with "0"
// for its digits, so that the same label reads the same beside any
// figure; a member's name keeps its digits ("carver1"). It is "" when n
// has no words or figures, is a date (a post's date is not furniture,
// though many posts of a thread share their month) or reads as a sentence
// (a member may write the same line under each post).
func shapeText(n *html.Node) string {
	t := spacedText(n)
	if strings.IndexFunc(t, wordRune) < 0 || namesDate(t) || sentence(t) {
		return ""
	}
	var sb strings.Builder
	for i, w := range strings.Split(t, " ") {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if strings.IndexFunc(w, func(r rune) bool { return wordRune(r) && (r < '0' || r > '9') }) >= 0 {
			sb.WriteString(w) // a word, perhaps with figures in it
			continue
		}
		digit := false
		for _, r := range w {
			if r >= '0' && r <= '9' {
				if !digit {
					sb.WriteByte('0')
				}
				digit = true
				continue
			}
			digit = false
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// minSentenceWords is the fewest words of a line that reads as a sentence.
const minSentenceWords = 4

// sentence reports a text of minSentenceWords words or more that ends as a
// sentence does.
func sentence(t string) bool {
	if len(strings.Fields(t)) < minSentenceWords {
		return false
	}
	t = strings.TrimRight(t, `"')”’ `)
	return strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "..") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "?")
}

// eachPart calls visit with each element under post and its place in the
// post's template: the tags and classes of the elements from the post down
// to it. visit returns whether to go down into the element.
func eachPart(post *html.Node, visit func(n *html.Node, key string) bool) {
	var down func(n *html.Node, key string)
	down = func(n *html.Node, key string) {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.ElementNode || k.DataAtom == atom.Script || k.DataAtom == atom.Style {
				continue
			}
			kk := key + "/" + k.Data + "." + strings.Join(strings.Fields(attr(k, "class")), ".")
			if visit(k, kk) {
				down(k, kk)
			}
		}
	}
	down(post, "")
}

// textBefore reports words before n among its siblings.
func textBefore(n *html.Node) bool {
	for k := n.PrevSibling; k != nil; k = k.PrevSibling {
		if strings.IndexFunc(textOf(k), wordRune) >= 0 {
			return true
		}
	}
	return false
}

// holdsWords reports an element that holds words of its own, beside its
// elements.
func holdsWords(n *html.Node) bool {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && strings.IndexFunc(k.Data, wordRune) >= 0 {
			return true
		}
	}
	return false
}

// numericDateRe is a date written in figures for readers: 11-29-2024,
// 2024/11/29, 29.11.24; not a machine's timestamp (2021-04-08T04:06:17Z).
var numericDateRe = regexp.MustCompile(`(?:^|[^\d])\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}(?:$|[^\dT])`)

// namesDate reports a text that names a month, or writes a date in
// figures, and has no label ("Joined: Feb 2019" is a member's figure,
// "February 20, 2026, 4:55pm" and "11-29-2024, 09:03 AM" are dates).
func namesDate(t string) bool {
	if strings.Contains(t, ": ") || strings.HasSuffix(t, ":") {
		return false
	}
	if numericDateRe.MatchString(t) {
		return true
	}
	for _, w := range strings.FieldsFunc(t, func(r rune) bool { return !wordRune(r) || r == '_' }) {
		if months[strings.ToLower(w)] {
			return true
		}
	}
	return false
}

// dropReactionLists removes, under root, the links to the lists of the
// members who reacted to a post ("unixfool and felixen", "kyteflyer, Bobby
// T and 19 others"): forum software prints one under each post, leading
// to the post's reactions or likes; it names who approved, not what was
// written.
func dropReactionLists(root *html.Node) {
	dropLines(root, maxReactionList, nil, func(n *html.Node) bool { return n.DataAtom == atom.A }, func(n *html.Node, _ string) bool {
		return reactionList(attr(n, "href")) && noTextBeside(n)
	})
}

// maxReactionList is the most text, in bytes, of such a link: a few names
// and a count of the others.
const maxReactionList = 200

// reactionList reports the address of a post's list of reactions or likes:
// its path's last part says so ("/posts/31243284/reactions",
// "/p/123/likes").
func reactionList(href string) bool {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return false
	}
	last := strings.ToLower(path.Base(strings.TrimSuffix(u.Path, "/")))
	return last == "reactions" || last == "likes" || last == "likers"
}
