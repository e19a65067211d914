package meta

import (
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// maxImages bounds the image candidates: the caller probes them in order and
// rarely needs more than the first few.
const maxImages = 10

// candidates collects URLs once each, in the order found.
type candidates struct {
	list []Candidate
	seen map[string]bool
}

func (c *candidates) add(cand Candidate) {
	cand.URL = decodeUnreserved(cand.URL)
	if cand.URL == "" || c.seen[cand.URL] {
		return
	}
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	c.seen[cand.URL] = true
	if cand.Type == "" {
		cand.Type = extType(cand.URL)
	}
	c.list = append(c.list, cand)
}

// images returns the candidates for the page's representative image. Sources,
// most specific first:
//   - og:image (secure_url and url variants), with og:image:width/height;
//   - twitter:image, twitter:image:src;
//   - parsely-image-url, sailthru.image.full, <meta name=thumbnail>;
//   - the main JSON-LD item's image, thumbnailUrl, primaryImageOfPage;
//   - microdata image; <link rel=image_src>;
//   - the poster frame of a <video>;
//   - images of the article text, then other large images of the page, then
//     any picture at all (a personal site's only image is often its author).
//
// data: URIs, tracking pixels, emoji, 1×1 images and audio or video files
// are never candidates.
func (p *page) images() []Candidate {
	var c candidates
	addTyped := func(raw, typ string, w, h int, source string) {
		if u := p.abs(raw); u != "" && !badImage(u, w, h) {
			if t := extType(u); t != "" {
				typ = t
			}
			c.add(Candidate{URL: u, Type: typ, Width: w, Height: h, Source: source})
		}
	}
	add := func(raw string, w, h int, source string) { addTyped(raw, "", w, h, source) }
	for _, g := range p.ogImages() {
		typ := imageTypeOnly(TypeFromContentType(g.typ))
		if g.secure != "" {
			addTyped(g.secure, typ, g.width, g.height, "og:image:secure_url")
		}
		addTyped(g.url, typ, g.width, g.height, "og:image")
	}
	tw, th := atoiPrefix(p.meta("twitter:image:width")), atoiPrefix(p.meta("twitter:image:height"))
	for _, k := range []string{"twitter:image:src", "twitter:image", "twitter:image0"} {
		for _, v := range p.metaAll(k) {
			add(v, tw, th, k)
		}
	}
	for _, k := range []string{"parsely-image-url", "sailthru.image.full", "thumbnail", "sailthru.image.thumb"} {
		for _, v := range p.metaAll(k) {
			add(v, 0, 0, k)
		}
	}
	for _, n := range p.ld.nodesUpTo(kindPage) {
		for _, prop := range []string{"image", "thumbnailUrl", "primaryImageOfPage", "thumbnail"} {
			for _, img := range p.ld.ldImages(n[prop], 0) {
				add(img.url, img.width, img.height, "json-ld:"+prop)
			}
		}
	}
	p.doc.Find("[itemprop]").Each(func(_ int, s *goquery.Selection) {
		if !HasToken(s.AttrOr("itemprop", ""), "image") && !HasToken(s.AttrOr("itemprop", ""), "thumbnailUrl") {
			return
		}
		if s.ParentsFiltered("[itemprop~=author], [itemprop~=publisher], [itemprop~=logo]").Length() > 0 {
			return
		}
		if _, scoped := s.Attr("itemscope"); scoped {
			s.Find("[itemprop~=url], [itemprop~=contentUrl], img").EachWithBreak(func(_ int, e *goquery.Selection) bool {
				add(itemValue(e), 0, 0, "microdata:image")
				return false
			})
			return
		}
		add(itemValue(s), atoiPrefix(s.AttrOr("width", "")), atoiPrefix(s.AttrOr("height", "")), "microdata:image")
	})
	add(p.linkHref("image_src"), 0, 0, "link:image_src")
	p.doc.Find("video[poster]").Each(func(_ int, s *goquery.Selection) {
		add(s.AttrOr("poster", ""), atoiPrefix(s.AttrOr("width", "")), atoiPrefix(s.AttrOr("height", "")), "video:poster")
	})
	for _, img := range p.pageImages() {
		if len(c.list) >= maxImages {
			break
		}
		add(img.url, img.width, img.height, img.source)
	}
	if len(c.list) > maxImages {
		c.list = c.list[:maxImages]
	}
	return c.list
}

type ogImage struct {
	url, secure, typ string
	width, height    int
}

// ogImages groups og:image tags with the structured properties that follow
// each of them (og:image:secure_url, :width, :height, :type), as the Open
// Graph protocol defines.
func (p *page) ogImages() []ogImage {
	var out []ogImage
	for _, m := range p.metas {
		v := strings.TrimSpace(m.content)
		switch m.key {
		case "og:image", "og:image:url":
			if len(out) > 0 && out[len(out)-1].url == "" {
				out[len(out)-1].url = v
			} else {
				out = append(out, ogImage{url: v})
			}
		case "og:image:secure_url":
			if len(out) == 0 || out[len(out)-1].secure != "" {
				out = append(out, ogImage{})
			}
			out[len(out)-1].secure = v
		case "og:image:width", "og:image:height", "og:image:type":
			if len(out) == 0 {
				continue
			}
			switch m.key {
			case "og:image:width":
				out[len(out)-1].width = atoiPrefix(v)
			case "og:image:height":
				out[len(out)-1].height = atoiPrefix(v)
			default:
				out[len(out)-1].typ = v
			}
		}
	}
	return out
}

type pageImage struct {
	url           string
	width, height int
	source        string
}

// pageImages returns images of the page's body: those in the article text
// first, then others outside headers, navigation, footers and sidebars, then
// sidebar pictures too, author photos included. Logos, icons, sprites, emoji
// and small images are left out.
func (p *page) pageImages() []pageImage {
	var out []pageImage
	seen := map[string]bool{}
	scopes := []struct {
		sel, source string
		strict      bool
	}{
		{"[itemprop~=articleBody] img, article img, main img, [role=main] img", "img:article", true},
		{"img", "img", true},
		{"img", "img:any", false},
	}
	for _, scope := range scopes {
		p.doc.Find(scope.sel).Each(func(_ int, s *goquery.Selection) {
			if len(out) >= maxImages {
				return
			}
			src := imgSource(s)
			if src == "" || seen[src] {
				return
			}
			if s.ParentsFiltered("noscript, [aria-hidden=true]").Length() > 0 {
				return
			}
			if s.ParentsFiltered("header, nav, footer, [role=banner], [role=navigation], [role=contentinfo]").Length() > 0 ||
				scope.strict && s.ParentsFiltered("aside").Length() > 0 {
				return
			}
			hint := strings.ToLower(s.AttrOr("class", "") + " " + s.AttrOr("alt", "") + " " + s.AttrOr("id", ""))
			skip := []string{"logo", "icon", "sprite", "emoji", "badge", "spinner", "loader"}
			if scope.strict {
				skip = append(skip, "avatar", "gravatar", "author")
			}
			for _, word := range skip {
				if strings.Contains(hint, word) {
					return
				}
			}
			if placeholderNameRe.MatchString(imageName(src)) {
				return
			}
			w, h := declaredSize(s)
			if w == 0 && h == 0 {
				if m := sizeInNameRe.FindStringSubmatch(src); m != nil {
					w, _ = strconv.Atoi(m[1])
					h, _ = strconv.Atoi(m[2])
				}
			}
			if (w > 0 && w < minPageImage) || (h > 0 && h < minPageImage) {
				return // thumbnails and icons
			}
			if extType(p.abs(src)) == "svg" && (w == 0 || h == 0) {
				return // a drawing of no declared size is an icon drawn to fit its line
			}
			seen[src] = true
			out = append(out, pageImage{url: src, width: w, height: h, source: scope.source})
		})
	}
	return out
}

// imgSource is the address an <img> shows: the attribute lazy loaders keep
// the real address in (their src is a placeholder until the image scrolls
// into view), else src, else the largest srcset entry.
func imgSource(s *goquery.Selection) string {
	for _, attr := range []string{"data-src", "data-lazy-src", "data-original", "data-srcset", "data-lazy-srcset", "src", "srcset"} {
		v := strings.TrimSpace(s.AttrOr(attr, ""))
		if v == "" || strings.HasPrefix(strings.ToLower(v), "data:") {
			continue
		}
		if strings.HasSuffix(attr, "srcset") {
			v = largestSrcset(v)
		}
		if v != "" {
			return v
		}
	}
	return ""
}

// minPageImage is the smallest declared width or height, in CSS pixels, of
// an image taken from the page's body: below it are icons, avatars and
// thumbnails, not pictures of the page.
const minPageImage = 100

// placeholderNameRe matches the file names of images that stand for none:
// logos, icons, sprites, avatars, and the placeholders lazy loaders and
// templates show (missing, default, blank, spacer, loading), the latter as
// whole words of the name.
var placeholderNameRe = regexp.MustCompile(`(?i)logo|icon|sprite|avatar|placeholder|` +
	`(?:^|[^a-z])(?:missing|default|blank|spacer|loading|loader|lazyload|transparent|no[-_]?image|no[-_]?photo|dummy|pixel|empty)(?:[^a-z]|$)`)

// imageName is the file name of an image URL, without its query.
func imageName(src string) string {
	if u, err := url.Parse(src); err == nil {
		return path.Base(u.Path)
	}
	return path.Base(src)
}

// declaredSize is the width and height an <img> declares, in its
// attributes or its inline style, in CSS pixels; 0 where it declares none
// (or a relative size).
func declaredSize(s *goquery.Selection) (w, h int) {
	px := func(v string) int {
		v = strings.TrimSpace(strings.ToLower(v))
		if n := atoiPrefix(v); n > 0 && (strings.TrimLeft(v, "0123456789.") == "" || strings.HasSuffix(v, "px")) {
			return n
		}
		return 0
	}
	w, h = px(s.AttrOr("width", "")), px(s.AttrOr("height", ""))
	for _, decl := range strings.Split(s.AttrOr("style", ""), ";") {
		k, v, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(strings.ToLower(k)) {
		case "width", "max-width":
			if n := px(v); n > 0 && (w == 0 || n < w) {
				w = n
			}
		case "height", "max-height":
			if n := px(v); n > 0 && (h == 0 || n < h) {
				h = n
			}
		}
	}
	return w, h
}

// largestSrcset picks the widest (or densest) entry of a srcset.
func largestSrcset(srcset string) string {
	best, bestW := "", -1.0
	for _, entry := range strings.Split(srcset, ",") {
		f := strings.Fields(entry)
		if len(f) == 0 {
			continue
		}
		w := 1.0
		if len(f) > 1 {
			d := strings.TrimRight(f[1], "wxWX")
			if n, err := strconv.ParseFloat(d, 64); err == nil {
				w = n
			}
		}
		if w > bestW {
			best, bestW = f[0], w
		}
	}
	return best
}

var (
	// trackingDomains serve analytics beacons, never pictures of a page.
	trackingDomains = []string{"doubleclick.net", "google-analytics.com", "googletagmanager.com",
		"scorecardresearch.com", "quantserve.com", "bat.bing.com", "stats.wp.com", "pixel.wp.com",
		"analytics.twitter.com", "t.co", "ads-twitter.com", "facebook.net"}
	trackingHostPrefixes = []string{"pixel.", "beacon.", "analytics.", "stats.", "tracking.", "track.", "metrics."}
	trackingNameRe       = regexp.MustCompile(`(?i)^(pixel|spacer|blank|transparent|clear|1x1|px|trans|tracker|tracking|beacon|spacer\d*|dot|empty)\.(gif|png|jpe?g|webp)$`)
	mediaExtRe           = regexp.MustCompile(`(?i)\.(mp4|m4v|webm|mov|avi|mkv|m3u8|mpd|mp3|m4a|aac|ogg|oga|wav|flac|opus)$`)
)

// badImage reports URLs and sizes that are no picture of the page: tracking
// pixels and beacons, emoji, 1×1 (or 2×2) raster images, audio and video
// files.
func badImage(raw string, w, h int) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return true
	}
	// Declared dimensions of an SVG say nothing: it scales (and SEO plugins
	// declare 1×1 for them).
	if Negligible(w, h) && typeFromExt(path.Ext(u.Path)) != "svg" {
		return true
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range trackingDomains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	for _, pre := range trackingHostPrefixes {
		if strings.HasPrefix(host, pre) {
			return true
		}
	}
	lowerPath := strings.ToLower(u.Path)
	if (host == "facebook.com" || host == "www.facebook.com") && strings.HasPrefix(lowerPath, "/tr") {
		return true
	}
	if trackingNameRe.MatchString(path.Base(u.Path)) || mediaExtRe.MatchString(u.Path) {
		return true
	}
	return strings.Contains(lowerPath, "/emoji/") || strings.Contains(lowerPath, "twemoji") ||
		strings.Contains(lowerPath, "/emojis/") || strings.Contains(lowerPath, "/1x1.")
}

// decodeUnreserved decodes the percent-escapes of characters that never
// need one (letters, digits, "-", ".", "_", "~"), as RFC 3986 normalises
// URLs: /a%2Db.jpg and /a-b.jpg are one image. Escapes of reserved
// characters (%2F, %3A) mean something else and stay.
func decodeUnreserved(u string) string {
	if !strings.Contains(u, "%") {
		return u
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		if u[i] == '%' && i+2 < len(u) {
			if v, err := strconv.ParseUint(u[i+1:i+3], 16, 8); err == nil && isUnreserved(byte(v)) {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(u[i])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}
