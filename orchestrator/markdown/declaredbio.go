package markdown

import (
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page's JSON-LD may describe its writer ("Jane Doe is a staff writer
// who covers …"), for search engines, and the page shows the same lines
// in its author box, whatever the box's class says ("css-1eilbtc", a page
// builder's widget). A block of the content that says what the page
// declares about its writer is that box: it is about the writer, not the
// subject, and the answer's metadata names the author.

const (
	// minDeclaredBioWords is the fewest words a declared description of
	// the writer has to be looked for: "Staff writer" is a title, which
	// a byline may show beside the story.
	minDeclaredBioWords = 10
	// bioMatchShare is the share of the description's words a block
	// must hold to say it.
	bioMatchShare = 0.8
	// maxBioBoxExtraWords is the most words a box around the
	// description holds beside it: the name, a title, "View all posts",
	// links to the writer's profiles.
	maxBioBoxExtraWords = 40
	// maxDeclaredBios bounds the descriptions looked for: a page that
	// declares more writers than this lists people, and its blocks are
	// not boxes about its writer.
	maxDeclaredBios = 8
)

// writerKeys are the JSON-LD properties whose value is a writer of the
// work, or one who vouches for it.
var writerKeys = map[string]bool{"author": true, "creator": true, "contributor": true, "editor": true, "reviewedby": true}

// profileTypes are the schema.org types of a page about a person: the
// person's description is its content there.
var profileTypes = map[string]bool{"profilepage": true, "aboutpage": true}

// declaredBios is, as lower-cased words, each description the page's
// JSON-LD gives of a writer of its work: a node under one of writerKeys,
// or the node such a property points to by its @id (as SEO plugins
// declare the writer once, in the page's graph). People the page
// declares otherwise (a team's members, a company's founders) are what a
// page about them shows, and a page about a person (a ProfilePage, an
// AboutPage) declares no writer's box.
func declaredBios(page *html.Node) [][]string {
	described := map[string]string{} // @id → description
	var inline []string
	refs := map[string]bool{}
	profile := false
	var visit func(v any, depth int, writer bool)
	visit = func(v any, depth int, writer bool) {
		if depth > maxLDDepth {
			return
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				visit(e, depth+1, writer)
			}
		case string:
			if writer {
				refs[x] = true // "author": "https://example.com/#/person/1"
			}
		case map[string]any:
			nodeTypes(x, func(t string) { profile = profile || profileTypes[schemaType(t)] })
			d, _ := x["description"].(string)
			id, _ := x["@id"].(string)
			switch {
			case writer && d != "":
				inline = append(inline, d)
			case writer && id != "":
				refs[id] = true
			case id != "" && d != "":
				described[id] = d
			}
			for k, e := range x {
				if k != "description" {
					visit(e, depth+1, writerKeys[strings.ToLower(k)])
				}
			}
		}
	}
	eachJSONLD(page, func(doc any) { visit(doc, 0, false) })
	if profile {
		return nil
	}
	for id := range refs {
		if d, ok := described[id]; ok {
			inline = append(inline, d)
		}
	}
	var bios [][]string
	seen := map[string]bool{}
	for _, d := range inline {
		words := descriptionWords(plainDescription(d))
		if key := strings.Join(words, " "); len(words) >= minDeclaredBioWords && !seen[key] {
			seen[key] = true
			bios = append(bios, words)
		}
	}
	if len(bios) > maxDeclaredBios {
		return nil
	}
	sort.Slice(bios, func(i, j int) bool { return strings.Join(bios[i], " ") < strings.Join(bios[j], " ") })
	return bios
}

// dropDeclaredBios removes under art each box that says what bios, the
// page's declared descriptions of its writers, say: the smallest block
// holding most of a description's words and few more, with the parents
// that add no more than a name, a title and a few links, as long as the
// box holds less than half of art's text.
func dropDeclaredBios(art *html.Node, bios [][]string) {
	if len(bios) == 0 {
		return
	}
	lengths := textLengths(art)
	limit := (lengths[art] - 1) / 2
	for _, bio := range bios {
		bioLen := len(strings.Join(bio, " "))
		var holder *html.Node
		walk(art, func(n *html.Node) bool {
			if n.Type != html.ElementNode || holder != nil || quoted(n) {
				return false
			}
			l := float64(lengths[n])
			switch {
			case l < float64(bioLen)*bioMatchShare:
				return false
			case l > float64(limit):
				return true
			}
			if !bioBlock(n) || wordsUpTo(n, len(bio)+maxBioBoxExtraWords) > len(bio)+maxBioBoxExtraWords {
				return true
			}
			if share(bio, wordSet(readerText(n))) < bioMatchShare {
				return true
			}
			holder = n
			// The smallest such block: a child may say it too.
			for k := firstBioChild(n, bio, bioLen, lengths); k != nil; k = firstBioChild(k, bio, bioLen, lengths) {
				holder = k
			}
			return false
		})
		if holder == nil {
			continue
		}
		box, most := holder, wordsUpTo(holder, len(bio)+maxBioBoxExtraWords)+maxBioBoxExtraWords
		for a := holder.Parent; a != nil && a != art && a.Type == html.ElementNode; a = a.Parent {
			if lengths[a] > limit || wordsUpTo(a, most) > most || !bioBlock(a) || quoted(a) {
				break
			}
			box = a
		}
		if box.Parent != nil {
			box.Parent.RemoveChild(box)
		}
	}
}

// firstBioChild is the first element child of n that holds most of bio's
// words, nil for none.
func firstBioChild(n *html.Node, bio []string, bioLen int, lengths map[*html.Node]int) *html.Node {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && float64(lengths[k]) >= float64(bioLen)*bioMatchShare && share(bio, wordSet(readerText(k))) >= bioMatchShare {
			return k
		}
	}
	return nil
}

// bioBlock reports an element that may be, or hold, an author box: not
// the page's root, body or main part, nor a part of a table.
func bioBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Thead, atom.Tbody, atom.Tr, atom.Td, atom.Th:
		return false
	}
	return true
}

// quoted reports an element whose words are another's or a table's:
// code, a quotation, a table. A story may quote its writer's own lines.
func quoted(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Pre, atom.Code, atom.Blockquote, atom.Table:
		return true
	}
	return false
}
