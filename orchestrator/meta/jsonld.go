package meta

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// ldNode is one JSON-LD object.
type ldNode = map[string]any

// ldGraph holds every JSON-LD object of a page: the top-level items (of each
// script, of @graph arrays, and main entities nested in them), ranked by how
// much they speak for the page itself, and an index by @id so that
// references such as "author": {"@id": "#person"} resolve.
type ldGraph struct {
	nodes []ldNode
	byID  map[string]ldNode
}

// Kinds of JSON-LD items, most representative of the page first.
const (
	kindArticle = iota // the content itself: Article and its kin, videos, episodes, products...
	kindPage           // WebPage and its kin
	kindSite           // WebSite
	kindParty          // Organization, Person
	kindOther
)

var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "blogposting": true, "reportagenewsarticle": true,
	"analysisnewsarticle": true, "opinionnewsarticle": true, "reviewnewsarticle": true,
	"backgroundnewsarticle": true, "askpublicnewsarticle": true, "techarticle": true,
	"scholarlyarticle": true, "medicalscholarlyarticle": true, "socialmediaposting": true,
	"liveblogposting": true, "discussionforumposting": true, "report": true, "posting": true,
	"review": true, "criticreview": true, "recipe": true, "howto": true, "videoobject": true,
	"audioobject": true, "podcastepisode": true, "podcastseries": true, "episode": true,
	"radioepisode": true, "tvepisode": true, "musicrecording": true, "musicalbum": true,
	"movie": true, "book": true, "product": true, "event": true, "course": true,
	"softwareapplication": true, "mobileapplication": true, "webapplication": true,
	"creativework": true, "imageobject": false, "qapage": false, "question": true,
	"jobposting": true, "dataset": true, "claimreview": true, "satiricalarticle": true,
}

var pageTypes = map[string]bool{
	"webpage": true, "itempage": true, "aboutpage": true, "profilepage": true,
	"collectionpage": true, "qapage": true, "faqpage": true, "contactpage": true,
	"searchresultspage": true, "checkoutpage": true, "medicalwebpage": true, "realestatelisting": true,
}

var partyTypes = map[string]bool{
	"organization": true, "newsmediaorganization": true, "corporation": true, "person": true,
	"localbusiness": true, "educationalorganization": true, "collegeoruniversity": true,
	"governmentorganization": true, "ngo": true, "onlinebusiness": true, "brand": true,
}

// parseJSONLD reads every <script type="application/ld+json"> of the page.
// A script that is not valid JSON is repaired where the damage is common
// (trailing commas, raw newlines in strings, comment or CDATA wrappers, several
// objects in a row) and skipped otherwise.
func parseJSONLD(doc *goquery.Document) *ldGraph {
	g := &ldGraph{byID: map[string]ldNode{}}
	doc.Find(`script[type]`).Each(func(_ int, s *goquery.Selection) {
		t := strings.ToLower(strings.TrimSpace(strings.Split(s.AttrOr("type", ""), ";")[0]))
		if t != "application/ld+json" && t != "application/json+ld" {
			return
		}
		for _, v := range decodeLD(s.Text()) {
			g.add(v, 0)
		}
	})
	for _, n := range g.nodes {
		g.index(n, 0)
	}
	// Stable order by kind: what the page is about first, the site last.
	ranked := make([]ldNode, 0, len(g.nodes))
	for k := kindArticle; k <= kindOther; k++ {
		for _, n := range g.nodes {
			if ldKind(n) == k {
				ranked = append(ranked, n)
			}
		}
	}
	g.nodes = ranked
	return g
}

// add records v's objects as top-level items: arrays and @graph are
// flattened, and a mainEntity object is an item of its own.
func (g *ldGraph) add(v any, depth int) {
	if depth > 8 {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			g.add(e, depth+1)
		}
	case ldNode:
		if graph, ok := t["@graph"]; ok {
			g.add(graph, depth+1)
			if len(ldTypes(t)) == 0 {
				return
			}
		}
		g.nodes = append(g.nodes, t)
		if me, ok := t["mainEntity"].(ldNode); ok && len(ldTypes(me)) > 0 {
			g.add(me, depth+1)
		}
	}
}

// index remembers every object carrying an @id and more than the @id itself.
func (g *ldGraph) index(v any, depth int) {
	if depth > 12 {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			g.index(e, depth+1)
		}
	case ldNode:
		if id, ok := t["@id"].(string); ok && id != "" && len(t) > 1 {
			if _, seen := g.byID[id]; !seen {
				g.byID[id] = t
			}
		}
		for k, e := range t {
			if k != "@context" {
				g.index(e, depth+1)
			}
		}
	}
}

// resolve follows a bare {"@id": ...} reference to the object it names.
func (g *ldGraph) resolve(v any) any {
	n, ok := v.(ldNode)
	if !ok {
		return v
	}
	id, ok := n["@id"].(string)
	if !ok || id == "" {
		return v
	}
	if full, ok := g.byID[id]; ok && len(full) > len(n) {
		return full
	}
	return v
}

// decodeLD decodes a script's text, repairing it when it is not valid JSON.
func decodeLD(text string) []any {
	text = strings.TrimSpace(text)
	for _, wrap := range [][2]string{{"<!--", "-->"}, {"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}} {
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, wrap[0]), wrap[1]))
	}
	if text == "" {
		return nil
	}
	if vs := decodeStream([]byte(text)); vs != nil {
		return vs
	}
	return decodeStream(repairJSON(text))
}

// decodeStream decodes one JSON value or several in a row, separated by
// nothing, commas or semicolons; nil when nothing decodes.
func decodeStream(b []byte) []any {
	var out []any
	for range 64 {
		b = bytes.TrimLeft(b, " \t\r\n,;")
		if len(b) == 0 {
			break
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		out = append(out, v)
		b = b[dec.InputOffset():]
	}
	return out
}

// repairJSON fixes the mistakes templated JSON-LD commonly has: raw control
// characters inside strings, // and /* */ comments, trailing commas before a
// closing bracket, values left out ("height": }), and single backslashes
// before characters JSON does not escape.
func repairJSON(s string) []byte {
	var b bytes.Buffer
	inStr := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inStr {
			switch {
			case c == '\\':
				if i+1 < len(s) && strings.IndexByte(`"\/bfnrtu`, s[i+1]) >= 0 {
					b.WriteByte(c)
					b.WriteByte(s[i+1])
					i++
				} else {
					b.WriteString(`\\`)
				}
			case c == '"':
				inStr = false
				b.WriteByte(c)
			case c < 0x20:
				b.WriteByte(' ')
			default:
				b.WriteByte(c)
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 3
			}
		case c == ':':
			// "height": } — a value left out becomes null.
			b.WriteByte(c)
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && strings.IndexByte("},]", s[j]) >= 0 {
				b.WriteString("null")
			}
		case c == ',':
			j := i + 1
			for j < len(s) && strings.IndexByte(" \t\r\n", s[j]) >= 0 {
				j++
			}
			if j < len(s) && (s[j] == '}' || s[j] == ']') {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// ldTypes returns the object's @type values in lower case, without a
// schema.org prefix.
func ldTypes(n ldNode) []string {
	var out []string
	add := func(v any) {
		s, ok := v.(string)
		if !ok {
			return
		}
		s = strings.ToLower(strings.TrimSpace(s))
		if i := strings.LastIndexAny(s, "/:#"); i >= 0 {
			s = s[i+1:]
		}
		if s != "" {
			out = append(out, s)
		}
	}
	switch t := n["@type"].(type) {
	case []any:
		for _, e := range t {
			add(e)
		}
	default:
		add(t)
	}
	return out
}

func ldKind(n ldNode) int {
	kind := kindOther
	for _, t := range ldTypes(n) {
		k := kindOther
		switch {
		case articleTypes[t]:
			k = kindArticle
		case pageTypes[t]:
			k = kindPage
		case t == "website":
			k = kindSite
		case partyTypes[t]:
			k = kindParty
		}
		kind = min(kind, k)
	}
	return kind
}

// nodesUpTo returns the ranked items of kinds up to and including maxKind.
func (g *ldGraph) nodesUpTo(maxKind int) []ldNode {
	var out []ldNode
	for _, n := range g.nodes {
		if ldKind(n) <= maxKind {
			out = append(out, n)
		}
	}
	return out
}

// ldText returns a property's text: a string, a number, a language-tagged
// {"@value"}, an object's name, or the first usable element of an array.
func (g *ldGraph) ldText(v any) string {
	switch t := g.resolve(v).(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case json.Number:
		return t.String()
	case ldNode:
		for _, k := range []string{"@value", "name"} {
			if s, ok := t[k].(string); ok && strings.TrimSpace(s) != "" {
				return s
			}
		}
	case []any:
		for _, e := range t {
			if s := g.ldText(e); strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return ""
}

// ldNames returns the names of the people or organisations a property
// (author, creator, publisher) refers to.
func (g *ldGraph) ldNames(v any, depth int) []string {
	if depth > 4 {
		return nil
	}
	switch t := g.resolve(v).(type) {
	case string:
		return []string{t}
	case ldNode:
		for _, k := range []string{"name", "alternateName", "legalName"} {
			if s := g.ldText(t[k]); strings.TrimSpace(s) != "" {
				return []string{s}
			}
		}
		given, family := g.ldText(t["givenName"]), g.ldText(t["familyName"])
		if full := strings.TrimSpace(given + " " + family); full != "" {
			return []string{full}
		}
	case []any:
		var out []string
		for _, e := range t {
			out = append(out, g.ldNames(e, depth+1)...)
		}
		return out
	}
	return nil
}

// ldImage is an image a JSON-LD property points to.
type ldImage struct {
	url           string
	width, height int
}

// ldImages returns the images a property (image, logo, thumbnailUrl) refers
// to: URL strings, ImageObjects and arrays of either.
func (g *ldGraph) ldImages(v any, depth int) []ldImage {
	if depth > 4 {
		return nil
	}
	switch t := g.resolve(v).(type) {
	case string:
		return []ldImage{{url: t}}
	case ldNode:
		for _, k := range []string{"url", "contentUrl", "contentURL", "@id"} {
			u := g.ldText(t[k])
			if u != "" && (k != "@id" || extType(u) != "") {
				return []ldImage{{url: u, width: ldInt(t["width"]), height: ldInt(t["height"])}}
			}
		}
	case []any:
		var out []ldImage
		for _, e := range t {
			out = append(out, g.ldImages(e, depth+1)...)
		}
		return out
	}
	return nil
}

// ldInt reads a dimension given as a number, a numeric string ("630",
// "630px") or a QuantitativeValue.
func ldInt(v any) int {
	switch t := v.(type) {
	case float64:
		if t > 0 && t < 1e6 {
			return int(t)
		}
	case string:
		return atoiPrefix(strings.TrimSpace(t))
	case ldNode:
		return ldInt(t["value"])
	}
	return 0
}

// atoiPrefix parses the leading digits of s; 0 when there are none.
func atoiPrefix(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 7; i++ {
		if s[i] < '0' || s[i] > '9' {
			break
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// ldProp returns a text property of the highest-ranked JSON-LD item, among
// items up to maxKind, that has it.
func (p *page) ldProp(maxKind int, prop string) string {
	for _, n := range p.ld.nodesUpTo(maxKind) {
		if s := p.ld.ldText(n[prop]); strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
