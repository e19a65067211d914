package markdown

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// prepare readies a tree the package owns for the converter: it leaves only
// links and images that a reader can follow, names the language of code
// blocks and turns tables that only lay the page out into plain blocks.
// Everything it does is a rewrite of the tree, so the converter's own rules
// stay as they are.
func prepare(root *html.Node, pageURL, base *url.URL) {
	var elems []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		if nonContent(n) || hidden(n) {
			n.Parent.RemoveChild(n)
			return false
		}
		elems = append(elems, n)
		return true
	})
	markLiteralEntities(root)
	spaceTouchingInlines(root)
	labelTabs(root)
	controls := repeatedPageControls(elems, pageURL, base)
	captions := map[string]bool{}
	for _, n := range elems {
		if n.Parent == nil {
			continue // inside a subtree removed earlier
		}
		switch n.DataAtom {
		case atom.A:
			if controls[n] {
				n.Parent.RemoveChild(n)
				continue
			}
			prepareLink(n, pageURL, base)
		case atom.Img:
			prepareImage(n, base)
			dropRepeatedImage(n)
		case atom.Pre:
			prepareCode(n)
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			dropEditLinks(n)
		case atom.Figcaption:
			spaceApart(n)
			captionSeen(n, captions)
		}
		if n.Data == "math" { // in or out of the MathML namespace: see nonContent
			prepareFormula(n)
		}
	}
	dropIcons(root, elems)
	// A link whose one picture was dropped after it (inline data, a
	// tracking pixel, an ad, an icon) is now as empty as one that had none.
	for _, n := range elems {
		if n.DataAtom == atom.A && n.Parent != nil && emptyLink(n) {
			n.Parent.RemoveChild(n)
		} else if n.DataAtom == atom.A && n.Parent != nil {
			dropGallerySlides(n)
		}
	}
	dropEchoedAlts(elems)
	// A list left with nothing in it (its items were menus or controls)
	// would come out as the converter's mark between two lists, set as
	// an item of its own: "- <!--THE END-->".
	for i := len(elems) - 1; i >= 0; i-- {
		if n := elems[i]; (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol) && n.Parent != nil && emptyBlock(n) {
			n.Parent.RemoveChild(n)
		}
	}
	// Innermost tables first: whether a table is data depends on what its
	// cells hold once the tables inside them are settled.
	for i := len(elems) - 1; i >= 0; i-- {
		if n := elems[i]; n.DataAtom == atom.Table && n.Parent != nil {
			prepareTable(n)
		}
	}
}

// literalAmp stands, in the text the converter writes, for an "&" of the
// page's text that starts what Markdown would read as a character
// reference ("&lt;", "&#60;", "&copy;" written out on a page about HTML).
// The converter writes such an "&" as it is, and the reader would show
// the character instead of the words; tidy writes "&amp;" in its place.
// It is a Unicode noncharacter, which no page's text holds.
const literalAmp = "\ufdd0"

// entityLikeRe is an "&" that starts a character reference.
var entityLikeRe = regexp.MustCompile(`&(#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)`)

// markLiteralEntities puts literalAmp for each "&" of text under root that
// starts a character reference, outside code, where a reader takes the
// text as it is.
func markLiteralEntities(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		switch {
		case n.Type == html.ElementNode:
			return !literalText(n) && n.Data != "math"
		case n.Type == html.TextNode:
			if strings.Contains(n.Data, "&") || strings.Contains(n.Data, literalAmp) {
				n.Data = entityLikeRe.ReplaceAllString(strings.ReplaceAll(n.Data, literalAmp, ""), literalAmp+"$1")
			}
		}
		return false
	})
}

// literalText reports an element whose text is shown as written: code, a
// program's output or input, a script or a style.
func literalText(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Pre, atom.Code, atom.Kbd, atom.Samp, atom.Tt, atom.Script, atom.Style:
		return true
	}
	return false
}

// walk visits the tree in document order; visit returns false to skip a
// node's children (it may have removed the node).
func walk(n *html.Node, visit func(*html.Node) bool) {
	for k := n.FirstChild; k != nil; {
		next := k.NextSibling
		if visit(k) {
			walk(k, visit)
		}
		k = next
	}
}

// unwrap replaces n by its children.
func unwrap(n *html.Node) {
	p := n.Parent
	if p == nil {
		return
	}
	for k := n.FirstChild; k != nil; {
		next := k.NextSibling
		n.RemoveChild(k)
		p.InsertBefore(k, n)
		k = next
	}
	p.RemoveChild(n)
}

// prepareFormula puts a formula's Markdown in place of its MathML.
func prepareFormula(n *html.Node) {
	md := formulaMarkdown(n)
	if strings.TrimSpace(md) == "" {
		n.Parent.RemoveChild(n)
		return
	}
	f := &html.Node{Type: html.ElementNode, Data: formulaTag, Attr: []html.Attribute{{Key: "data-markdown", Val: md}}}
	f.AppendChild(&html.Node{Type: html.TextNode, Data: "x"})
	n.Parent.InsertBefore(f, n)
	n.Parent.RemoveChild(n)
}

// emptyLink reports a link with neither text nor picture, which would be
// an empty [](url).
func emptyLink(n *html.Node) bool {
	return strings.TrimSpace(textOf(n)) == "" && findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Img }) == nil
}

// prepareLink keeps a link only when it leads to a web page; any other
// (javascript:, data:, mailto:, an empty or broken href, or "#" alone, a
// script's control that leads nowhere) gives way to its text, which is
// all a reader of the Markdown could use.
func prepareLink(n *html.Node, pageURL, base *url.URL) {
	href := resolve(base, attr(n, "href"))
	if !webURL(href) || strings.TrimSpace(attr(n, "href")) == "#" {
		unwrap(n)
		return
	}
	if permalink(n, href, pageURL, base) || skipLink(n, href, pageURL, base) {
		dropOpeningLink(n)
		return
	}
	if emptyLink(n) {
		n.Parent.RemoveChild(n)
		return
	}
	setAttr(n, "href", withoutTracking(href))
	// A link's title mostly repeats its text or the target's name.
	removeAttr(n, "title")
}

// A link's address may carry what only the site's analytics read: a
// campaign's tags (utm_source, utm_campaign…), an ad click's id (gclid,
// fbclid, msclkid), a mailing's (mc_eid, _hsenc), a search result's
// (srsltid), or a forum's session (phpBB's sid, 32 hex digits). They do
// not change the page it leads to; they lengthen every link and carry the
// visit's identity. They are left out, the other parameters kept in
// their order.

// trackingParams are the names of such parameters, lower-cased; any name
// opening with "utm_" is one too.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true, "msclkid": true,
	"yclid": true, "twclid": true, "ttclid": true, "igshid": true, "mc_cid": true, "mc_eid": true, "_hsenc": true,
	"_hsmi": true, "srsltid": true, "mkt_tok": true, "gad_source": true, "gad_campaignid": true,
}

// sessionIDRe is the value of a forum's session parameter.
var sessionIDRe = regexp.MustCompile(`^[0-9a-fA-F]{32}$`)

// withoutTracking is the address href without its tracking parameters
// (see above); href itself when it has none.
func withoutTracking(href string) string {
	base, query, ok := strings.Cut(href, "?")
	if !ok {
		return href
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	var kept []string
	dropped := false
	for param := range strings.SplitSeq(query, "&") {
		name, value, _ := strings.Cut(param, "=")
		key, err := url.QueryUnescape(name)
		if err != nil {
			key = name
		}
		key = strings.ToLower(key)
		if trackingParams[key] || strings.HasPrefix(key, "utm_") || key == "sid" && sessionIDRe.MatchString(value) {
			dropped = true
			continue
		}
		kept = append(kept, param)
	}
	if !dropped {
		return href
	}
	out := base
	if len(kept) > 0 {
		out += "?" + strings.Join(kept, "&")
	}
	if hasFragment {
		out += "#" + fragment
	}
	return out
}

// dropEchoedAlts empties the alt text of a linked picture that the next
// link, to the same address, says in words: a card's picture and its
// title, both leading to the item ("[![Mayzlin](…)](u)" then
// "[Mayzlin](u)"). The picture stays; its words were written twice.
func dropEchoedAlts(elems []*html.Node) {
	var prev *html.Node // the last link, when it holds a picture and no words
	for _, n := range elems {
		if n.DataAtom != atom.A || n.Parent == nil {
			continue
		}
		if prev != nil && attr(n, "href") == attr(prev, "href") {
			img := findFirst(prev, func(k *html.Node) bool { return k.DataAtom == atom.Img })
			if strings.EqualFold(attr(img, "alt"), flatText(n)) { // the alt text's white space is collapsed (see prepareImage)
				setAttr(img, "alt", "")
			}
		}
		prev = nil
		if strings.TrimSpace(textOf(n)) == "" && findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Img }) != nil {
			prev = n
		}
	}
}

// dropOpeningLink removes the link n; when it opened its line, so does
// the separator after it ("#12 · Jan 4, 2024" leaves "Jan 4, 2024").
func dropOpeningLink(n *html.Node) {
	opens := true
	for k := n.PrevSibling; k != nil; k = k.PrevSibling {
		if k.Type != html.TextNode || strings.TrimSpace(k.Data) != "" {
			opens = false
			break
		}
	}
	for k := n.NextSibling; opens && k != nil; k = k.NextSibling {
		if k.Type == html.TextNode && strings.TrimSpace(k.Data) == "" {
			continue
		}
		switch {
		case k.Type == html.TextNode:
			k.Data = strings.TrimLeft(k.Data, lineSeparators)
		case (k.DataAtom == atom.Span || k.DataAtom == atom.B || k.DataAtom == atom.I) && strings.Trim(textOf(k), lineSeparators) == "" &&
			findFirst(k, picture) == nil:
			k.Parent.RemoveChild(k) // a separator of its own: <span class="dot">·</span>
		}
		break
	}
	n.Parent.RemoveChild(n)
}

// lineSeparators are the characters that set the parts of a line apart,
// with white space; not a hyphen, which may open an option ("--").
const lineSeparators = " \t\n\u00a0·•|–—"

// permalink reports the anchor a heading or paragraph carries to link to
// itself ("#", "¶", "§", a link icon, or the anchor's own name): a place on
// this very page, marked by a symbol, which says nothing once the page is
// text.
func permalink(n *html.Node, href string, pageURL, base *url.URL) bool {
	u, err := url.Parse(href)
	if err != nil || u.Fragment == "" {
		return false
	}
	fragment := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	if here := u.String(); here != withoutFragment(pageURL) && here != withoutFragment(base) {
		return false
	}
	if findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.Img }) != nil {
		return false
	}
	if strings.TrimPrefix(strings.TrimSpace(textOf(n)), "#") == fragment && besideHeading(n) {
		return true // the anchor's own name as its text: "Critics[#section4]"
	}
	if postNumberRe.MatchString(strings.TrimSpace(textOf(n))) && lineOfLinks(n) {
		return true // a post's number in a thread, over or under the post: "#12 · Jan 4, 2024"
	}
	for _, r := range textOf(n) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// postNumberRe is the whole text of a post's number, "#12".
var postNumberRe = regexp.MustCompile(`^#\d{1,7}$`)

// maxLinkLine is the most text, in bytes, of the line lineOfLinks reads.
const maxLinkLine = 80

// lineOfLinks reports whether the block that holds the link n is a short
// line with no words outside its links: a post's number and its date,
// not a sentence that cites a post ("as #12 said").
func lineOfLinks(n *html.Node) bool {
	block := n.Parent
	for block != nil && block.Type == html.ElementNode && inlineTags[block.DataAtom] {
		block = block.Parent
	}
	if block == nil || textUpTo(block, maxLinkLine) > maxLinkLine {
		return false
	}
	return !strings.ContainsFunc(textSkipping(block, func(k *html.Node) bool { return k.DataAtom == atom.A }), unicode.IsLetter)
}

// besideHeading reports a link inside a heading that has words of its own
// besides the link's: there a link named after its anchor is the
// heading's permalink. A heading that is its link ("[align-items](#align-items)")
// and a reference in a sentence ("See [#Configuration](#Configuration)")
// keep theirs.
func besideHeading(link *html.Node) bool {
	for p := link.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			rest := strings.Replace(textOf(p), textOf(link), "", 1)
			return strings.IndexFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
		}
	}
	return false
}

func withoutFragment(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	return c.String()
}

// textOf is the text under n.
func textOf(n *html.Node) string {
	var sb strings.Builder
	walk(n, func(k *html.Node) bool {
		if k.Type == html.TextNode {
			sb.WriteString(k.Data)
		}
		return true
	})
	return sb.String()
}

// textSkipping is the text under root, leaving out the elements below it
// for which skip is true, with what they hold.
func textSkipping(root *html.Node, skip func(*html.Node) bool) string {
	var sb strings.Builder
	walk(root, func(k *html.Node) bool {
		switch {
		case k.Type == html.TextNode:
			sb.WriteString(k.Data)
		case k.Type == html.ElementNode && k != root && skip(k):
			return false
		}
		return true
	})
	return sb.String()
}

// flatText is the text under n, each run of white space one space.
//
// It is strings.Join(strings.Fields(textOf(n)), " "), written in one pass:
// the rules ask it of many elements of every page.
func flatText(n *html.Node) string { return flatTextUpTo(n, -1) }

// flatTextUpTo is flatText(n) cut to its first limit bytes (all of it
// when limit is negative), reading no more of n than those take.
func flatTextUpTo(n *html.Node, limit int) string {
	var sb strings.Builder
	space := false // white space since the last word, which a next word writes as one space
	var read func(n *html.Node) bool
	read = func(n *html.Node) bool {
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			if k.Type != html.TextNode {
				if !read(k) {
					return false
				}
				continue
			}
			s := k.Data
			start := 0 // of the run of words' bytes not yet written
			for i := 0; i < len(s); {
				c, size := rune(s[i]), 1
				if c >= utf8.RuneSelf {
					c, size = utf8.DecodeRuneInString(s[i:])
				}
				if isFieldSpace(c) {
					sb.WriteString(s[start:i])
					start, space = i+size, true
				} else if space {
					if sb.Len() > 0 {
						sb.WriteByte(' ')
					}
					space = false
				}
				i += size
			}
			sb.WriteString(s[start:])
			// What is written stays: a space is written only before a word.
			if limit >= 0 && sb.Len() >= limit {
				return false
			}
		}
		return true
	}
	read(n)
	t := sb.String()
	if limit >= 0 && len(t) > limit {
		t = t[:limit]
	}
	return t
}

// isFieldSpace reports the white space strings.Fields splits at.
func isFieldSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ':
		return true
	}
	return r >= utf8.RuneSelf && unicode.IsSpace(r)
}

// webURL reports an absolute http(s) URL with a host.
func webURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// lazySrcAttrs are where lazy loaders keep the real picture while src holds
// a placeholder, most used first. The first loaderSrcAttrs of them are
// the loaders' own: what one holds is what the loader puts in src when
// the picture nears the view.
var lazySrcAttrs = []string{"data-src", "data-original", "data-lazy-src", "data-url", "data-hi-res-src", "data-full-src"}

// loaderSrcAttrs is how many of lazySrcAttrs, first, are the loaders' own.
const loaderSrcAttrs = 3

// prepareImage settles the one address an image shows and drops images no
// reader would miss: tracking pixels, spacers and inline data.
//
// A lazy loader's address comes before src, whatever src holds: until the
// picture nears the view, src is a stand-in the loader replaces, and the
// stand-ins are too many to know by name (a grey pixel, a blurred
// thumbnail twenty pixels wide, a site's "no image" tile, a generic
// picture served for every story).
func prepareImage(n *html.Node, base *url.URL) {
	src := resolve(base, attr(n, "src"))
	if v := loaderSource(n, base); v != "" {
		src = v
	} else if !webURL(src) || placeholderImage(src) {
		src = ""
		for _, k := range lazySrcAttrs {
			if v := attrAddress(n, k, base); v != "" {
				src = v
				break
			}
		}
		if src == "" {
			src = lazySource(n, base, "src")
		}
	}
	if src == "" {
		src = srcsetPick(n, base)
	}
	if src == "" && n.Parent != nil && n.Parent.DataAtom == atom.Picture {
		for s := n.Parent.FirstChild; s != nil && src == ""; s = s.NextSibling {
			if s.DataAtom == atom.Source {
				src = srcsetPick(s, base)
			}
		}
	}
	if src == "" || trackingImage(n, src) || avatarImage(src, attr(n, "alt")) || siteIconImage(src) {
		n.Parent.RemoveChild(n)
		return
	}
	setAttr(n, "src", src)
	// A title would become part of the Markdown image; it is rarely more
	// than the alt text again.
	removeAttr(n, "title")
	setAttr(n, "alt", strings.Join(strings.Fields(altText(attr(n, "alt"))), " "))
}

// altText is an image's alternative text as its author wrote it. A
// character reference left in it after the markup was read ("Source
// &amp; Photography", "she&#039;s in") was escaped twice by the page's
// templates: no reader is shown an alt text's markup, so it is read once
// more. A script's empty value written out as text (alt="null",
// "undefined", "[object Object]") describes nothing: the picture has no
// alternative text.
func altText(alt string) string {
	if scriptEmptyValue(alt) {
		return ""
	}
	if strings.Contains(alt, "&") && entityLikeRe.MatchString(alt) {
		return html.UnescapeString(alt)
	}
	return alt
}

// scriptEmptyValue reports text that is only what a script writes for a
// value it does not have: null, undefined, NaN or an object's default
// string.
func scriptEmptyValue(s string) bool {
	switch strings.TrimSpace(s) {
	case "null", "undefined", "NaN", "[object Object]":
		return true
	}
	return false
}

// loaderSource is the address a lazy loader keeps for the picture in one
// of its own attributes; "" when it keeps none, or a stand-in, or two
// addresses run together.
func loaderSource(n *html.Node, base *url.URL) string {
	for _, k := range lazySrcAttrs[:loaderSrcAttrs] {
		if v := attrAddress(n, k, base); v != "" && !placeholderImage(v) {
			return v
		}
	}
	return ""
}

// attrAddress is the web address n's attribute k holds, resolved against
// base; "" when it holds none, a script's leftover or two addresses run
// together.
func attrAddress(n *html.Node, k string, base *url.URL) string {
	raw := strings.TrimSpace(attr(n, k))
	if !addressLike(raw) || joinedAddresses(raw) {
		return ""
	}
	if v := resolve(base, raw); webURL(v) {
		return v
	}
	return ""
}

// addressLike reports a value that may be an address, relative or not: a
// path or a file's name. A script's leftovers ("false", "null",
// "{{ image }}") are none, though a page's address would resolve them.
func addressLike(v string) bool {
	return strings.ContainsAny(v, "/.") && !strings.ContainsAny(v, "{}<> \t\n")
}

// joinedAddresses reports a value holding a second address that does not
// begin a path segment or a parameter's value, as an image proxy's does
// ("/fetch/w_800/https://…", "?url=https://…"): two addresses run
// together ("a.png+https://…/a@2x.png"), of which neither is one.
func joinedAddresses(v string) bool {
	lower := strings.ToLower(v)
	for i := 1; i < len(lower); i++ {
		if strings.HasPrefix(lower[i:], "http://") || strings.HasPrefix(lower[i:], "https://") {
			if c := lower[i-1]; c != '/' && c != '=' {
				return true
			}
		}
	}
	return false
}

// srcsetPick is the first web URL of an element's srcset (or its lazy twin).
func srcsetPick(n *html.Node, base *url.URL) string {
	for _, k := range []string{"srcset", "data-srcset"} {
		if v := firstCandidate(attr(n, k), base); v != "" {
			return v
		}
	}
	return lazySource(n, base, "srcset")
}

// firstCandidate is the first web URL of a srcset's value.
func firstCandidate(srcset string, base *url.URL) string {
	for cand := range strings.SplitSeq(srcset, ",") {
		if f := strings.Fields(cand); len(f) > 0 {
			if v := resolve(base, f[0]); webURL(v) && !placeholderImage(v) {
				return v
			}
		}
	}
	return ""
}

// standInAttrRe matches the names of attributes that hold a stand-in for
// the picture rather than the picture: a blurred or low-quality preview, a
// thumbnail, a placeholder, a fallback.
var standInAttrRe = regexp.MustCompile(`(?i)placeholder|blur|thumb|fallback|lqip|preview|low|tiny`)

// lazySource is the picture a lazy loader of its own keeps under an
// attribute named for it ("nitro-lazy-src", "data-delay-srcset",
// "ta-srcset"): the first attribute whose name ends in suffix ("src" or
// "srcset") but is none of the common ones read before it, whose value
// is an address, and
// which is not named for a stand-in. A template's binding (":src",
// "ng-src") holds an expression, not an address, and is passed over: an
// address begins with a scheme, "//" or "/".
func lazySource(n *html.Node, base *url.URL, suffix string) string {
	for _, a := range n.Attr {
		k := strings.ToLower(a.Key)
		if k == suffix || k == "data-"+suffix || slices.Contains(lazySrcAttrs, k) || !strings.HasSuffix(k, suffix) ||
			strings.ContainsAny(k, ":") || standInAttrRe.MatchString(k) {
			continue
		}
		first := strings.TrimSpace(a.Val)
		if suffix == "srcset" {
			first, _, _ = strings.Cut(first, " ")
		}
		if !strings.HasPrefix(first, "/") && !strings.HasPrefix(strings.ToLower(first), "http") {
			continue
		}
		if suffix == "srcset" {
			if v := firstCandidate(a.Val, base); v != "" {
				return v
			}
		} else if v := resolve(base, a.Val); webURL(v) && !placeholderImage(v) {
			return v
		}
	}
	return ""
}

var (
	// trackingHosts serve beacons and counters, never pictures.
	trackingHosts = []string{"doubleclick.net", "google-analytics.com", "googletagmanager.com",
		"googleadservices.com", "googlesyndication.com", "scorecardresearch.com", "quantserve.com",
		"bat.bing.com", "stats.wp.com", "pixel.wp.com", "analytics.twitter.com", "ads-twitter.com",
		"facebook.net", "imrworldwide.com", "chartbeat.net", "omtrdc.net", "2o7.net", "demdex.net",
		"adnxs.com", "rubiconproject.com", "pubmatic.com", "criteo.com", "criteo.net", "taboola.com",
		"outbrain.com", "krxd.net", "bluekai.com", "mathtag.com", "addthis.com", "sharethis.com",
		"hotjar.com", "newrelic.com", "nr-data.net", "mc.yandex.ru", "counter.yadro.ru",
		"top-fwz1.mail.ru", "linkedin.com/px", "px.ads.linkedin.com", "feedburner.com", "parsely.com",
		"parse.ly", "sitemeter.com", "statcounter.com", "pixel.quantserve.com", "amazon-adsystem.com"}
	trackingHostPrefixes = []string{"pixel.", "pixels.", "beacon.", "beacons.", "analytics.", "stats.",
		"stat.", "tracking.", "track.", "tracker.", "metrics.", "counter."}
	// trackingPathRe matches the paths beacons are served at: analytics
	// collectors, e-mail open trackers, counters.
	trackingPathRe = regexp.MustCompile(`(?i)/(?:__utm\.gif|piwik\.php|matomo\.php|g/collect|collect|pixel|beacon|` +
		`impression|wf/open|tr|hit|counter)(?:\.(?:gif|png|php|cgi))?$|/b/ss/`)
	// placeholderNameRe matches the file names of images that stand for
	// none: spacers and the blanks lazy loaders show until the real picture.
	placeholderNameRe = regexp.MustCompile(`(?i)^(pixel|spacer|blank|transparent|clear|1x1|px|trans|dot|empty|` +
		`grey|gray|placeholder|lazy|loading|loader)([-_.]?\d*)?\.(gif|png|jpe?g|webp|svg)$`)
)

// placeholderWordRe finds a word in an image's file name that only the
// stand-ins lazy loaders show carry, beside others ("lazy_placeholder.gif",
// "placeholder.60f9b1840c.svg"); an animation's name may also say it
// shows loading ("ajax-loader.gif", "loading_icon.svg", "spinner2.gif"),
// where a photograph's may not ("front-loader.jpg").
var (
	placeholderWordRe = regexp.MustCompile(`(?i)(?:^|[-_.])placeholder(?:[-_.]|\d|$)`)
	loadingWordRe     = regexp.MustCompile(`(?i)(?:^|[-_.])(?:(?:pre)?loader|loading|spinner)(?:[-_.\d][^/]*)?\.(?:gif|svg)$`)
)

// placeholderImage reports an address that only holds a blank.
func placeholderImage(src string) bool {
	u, err := url.Parse(src)
	return err != nil || placeholderName(path.Base(u.Path))
}

// placeholderName reports the file name of an image that stands for none.
func placeholderName(name string) bool {
	return placeholderNameRe.MatchString(name) || placeholderWordRe.MatchString(name) || loadingWordRe.MatchString(name) ||
		standInWords(name)
}

// standInWords and alsoInStandIns are the words of the names blanks are
// given ("grey-pixel.gif", "transparent-pixel._V1922_.gif",
// "clear_dot.gif", "no-image.png"): one of the first, the rest of either,
// past the numbers, sizes and hashes a site adds to a name.
var (
	standInWordSet = map[string]bool{
		"pixel": true, "pixels": true, "spacer": true, "blank": true, "transparent": true, "clear": true,
		"cleardot": true, "trans": true, "empty": true, "grey": true, "gray": true, "lazy": true,
		"shim": true, "noimage": true, "noimg": true, "nophoto": true, // also "no-image", "no_photo"
	}
	alsoInStandIns = map[string]bool{"dot": true, "px": true, "image": true, "img": true, "photo": true, "no": true, "default": true}
	// nameNoiseRe matches the parts of a file name that say nothing of
	// what it shows: numbers, sizes ("1x1", "100_70"), versions and
	// hashes ("V192234675", "60f9b1840c").
	nameNoiseRe = regexp.MustCompile(`^(?:\d+|\d+x\d+|[a-z]?\d{3,}[a-z]?|v\d+|[0-9a-f]{8,})$`)
)

// standInWords reports a file name whose words are a blank's.
func standInWords(name string) bool {
	stem := strings.ToLower(name)
	if i := strings.LastIndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	strong, prev := false, ""
	for w := range strings.FieldsFuncSeq(stem, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == ' ' }) {
		switch {
		case standInWordSet[w], prev == "no" && standInWordSet["no"+w]:
			strong = true
		case alsoInStandIns[w], nameNoiseRe.MatchString(w):
		default:
			return false
		}
		prev = w
	}
	return strong
}

// trackingImage reports an image that exists to be counted, not seen: a
// declared size of a pixel or two, a blank file, or a beacon's address.
func trackingImage(n *html.Node, src string) bool {
	// A picture a pixel or two wide (or tall) shows nothing: it is a
	// beacon or a spacer.
	if w, h := declaredSize(n); (w > 0 && w <= 2) || (h > 0 && h <= 2) {
		return true
	}
	u, err := url.Parse(src)
	if err != nil {
		return true
	}
	host := strings.ToLower(u.Hostname())
	hostPath := host + strings.ToLower(u.Path)
	for _, d := range trackingHosts {
		if host == d || strings.HasSuffix(host, "."+d) || strings.HasPrefix(hostPath, d) {
			return true
		}
	}
	for _, p := range trackingHostPrefixes {
		if strings.HasPrefix(host, p) {
			return true
		}
	}
	if adImage(u) {
		return true
	}
	if placeholderName(path.Base(u.Path)) {
		return true
	}
	return trackingPathRe.MatchString(strings.TrimSuffix(u.Path, "/"))
}

// declaredSize is the width and height an image declares in CSS pixels, by
// attribute or inline style; 0 where it declares none or a relative size.
func declaredSize(n *html.Node) (w, h int) {
	w, h = cssPixels(attr(n, "width")), cssPixels(attr(n, "height"))
	for k, v := range styleDeclarations(attr(n, "style")) {
		switch k {
		case "width":
			if px := cssPixels(v); px > 0 {
				w = px
			}
		case "height":
			if px := cssPixels(v); px > 0 {
				h = px
			}
		}
	}
	return w, h
}

// cssPixels reads "1", "1px" or "0.5px" as pixels, rounded up so that a
// fraction of a pixel still counts as one; -1 for an explicit zero, which
// is as invisible as it gets; 0 for anything else.
func cssPixels(v string) int {
	v = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), "px")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch {
	case err != nil || f < 0:
		return 0
	case f == 0:
		return 1
	}
	return int(f + 0.999)
}

// langClassRe reads a code language from the class conventions of the
// highlighters (language-go, lang-go, highlight-source-go, brush: go).
var langClassRe = regexp.MustCompile(`(?i)(?:^|\s)(?:language-|lang-|highlight-source-|highlight-|brush:\s*)([a-z0-9][a-z0-9_+#.-]{0,31})(?:\s|;|$)`)

// prepareCode names the language of a code block, read from the block, its
// <code> or the wrapper a highlighter put around it, and leaves that as the
// only class the converter reads.
func prepareCode(pre *html.Node) {
	lang := ""
	try := func(n *html.Node) {
		if lang != "" || n == nil || n.Type != html.ElementNode {
			return
		}
		for _, k := range []string{"data-lang", "data-language"} {
			if v := strings.TrimSpace(attr(n, k)); codeLangRe.MatchString(v) {
				lang = v
				return
			}
		}
		if m := langClassRe.FindStringSubmatch(attr(n, "class")); m != nil {
			lang = m[1]
		}
	}
	try(pre)
	for k := pre.FirstChild; k != nil; k = k.NextSibling {
		if k.DataAtom == atom.Code {
			try(k)
		}
	}
	if p := pre.Parent; p != nil {
		try(p)
		try(p.Parent)
	}
	walk(pre, func(n *html.Node) bool {
		removeAttr(n, "class")
		return true
	})
	removeAttr(pre, "class")
	if lang = strings.ToLower(lang); lang != "" && !noLanguage[lang] {
		setAttr(pre, "class", "language-"+lang)
	} else {
		lang = ""
	}
	dropCodeHeader(pre, lang)
}

// dropCodeHeader removes the line a site prints over a code block to name
// its language, with perhaps its copy button's words ("js", "bash Copy"),
// or only the button's ("Code: Select all", a forum's box around each
// snippet): the fence says the language, and the Markdown has no button.
// It is the element right before the block, or before the box the block
// opens; lang is the block's language, or "" when it names none.
func dropCodeHeader(pre *html.Node, lang string) {
	before := func(n *html.Node) *html.Node {
		return besideElement(n, func(k *html.Node) *html.Node { return k.PrevSibling })
	}
	prev := before(pre)
	if prev == nil && pre.Parent != nil {
		prev = before(pre.Parent)
	}
	if prev == nil || prev.DataAtom == atom.Pre || textUpTo(prev, maxCodeHeader) > maxCodeHeader {
		return
	}
	words := strings.Fields(strings.ToLower(flatText(prev)))
	if len(words) == 0 {
		return
	}
	if lang != "" && words[0] == lang {
		words = words[1:]
	}
	for _, w := range words {
		if !copyWords[strings.Trim(w, "!.:")] {
			return
		}
	}
	prev.Parent.RemoveChild(prev)
}

// maxCodeHeader is the most text, in bytes, of a code block's header.
const maxCodeHeader = 40

// copyWords are the words of a code block's copy button.
var copyWords = map[string]bool{"copy": true, "code": true, "copied": true, "to": true, "clipboard": true, "select": true, "all": true}

// codeLangRe is what a language name may look like in a fence's info string.
var codeLangRe = regexp.MustCompile(`(?i)^[a-z0-9][a-z0-9_+#.-]{0,31}$`)

// noLanguage are class words that say a block is code without naming its
// language.
var noLanguage = map[string]bool{"none": true, "plain": true, "nohighlight": true, "default": true, "text": true}

// prepareTable keeps a table as a Markdown table only when it holds data;
// a table that lays the page out becomes blocks of its cells' content, and
// a data table's cells lose the blocks a Markdown cell cannot hold.
func prepareTable(t *html.Node) {
	if !dataTable(t) {
		walk(t, func(n *html.Node) bool {
			if n.Type == html.ElementNode && tablePart(n) {
				rename(n, "div")
			}
			return n.DataAtom != atom.Table // inner tables are already settled
		})
		rename(t, "div")
		return
	}
	walk(t, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol, atom.Li,
			atom.Blockquote, atom.Dl, atom.Dt, atom.Dd, atom.Pre, atom.Figure, atom.Figcaption:
			rename(n, "div")
		case atom.Hr, atom.Br:
			// A line break in a cell would reach the Markdown as a <br>
			// tag; a space keeps the words apart.
			n.Parent.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, n)
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

func tablePart(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Td, atom.Th, atom.Caption, atom.Colgroup, atom.Col:
		return true
	}
	return false
}

func rename(n *html.Node, tag string) {
	n.Data, n.DataAtom = tag, atom.Lookup([]byte(tag))
}

// dataTable tells a table of data from one that lays the page out, as
// browsers' reader modes do: header cells, captions and column groups mark
// data; presentation roles (`presentation`, or its synonym `none`),
// nesting and single rows or columns mark layout;
// otherwise size decides.
func dataTable(t *html.Node) bool {
	switch strings.ToLower(strings.TrimSpace(attr(t, "role"))) {
	case "presentation", "none":
		return false
	}
	if attr(t, "datatable") == "0" {
		return false
	}
	for p := t.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.A, atom.B, atom.Strong, atom.I, atom.Em, atom.Del, atom.S, atom.Strike:
			return false // a Markdown table cannot sit inside inline markup
		}
	}
	rows, cols, marked, nested := 0, 0, false, false
	walk(t, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Table:
			// An inner table still a table holds data of its own; layout
			// tables inside are divs by now.
			nested = true
		case atom.Th, atom.Thead, atom.Tfoot, atom.Colgroup, atom.Col:
			marked = true
		case atom.Caption:
			marked = marked || n.FirstChild != nil
		case atom.Tr:
			rows++
			c := 0
			for k := n.FirstChild; k != nil; k = k.NextSibling {
				if k.DataAtom == atom.Td || k.DataAtom == atom.Th {
					span, _ := strconv.Atoi(attr(k, "colspan"))
					c += max(1, min(span, 1000))
				}
			}
			cols = max(cols, c)
		}
		return true
	})
	switch {
	case nested:
		return false
	case hasAttr(t, "summary") || marked:
		return rows > 0 && cols > 1 || rows > 1
	case rows <= 1 || cols <= 1:
		return false
	case rows >= 10 || cols > 4:
		return true
	}
	return rows*cols > 10
}

// editLinkRe matches the text of the "[edit]" link wikis put in headings.
var editLinkRe = regexp.MustCompile(`(?i)^\[?\s*(?:edit|edit source|bearbeiten|modifier)\s*\]?$`)

// dropEditLinks removes from a heading the links that edit its section
// ("[edit]"), with the brackets around them: they are the wiki's
// controls, not the heading's words.
func dropEditLinks(h *html.Node) {
	walk(h, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return false
		}
		if editLinkRe.MatchString(strings.TrimSpace(textOf(n))) &&
			(n.DataAtom == atom.A || findFirst(n, func(k *html.Node) bool { return k.DataAtom == atom.A }) != nil) {
			for _, side := range []*html.Node{n.PrevSibling, n.NextSibling} {
				if side != nil && side.Type == html.TextNode {
					side.Data = strings.TrimRight(strings.TrimLeft(side.Data, "]"), "[")
				}
			}
			n.Parent.RemoveChild(n)
			return false
		}
		return true
	})
}

// minIconRepeats is how many times one picture must be shown in the
// content to be an icon.
const minIconRepeats = 3

// dropIcons removes the pictures among elems, under root, that the content shows
// minIconRepeats times or more: a check mark before each feature, an award
// badge on each product, a user's avatar beside each post, a divider, a
// placeholder. A picture of the content is shown once; one shown over and
// over is the page's decoration, and in Markdown it is the same line of
// address again and again.
//
// A picture is its address and its text together: pictures that share a
// placeholder's address until a script loads them, each described in its
// own words, are different pictures.
func dropIcons(root *html.Node, elems []*html.Node) {
	key := func(img *html.Node) string { return attr(img, "src") + "\x00" + attr(img, "alt") }
	shown := map[string]int{}
	for _, n := range elems {
		if n.DataAtom == atom.Img && attr(n, "src") != "" && inTree(n, root) {
			shown[key(n)]++
		}
	}
	for _, n := range elems {
		if n.DataAtom == atom.Img && n.Parent != nil && attr(n, "src") != "" && shown[key(n)] >= minIconRepeats {
			n.Parent.RemoveChild(n)
		}
	}
}

// inTree reports whether n is still under root: not removed, alone or
// with a subtree around it.
func inTree(n, root *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p == root {
			return true
		}
	}
	return false
}

// dropRepeatedImage removes an image that repeats the picture just before
// it in the page, address and text, with no words between them:
// responsive markup often shows one picture twice, once per screen size,
// each in a box of its own, and a linked thumbnail may stand beside the
// same picture unlinked. A picture without text repeated by one with
// some gives the first its text. One address described in other words
// may be a placeholder standing for several pictures, and stays.
func dropRepeatedImage(img *html.Node) {
	src := attr(img, "src")
	if img.Parent == nil || src == "" {
		return
	}
	n := img
	for range maxRepeatLookback {
		if n = prevInTree(n); n == nil {
			return
		}
		switch {
		case n.Type == html.TextNode && strings.TrimSpace(n.Data) != "":
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Img:
			alt, prevAlt := attr(img, "alt"), attr(n, "alt")
			if attr(n, "src") != src || alt != prevAlt && alt != "" && prevAlt != "" {
				return
			}
			if prevAlt == "" && alt != "" {
				setAttr(n, "alt", alt)
			}
			img.Parent.RemoveChild(img)
			return
		}
	}
}

// maxRepeatLookback is how many nodes before an image dropRepeatedImage
// reads for the picture it may repeat: the boxes of a responsive pair.
const maxRepeatLookback = 24

// prevInTree is the node before n in document order: the last node under
// its previous sibling, or its parent.
func prevInTree(n *html.Node) *html.Node {
	if n.PrevSibling == nil {
		return n.Parent
	}
	k := n.PrevSibling
	for k.LastChild != nil {
		k = k.LastChild
	}
	return k
}

// dropGallerySlides keeps the first picture of a link that holds pictures
// and no text: a shop's card links its product's gallery, whose slides
// show one at a time, to the product, and the Markdown of a grid would
// otherwise spell out every slide of every card. What held only a slide
// goes with it.
func dropGallerySlides(a *html.Node) {
	if strings.TrimSpace(textOf(a)) != "" {
		return
	}
	var imgs []*html.Node
	walk(a, func(n *html.Node) bool {
		if n.DataAtom == atom.Img {
			imgs = append(imgs, n)
			return false
		}
		return true
	})
	if len(imgs) < 2 {
		return
	}
	for _, img := range imgs[1:] {
		n := img
		for n.Parent != a && holdsOnly(n.Parent, n) {
			n = n.Parent
		}
		n.Parent.RemoveChild(n)
	}
}

// holdsOnly reports whether parent holds nothing but child, white space,
// comments and the sources of a picture.
func holdsOnly(parent, child *html.Node) bool {
	for k := parent.FirstChild; k != nil; k = k.NextSibling {
		switch {
		case k == child, k.Type == html.CommentNode, k.DataAtom == atom.Source:
		case k.Type == html.TextNode && strings.TrimSpace(k.Data) == "":
		default:
			return false
		}
	}
	return true
}

// spaceApart puts a space between the parts of a caption that the page
// lays out apart but writes together: a caption and its credit become
// "… the river. Credit: EPA", not "… the river.Credit: EPA".
func spaceApart(caption *html.Node) {
	for k := caption.FirstChild; k != nil; k = k.NextSibling {
		prev := k.PrevSibling
		if prev == nil || k.Type != html.ElementNode {
			continue
		}
		before, after := ownText(prev), ownText(k)
		if before == "" || after == "" {
			continue
		}
		if !unicode.IsSpace(rune(before[len(before)-1])) && !unicode.IsSpace(rune(after[0])) {
			caption.InsertBefore(&html.Node{Type: html.TextNode, Data: " "}, k)
		}
	}
}

// ownText is the text of n, itself a text node or an element.
func ownText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	return textOf(n)
}
