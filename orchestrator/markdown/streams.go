package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A server that streams its page (React's streaming renderer, and the
// frameworks built on it) sends the page's shell first, with an empty
// template where a part will go: a placeholder (<template id="P:7">), or a
// boundary (<!--$?--><template id="B:0"> before a fallback such as
// "Loading…", up to its <!--/$-->). Each part follows later as a hidden
// segment at the end of the body (<div hidden id="S:7">), with a call that
// moves it in: $RS("S:7","P:7") puts the segment's children where the
// placeholder was, $RC("B:0","S:0") (or $RR, with stylesheets) puts them
// where the fallback was and drops the fallback. A page served without
// inline scripts writes the same calls as templates (<template data-rsi
// data-sid="S:7" data-pid="P:7">, data-rci and data-rri with data-bid).
//
// Read without its script, such a page has its story in pieces at the end
// of the body, in the order they were ready, and its fallbacks in place.
// The copy puts each piece where the call moves it, as a browser shows
// the page.

// streamCallRe matches a call that moves a segment in: the function's
// letter and its first two arguments.
var streamCallRe = regexp.MustCompile(`\$R([SCR])\(\s*["']([^"'\\]{1,64})["']\s*,\s*["']([^"'\\]{1,64})["']`)

// maxStreamCalls bounds the calls read from a page: a streamed page has a
// few dozen; a page with more is not worth the walk.
const maxStreamCalls = 4096

// streamPlan says where the segments of a streamed page go.
type streamPlan struct {
	// into maps a placeholder or a boundary's template to the segment
	// that takes its place.
	into map[*html.Node]*html.Node
	// boundary marks the templates whose fallback, the siblings up to the
	// boundary's end, the segment replaces.
	boundary map[*html.Node]bool
	// moved marks the segments that go elsewhere than where they are.
	// Each goes to one place and each place takes one segment, so a
	// segment is copied once: a chain of segments that hold each other's
	// places has no way in.
	moved map[*html.Node]bool
}

// streamMove is one call: the segment's id, and the placeholder's or the
// boundary's.
type streamMove struct {
	segment, target string
	boundary        bool
}

// streamedPlacements reads the calls of a streamed page under root, in
// the order the page makes them, and finds the elements they name; nil
// when the page makes none that can be followed.
func streamedPlacements(root *html.Node) *streamPlan {
	var moves []streamMove
	walk(root, func(n *html.Node) bool {
		if len(moves) >= maxStreamCalls || n.Type != html.ElementNode {
			return len(moves) < maxStreamCalls
		}
		switch n.DataAtom {
		case atom.Script:
			for k := n.FirstChild; k != nil; k = k.NextSibling {
				if k.Type != html.TextNode || !strings.Contains(k.Data, "$R") {
					continue
				}
				for _, m := range streamCallRe.FindAllStringSubmatch(k.Data, maxStreamCalls-len(moves)) {
					if m[1] == "S" {
						moves = append(moves, streamMove{segment: m[2], target: m[3]})
					} else {
						moves = append(moves, streamMove{segment: m[3], target: m[2], boundary: true})
					}
				}
			}
			return false
		case atom.Template:
			switch {
			case hasAttr(n, "data-rsi"):
				moves = append(moves, streamMove{segment: attr(n, "data-sid"), target: attr(n, "data-pid")})
			case hasAttr(n, "data-rci") || hasAttr(n, "data-rri"):
				moves = append(moves, streamMove{segment: attr(n, "data-sid"), target: attr(n, "data-bid"), boundary: true})
			}
		}
		return true
	})
	if len(moves) == 0 {
		return nil
	}
	ids := map[string]*html.Node{}
	for _, m := range moves {
		ids[m.segment], ids[m.target] = nil, nil
	}
	delete(ids, "")
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if id := attr(n, "id"); id != "" {
			if found, named := ids[id]; named && found == nil {
				ids[id] = n // the first element of an id is the one a script finds
			}
		}
		return true
	})
	p := &streamPlan{into: map[*html.Node]*html.Node{}, boundary: map[*html.Node]bool{}, moved: map[*html.Node]bool{}}
	for _, m := range moves {
		seg, target := ids[m.segment], ids[m.target]
		if seg == nil || target == nil || seg == target || target.DataAtom != atom.Template || p.moved[seg] || p.into[target] != nil {
			continue // a call for a part not on the page, or already placed
		}
		p.into[target], p.moved[seg] = seg, true
		if m.boundary {
			p.boundary[target] = true
		}
	}
	if len(p.into) == 0 {
		return nil
	}
	return p
}

// segmentFor is the segment whose children go where k is, or nil.
func (p *streamPlan) segmentFor(k *html.Node) *html.Node {
	if p == nil || k.Type != html.ElementNode || k.DataAtom != atom.Template {
		return nil
	}
	return p.into[k]
}

// placedElsewhere reports a segment that a call moves.
func (p *streamPlan) placedElsewhere(n *html.Node) bool {
	return p != nil && p.moved[n]
}

// fallbackEnd is the sibling after the fallback that the segment at the
// boundary's template k replaces: the comment that ends the boundary, its
// nested boundaries counted, or nil when the fallback runs to the end of
// its parent.
func fallbackEnd(k *html.Node) *html.Node {
	depth := 0
	for s := k.NextSibling; s != nil; s = s.NextSibling {
		if s.Type != html.CommentNode {
			continue
		}
		switch s.Data {
		case "/$":
			if depth == 0 {
				return s
			}
			depth--
		case "$", "$?", "$!":
			depth++
		}
	}
	return nil
}
