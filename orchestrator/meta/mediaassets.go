package meta

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
)

// MediaCandidate is a video or audio file a page declares for its `video`
// or `audio` field.
type MediaCandidate struct {
	URL string
	// Type is the short type from the declared media type or the URL's
	// extension ("mp4", "webm", "mp3"), "" when neither says.
	Type string
	// Width, Height (pixels) and Duration (seconds) are what the markup
	// declares, 0 when it declares nothing.
	Width, Height int
	Duration      float64
	// Source names the rule that found it (og:video, json-ld:VideoObject,
	// video:source, ...).
	Source string
}

// maxMediaCandidates bounds the candidates of one field: a page of a
// thousand <video> tags offers the first few.
const maxMediaCandidates = 8

// Media returns the page's video and audio candidates, best first: the
// Open Graph declarations (the secure URL first), Twitter's player
// stream, JSON-LD VideoObject and AudioObject contentUrl, then the page's
// own <video> and <audio> sources. A declaration whose type says it is a
// player page (text/html, Flash) rather than a file is left out.
func Media(doc *goquery.Document, pageURL *url.URL) (video, audio []MediaCandidate) {
	if doc == nil || doc.Selection == nil || pageURL == nil {
		return nil, nil
	}
	guard("media", pageURL, func() {
		p := newPage(doc, pageURL, time.Now())
		video, audio = p.media("video"), p.media("audio")
	})
	return video, audio
}

// media is the candidates of one kind, "video" or "audio".
func (p *page) media(kind string) []MediaCandidate {
	var out []MediaCandidate
	seen := map[string]bool{}
	add := func(c MediaCandidate, declared string) {
		if len(out) >= maxMediaCandidates {
			return
		}
		if declared != "" {
			top, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(declared)), "/")
			if top != kind && top != "application" || strings.Contains(declared, "flash") || strings.Contains(declared, "html") {
				return // a player page or another kind of file
			}
			if t := TypeFromContentType(declared); t != "" {
				c.Type = t
			}
		}
		c.URL = decodeUnreserved(p.abs(c.URL))
		if c.URL == "" || seen[c.URL] {
			return
		}
		seen[c.URL] = true
		if c.Type == "" {
			c.Type = MediaTypeOfURL(c.URL)
		}
		out = append(out, c)
	}

	for _, g := range p.ogMedia(kind) {
		c := MediaCandidate{Width: g.width, Height: g.height, Duration: g.duration}
		if g.secure != "" {
			c.URL, c.Source = g.secure, "og:"+kind+":secure_url"
			add(c, g.typ)
		}
		c.URL, c.Source = g.url, "og:"+kind
		add(c, g.typ)
	}
	if kind == "video" {
		w, h := atoiPrefix(p.meta("twitter:player:width")), atoiPrefix(p.meta("twitter:player:height"))
		for _, v := range p.metaAll("twitter:player:stream") {
			add(MediaCandidate{URL: v, Width: w, Height: h, Source: "twitter:player:stream"},
				p.meta("twitter:player:stream:content_type"))
		}
	}
	ldType := map[string]string{"video": "videoobject", "audio": "audioobject"}[kind]
	for _, n := range p.ld.mediaNodes(ldType) {
		u := p.ld.ldText(n["contentUrl"])
		if u == "" {
			u = p.ld.ldText(n["contentURL"])
		}
		add(MediaCandidate{URL: u, Width: ldInt(n["width"]), Height: ldInt(n["height"]),
			Duration: isoDuration(p.ld.ldText(n["duration"])), Source: "json-ld:" + ldType}, p.ld.ldText(n["encodingFormat"]))
	}
	p.doc.Find(kind).Each(func(_ int, s *goquery.Selection) {
		c := MediaCandidate{Width: atoiPrefix(s.AttrOr("width", "")), Height: atoiPrefix(s.AttrOr("height", "")), Source: kind + ":src"}
		if src := s.AttrOr("src", ""); src != "" {
			c.URL = src
			add(c, "")
		}
		s.Find("source[src]").Each(func(_ int, src *goquery.Selection) {
			c.URL, c.Source = src.AttrOr("src", ""), kind+":source"
			add(c, src.AttrOr("type", ""))
		})
	})
	return out
}

// mediaNodes is the JSON-LD items of type t (lower case), top-level ones
// and those a top-level item names under `video`, `audio` or
// `associatedMedia`.
func (g *ldGraph) mediaNodes(t string) []ldNode {
	var out []ldNode
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		if depth > 2 || len(out) >= maxMediaCandidates {
			return
		}
		switch n := g.resolve(v).(type) {
		case ldNode:
			for _, typ := range ldTypes(n) {
				if typ == t {
					out = append(out, n)
					break
				}
			}
			for _, k := range []string{"video", "audio", "associatedMedia"} {
				if c, ok := n[k]; ok {
					visit(c, depth+1)
				}
			}
		case []any:
			for _, e := range n {
				visit(e, depth+1)
			}
		}
	}
	for _, n := range g.nodes {
		visit(n, 0)
	}
	return out
}

type ogMediaTag struct {
	url, secure, typ string
	width, height    int
	duration         float64
}

// ogMedia groups og:video (or og:audio) tags with the structured
// properties that follow each of them, as ogImages does for images.
func (p *page) ogMedia(kind string) []ogMediaTag {
	var out []ogMediaTag
	prefix := "og:" + kind
	for _, m := range p.metas {
		v := strings.TrimSpace(m.content)
		switch m.key {
		case prefix, prefix + ":url":
			if len(out) > 0 && out[len(out)-1].url == "" {
				out[len(out)-1].url = v
			} else {
				out = append(out, ogMediaTag{url: v})
			}
		case prefix + ":secure_url":
			if len(out) == 0 || out[len(out)-1].secure != "" {
				out = append(out, ogMediaTag{})
			}
			out[len(out)-1].secure = v
		case prefix + ":width", prefix + ":height", prefix + ":type", prefix + ":duration", kind + ":duration":
			if len(out) == 0 {
				continue
			}
			last := &out[len(out)-1]
			switch m.key {
			case prefix + ":width":
				last.width = atoiPrefix(v)
			case prefix + ":height":
				last.height = atoiPrefix(v)
			case prefix + ":type":
				last.typ = v
			default:
				last.duration = seconds(v)
			}
		}
	}
	return out
}

// isoDurationPattern is an ISO 8601 duration of days, hours, minutes and
// seconds, as schema.org's `duration` is written: P1DT2H3M4.5S, PT90S.
var isoDurationPattern = regexp.MustCompile(`^P(?:(\d{1,4})D)?(?:T(?:(\d{1,5})H)?(?:(\d{1,6})M)?(?:(\d{1,7}(?:\.\d{1,6})?)S)?)?$`)

// isoDuration reads an ISO 8601 duration in seconds (a plain number of
// seconds too); 0 when it is not one.
func isoDuration(s string) float64 {
	s = strings.ToUpper(strings.TrimSpace(s))
	m := isoDurationPattern.FindStringSubmatch(s)
	if m == nil || s == "P" || s == "PT" {
		return seconds(s)
	}
	var total float64
	for i, unit := range []float64{86400, 3600, 60, 1} {
		if m[i+1] != "" {
			v, _ := strconv.ParseFloat(m[i+1], 64)
			total += v * unit
		}
	}
	return total
}

// seconds reads a plain, positive number of seconds; 0 when it is not one.
func seconds(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 || v > 1e7 {
		return 0
	}
	return v
}
