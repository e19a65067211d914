package meta

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Sources of logo candidates, as Candidate.Source reports them.
const (
	sourceOGLogo            = "og:logo"
	sourceMicrodataLogo     = "microdata:logo"
	sourceLDLogo            = "json-ld:logo"
	sourceLDWideLogo        = "json-ld:logo-wide"
	sourceMicrodataWideLogo = "microdata:logo-wide"
	sourceManifest          = "manifest"
	sourceFavicon           = "favicon.ico"
)

// logos returns the candidates for the publisher's logo, best first:
//  1. logos the page declares as such: og:logo; microdata logo (img, meta,
//     link, or an ImageObject's url) unless declared wide; JSON-LD publisher
//     or organisation logos declared square. JSON-LD logos exist mostly for
//     Google's article results, whose guidelines ask for a wide wordmark
//     (600×60): without square dimensions they are no brand icon;
//  2. the site's icons — <link rel=icon|shortcut icon|apple-touch-icon|
//     apple-touch-icon-precomposed|fluid-icon|mask-icon>,
//     msapplication-TileImage — largest first (see iconRank), merged later
//     with the web app manifest's icons (see MergeLogos);
//  3. wide logos (JSON-LD, microdata);
//  4. <origin>/favicon.ico, the address browsers try when the page names none.
func (p *page) logos() []Candidate {
	var explicit, wide candidates
	add := func(c *candidates, raw string, w, h int, source string) {
		if u := p.abs(raw); u != "" && !badImage(u, w, h) {
			c.add(Candidate{URL: u, Width: w, Height: h, Source: source})
		}
	}
	for _, v := range p.metaAll("og:logo") {
		add(&explicit, v, 0, 0, sourceOGLogo)
	}
	p.doc.Find("[itemprop]").Each(func(_ int, s *goquery.Selection) {
		if !HasToken(s.AttrOr("itemprop", ""), "logo") {
			return
		}
		if _, scoped := s.Attr("itemscope"); scoped {
			s.Find("[itemprop~=url], [itemprop~=contentUrl], [itemprop~=contentURL], img").EachWithBreak(func(_ int, e *goquery.Selection) bool {
				v := itemValue(e)
				if goquery.NodeName(e) == "img" {
					v = imgSource(e)
				}
				w, h := microdataSize(s, e)
				if w > 0 && h > 0 && w != h {
					add(&wide, v, w, h, sourceMicrodataWideLogo)
				} else {
					add(&explicit, v, w, h, sourceMicrodataLogo)
				}
				return p.abs(v) == ""
			})
			return
		}
		v := itemValue(s)
		if goquery.NodeName(s) == "img" {
			v = imgSource(s)
		}
		add(&explicit, v, atoiPrefix(s.AttrOr("width", "")), atoiPrefix(s.AttrOr("height", "")), sourceMicrodataLogo)
	})
	for _, img := range p.ldLogos() {
		if img.width > 0 && img.width == img.height {
			add(&explicit, img.url, img.width, img.height, sourceLDLogo)
		} else {
			add(&wide, img.url, img.width, img.height, sourceLDWideLogo)
		}
	}
	var icons []Candidate
	for _, ic := range p.icons() {
		if u := p.abs(ic.URL); u != "" && !badImage(u, ic.Width, ic.Height) {
			ic.URL = u
			if ic.Type == "" {
				ic.Type = extType(u)
			}
			icons = append(icons, ic)
		}
	}
	out := append(explicit.list, rankIcons(icons)...)
	out = append(out, wide.list...)
	return endWith(out, faviconFallback(p.url))
}

// endWith puts last at the end of list and every other URL once. When the
// page itself declared last's URL, the declared candidate moves to the end
// and keeps its source: only an undeclared guess says sourceFavicon.
func endWith(list []Candidate, last Candidate) []Candidate {
	out := make([]Candidate, 0, len(list)+1)
	for _, c := range dedupe(list) {
		if c.URL == last.URL {
			last = c
			continue
		}
		out = append(out, c)
	}
	return append(out, last)
}

// microdataSize reads the dimensions of a microdata ImageObject: its width and
// height properties, else the attributes of the element holding the URL.
func microdataSize(item, e *goquery.Selection) (int, int) {
	w, h := 0, 0
	item.Find("[itemprop]").Each(func(_ int, c *goquery.Selection) {
		switch {
		case HasToken(c.AttrOr("itemprop", ""), "width"):
			w = atoiPrefix(strings.TrimSpace(itemValue(c)))
		case HasToken(c.AttrOr("itemprop", ""), "height"):
			h = atoiPrefix(strings.TrimSpace(itemValue(c)))
		}
	})
	if w == 0 && h == 0 {
		w, h = atoiPrefix(e.AttrOr("width", "")), atoiPrefix(e.AttrOr("height", ""))
	}
	return w, h
}

// ldLogos returns the logos JSON-LD declares for the publisher of the main
// items, then for any organisation, website or brand of the page.
func (p *page) ldLogos() []ldImage {
	var out []ldImage
	for _, n := range p.ld.nodesUpTo(kindPage) {
		for _, prop := range []string{"publisher", "sourceOrganization", "brand"} {
			if org, ok := p.ld.resolve(n[prop]).(ldNode); ok {
				out = append(out, p.ld.ldImages(org["logo"], 0)...)
			}
		}
	}
	for _, n := range p.ld.nodes {
		if k := ldKind(n); k == kindParty || k == kindSite {
			out = append(out, p.ld.ldImages(n["logo"], 0)...)
			if org, ok := p.ld.resolve(n["publisher"]).(ldNode); ok {
				out = append(out, p.ld.ldImages(org["logo"], 0)...)
			}
		}
	}
	return out
}

// icons returns the icons the page links to, in document order.
func (p *page) icons() []Candidate {
	var out []Candidate
	p.doc.Find("link[rel][href]").Each(func(_ int, s *goquery.Selection) {
		rel := strings.ToLower(s.AttrOr("rel", ""))
		kind := ""
		switch {
		case HasToken(rel, "apple-touch-icon"), HasToken(rel, "apple-touch-icon-precomposed"):
			kind = "apple-touch-icon"
		case HasToken(rel, "mask-icon"):
			kind = "mask-icon"
		case HasToken(rel, "fluid-icon"):
			kind = "fluid-icon"
		case HasToken(rel, "icon"):
			kind = "icon"
		default:
			return
		}
		w, h := parseSizes(s.AttrOr("sizes", ""))
		typ := extType(p.abs(s.AttrOr("href", "")))
		if typ == "" {
			typ = imageTypeOnly(TypeFromContentType(s.AttrOr("type", "")))
		}
		out = append(out, Candidate{URL: s.AttrOr("href", ""), Type: typ, Width: w, Height: h, Source: "link:" + kind})
	})
	for _, v := range p.metaAll("msapplication-tileimage") {
		out = append(out, Candidate{URL: v, Source: "meta:msapplication-TileImage"})
	}
	return out
}

var sizeInNameRe = regexp.MustCompile(`(?:^|[^0-9])(\d{2,4})[x×X](\d{2,4})(?:[^0-9]|$)`)

// parseSizes reads the largest entry of a sizes attribute ("16x16 32x32",
// "144×144"); 0, 0 for "any" or nothing.
func parseSizes(s string) (int, int) {
	bw, bh := 0, 0
	for _, f := range strings.Fields(strings.ToLower(s)) {
		a, b, ok := strings.Cut(strings.ReplaceAll(f, "×", "x"), "x")
		if !ok {
			continue
		}
		w, err1 := strconv.Atoi(a)
		h, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && w*h > bw*bh && w <= 10000 && h <= 10000 {
			bw, bh = w, h
		}
	}
	return bw, bh
}

// iconRank orders icons: the larger the better, an icon's size being what
// its markup declares, else what its file name says (favicon-192x192.png),
// else what its kind usually measures — an apple-touch-icon at least 57 px
// (Apple's smallest), a fluid-icon 512 px, an SVG scales but is drawn for
// favicon sizes (48), a mask-icon is a one-colour silhouette (always 24), a .ico or
// unsized PNG is a favicon (16), and a Windows tile of unknown size is often
// a white glyph made for a coloured tile (0). Ties go to the kind more likely
// to be a full-colour square: apple-touch-icon, PNG, fluid-icon, SVG, others.
func iconRank(c Candidate) (size, kind int) {
	size = max(c.Width, c.Height)
	if size == 0 {
		if u, err := url.Parse(c.URL); err == nil {
			if m := sizeInNameRe.FindStringSubmatch(u.Path); m != nil {
				w, _ := strconv.Atoi(m[1])
				h, _ := strconv.Atoi(m[2])
				size = max(w, h)
			}
		}
	}
	typ := c.Type
	if typ == "" {
		typ = extType(c.URL)
	}
	switch {
	case c.Source == "link:apple-touch-icon":
		kind = 0
		if size == 0 {
			size = 57
		}
	case c.Source == "link:mask-icon":
		kind = 6
		size = 24 // whatever its size, a silhouette
	case c.Source == "link:fluid-icon":
		kind = 2
		if size == 0 {
			size = 512
		}
	case c.Source == "meta:msapplication-TileImage":
		kind = 7
	case typ == "png":
		kind = 1
		if size == 0 {
			size = 16
		}
	case typ == "svg":
		kind = 3
		if size == 0 {
			size = 48
		}
	case typ == "ico":
		kind = 5
		if size == 0 {
			size = 16
		}
	default:
		kind = 4
		if size == 0 {
			size = 16
		}
	}
	return size, kind
}

// rankIcons sorts icons best first (see iconRank), keeping document order
// among equals.
func rankIcons(icons []Candidate) []Candidate {
	out := slices.Clone(icons)
	slices.SortStableFunc(out, func(a, b Candidate) int {
		as, ak := iconRank(a)
		bs, bk := iconRank(b)
		if as != bs {
			return bs - as
		}
		return ak - bk
	})
	return out
}

func isIconSource(source string) bool {
	return strings.HasPrefix(source, "link:") || strings.HasPrefix(source, "meta:") || source == sourceManifest
}

// MergeLogos adds icons found later — those of the web app manifest (see
// IconsFromManifest) — to a Result's Logo list: declared logos stay first,
// all icons are ranked together, and the list's last resort (the origin's
// /favicon.ico) stays last.
func MergeLogos(logo []Candidate, extra []Candidate) []Candidate {
	var last *Candidate
	if n := len(logo); n > 0 {
		if u, err := url.Parse(logo[n-1].URL); err == nil && u.Path == "/favicon.ico" && u.RawQuery == "" {
			last = &logo[n-1]
			logo = logo[:n-1]
		}
	}
	var explicit, icons, rest []Candidate
	for _, c := range append(slices.Clone(logo), extra...) {
		switch {
		case isIconSource(c.Source):
			icons = append(icons, c)
		case c.Source == sourceLDWideLogo || c.Source == sourceMicrodataWideLogo:
			rest = append(rest, c)
		default:
			explicit = append(explicit, c)
		}
	}
	out := append(explicit, rankIcons(icons)...)
	out = append(out, rest...)
	if last == nil {
		return dedupe(out)
	}
	return endWith(out, *last)
}

// dedupe keeps the first occurrence of every URL.
func dedupe(list []Candidate) []Candidate {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, c := range list {
		if c.URL == "" || seen[c.URL] {
			continue
		}
		seen[c.URL] = true
		out = append(out, c)
	}
	return out
}

// faviconFallback is <origin>/favicon.ico, which browsers request when a page
// names no icon.
func faviconFallback(pageURL *url.URL) Candidate {
	return Candidate{URL: origin(pageURL) + "/favicon.ico", Type: "ico", Source: sourceFavicon}
}

// ManifestURL returns the absolute URL of the page's web app manifest
// (<link rel=manifest>), or "" when it has none. The caller fetches it and
// passes the body to IconsFromManifest.
func ManifestURL(doc *goquery.Document, pageURL *url.URL) string {
	if doc == nil || doc.Selection == nil || pageURL == nil {
		return ""
	}
	base := documentBase(doc, pageURL)
	href := ""
	doc.Find("link[rel][href]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if HasToken(s.AttrOr("rel", ""), "manifest") {
			href = resolveURL(base, s.AttrOr("href", ""))
		}
		return href == ""
	})
	return href
}

// IconsFromManifest returns the icons a web app manifest lists, with URLs
// resolved against the manifest's own URL, best first. Monochrome-only icons
// (silhouettes for system UIs) are left out. A body that is not a manifest
// yields nothing.
func IconsFromManifest(body []byte, manifestURL *url.URL) []Candidate {
	if manifestURL == nil {
		return nil
	}
	var m struct {
		Icons []struct {
			Src     string `json:"src"`
			Sizes   string `json:"sizes"`
			Type    string `json:"type"`
			Purpose string `json:"purpose"`
		} `json:"icons"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		if err := json.Unmarshal(repairJSON(string(body)), &m); err != nil {
			return nil
		}
	}
	var out []Candidate
	for _, ic := range m.Icons {
		purposes := strings.Fields(strings.ToLower(ic.Purpose))
		if len(purposes) > 0 && !slices.Contains(purposes, "any") && !slices.Contains(purposes, "maskable") {
			continue
		}
		u := resolveURL(manifestURL, ic.Src)
		if u == "" {
			continue
		}
		w, h := parseSizes(ic.Sizes)
		typ := extType(u)
		if typ == "" {
			typ = imageTypeOnly(TypeFromContentType(ic.Type))
		}
		out = append(out, Candidate{URL: u, Type: typ, Width: w, Height: h, Source: sourceManifest})
	}
	return dedupe(rankIcons(out))
}
