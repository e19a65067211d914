package meta

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
)

// fingerprintsJSON is the fingerprint set: which headers, cookies,
// scripts, stylesheets, meta tags and DOM markers give each technology
// away. technologies.md beside it says where its patterns come from and
// how to add one.
//
//go:embed technologies.json
var fingerprintsJSON []byte

// Technology is one technology a page is built with, in Microlink's
// `insights.technologies` shape.
type Technology struct {
	Name string `json:"name"`
	// Confidence is how sure the detection is, 0 to 100: the sum of the
	// matched patterns' weights, at most 100.
	Confidence int    `json:"confidence"`
	Version    string `json:"version,omitempty"`
	// URL is the technology's website.
	URL        string   `json:"url,omitempty"`
	Categories []string `json:"categories"`
}

// PageSignals is what a page gives away about how it is built, all of it
// read while the page was fetched: no second request is made for it.
type PageSignals struct {
	Doc *goquery.Document
	URL *url.URL
	// Headers are the main document's response headers, lower-case names.
	Headers map[string]string
	// Cookies are the names of the cookies the main document's response
	// set (their values are never kept).
	Cookies []string
}

// fingerprint is one technology's entry in technologies.json.
type fingerprint struct {
	Name       string            `json:"name"`
	Categories []string          `json:"categories"`
	Website    string            `json:"website"`
	Headers    map[string]string `json:"headers"`   // header name → pattern of its value
	Cookies    map[string]string `json:"cookies"`   // cookie name (ending in * for a prefix) → "", or only tags such as `\;confidence:50`
	ScriptSrc  []string          `json:"scriptSrc"` // patterns of <script src>
	LinkHref   []string          `json:"linkHref"`  // patterns of <link rel=stylesheet|preload href>
	Meta       map[string]string `json:"meta"`      // meta name → pattern of its content
	DOM        []string          `json:"dom"`       // CSS selectors whose match gives it away
	URL        string            `json:"url"`       // pattern of the page's own URL
	Implies    []string          `json:"implies"`   // technologies it runs on
}

// pattern is one compiled pattern: a regular expression, its weight, and
// whether its first group is the version. Patterns are written as in
// Wappalyzer's format: `regexp\;confidence:50\;version:\1`.
type pattern struct {
	re         *regexp.Regexp
	confidence int
	version    bool
}

type compiledFingerprint struct {
	fingerprint
	headers   map[string]pattern
	cookies   map[string]pattern // by name; a name ending in * is a prefix; the pattern gives only its weight
	scriptSrc []pattern
	linkHref  []pattern
	meta      map[string]pattern
	dom       []cascadia.Selector
	url       *pattern
}

// fingerprints is the compiled set; a pattern that does not compile fails
// the build's tests, not a request (see TestFingerprintsCompile).
var fingerprints, fingerprintsErr = compileFingerprints(fingerprintsJSON)

func compileFingerprints(data []byte) ([]compiledFingerprint, error) {
	var set struct {
		Technologies []fingerprint `json:"technologies"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	out := make([]compiledFingerprint, 0, len(set.Technologies))
	for _, f := range set.Technologies {
		c := compiledFingerprint{fingerprint: f, headers: map[string]pattern{}, cookies: map[string]pattern{}, meta: map[string]pattern{}}
		var err error
		compile := func(s string) pattern {
			p, e := compilePattern(s)
			if e != nil && err == nil {
				err = fmt.Errorf("%s: %w", f.Name, e)
			}
			return p
		}
		for k, v := range f.Headers {
			c.headers[strings.ToLower(k)] = compile(v)
		}
		for k, v := range f.Cookies {
			c.cookies[k] = compile(v)
		}
		for _, s := range f.ScriptSrc {
			c.scriptSrc = append(c.scriptSrc, compile(s))
		}
		for _, s := range f.LinkHref {
			c.linkHref = append(c.linkHref, compile(s))
		}
		for k, v := range f.Meta {
			c.meta[strings.ToLower(k)] = compile(v)
		}
		for _, s := range f.DOM {
			sel, e := cascadia.Compile(s)
			if e != nil && err == nil {
				err = fmt.Errorf("%s: selector %q: %w", f.Name, s, e)
			}
			c.dom = append(c.dom, sel)
		}
		if f.URL != "" {
			p := compile(f.URL)
			c.url = &p
		}
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func compilePattern(s string) (pattern, error) {
	parts := strings.Split(s, `\;`)
	p := pattern{confidence: 100}
	for _, tag := range parts[1:] {
		k, v, _ := strings.Cut(tag, ":")
		switch k {
		case "confidence":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 100 {
				return p, fmt.Errorf("pattern %q: confidence must be 0 to 100", s)
			}
			p.confidence = n
		case "version":
			p.version = true
		default:
			return p, fmt.Errorf("pattern %q: unknown tag %q", s, k)
		}
	}
	re, err := regexp.Compile("(?i)" + parts[0])
	if err != nil {
		return p, err
	}
	p.re = re
	return p, nil
}

// match reports whether v matches, and the version it names.
func (p pattern) match(v string) (bool, string) {
	if !p.version {
		return p.re.MatchString(v), ""
	}
	if !p.re.MatchString(v) {
		return false, "" // the common case, without the cost of groups
	}
	m := p.re.FindStringSubmatch(v)
	if m == nil {
		return false, ""
	}
	if p.version && len(m) > 1 {
		return true, m[1]
	}
	return true, ""
}

// Bounds of what detection reads from one page: a page of ten thousand
// scripts is read for its first ones.
const (
	maxSignalScripts = 200
	maxSignalLinks   = 200
	maxSignalValue   = 2048
)

// DetectTechnologies matches the page's signals against the fingerprint
// set and returns what it is built with, most confident first, then by
// name; technologies that detected ones imply are added. It never
// panics and reads nothing but the signals.
func DetectTechnologies(s PageSignals) (out []Technology) {
	if fingerprintsErr != nil || s.URL == nil {
		return nil
	}
	guard("technologies", s.URL, func() { out = detect(s) })
	return out
}

func detect(s PageSignals) []Technology {
	var scripts, links []string
	metas := map[string][]string{}
	if s.Doc != nil && s.Doc.Selection != nil {
		s.Doc.Find("script[src]").EachWithBreak(func(i int, e *goquery.Selection) bool {
			scripts = append(scripts, clipSignal(e.AttrOr("src", "")))
			return i < maxSignalScripts
		})
		s.Doc.Find("link[href]").EachWithBreak(func(i int, e *goquery.Selection) bool {
			links = append(links, clipSignal(e.AttrOr("href", "")))
			return i < maxSignalLinks
		})
		s.Doc.Find("meta[name][content]").Each(func(_ int, e *goquery.Selection) {
			k := strings.ToLower(e.AttrOr("name", ""))
			metas[k] = append(metas[k], clipSignal(e.AttrOr("content", "")))
		})
	}
	found := map[string]*Technology{}
	hit := func(f *compiledFingerprint, p pattern, version string) {
		t, ok := found[f.Name]
		if !ok {
			t = &Technology{Name: f.Name, URL: f.Website, Categories: slices.Clip(f.Categories)}
			found[f.Name] = t
		}
		t.Confidence = min(100, t.Confidence+p.confidence)
		if version != "" && len(version) > len(t.Version) && len(version) <= 32 {
			t.Version = version
		}
	}
	try := func(f *compiledFingerprint, p pattern, values ...string) {
		for _, v := range values {
			if ok, version := p.match(v); ok {
				hit(f, p, version)
				return
			}
		}
	}
	for i := range fingerprints {
		f := &fingerprints[i]
		for name, p := range f.headers {
			if v, ok := s.Headers[name]; ok {
				try(f, p, clipSignal(v))
			}
		}
		for name, p := range f.cookies {
			if slices.ContainsFunc(s.Cookies, func(c string) bool {
				prefix, wild := strings.CutSuffix(name, "*")
				return c == name || wild && strings.HasPrefix(c, prefix)
			}) {
				hit(f, p, "")
			}
		}
		for _, p := range f.scriptSrc {
			try(f, p, scripts...)
		}
		for _, p := range f.linkHref {
			try(f, p, links...)
		}
		for name, p := range f.meta {
			try(f, p, metas[name]...)
		}
		if s.Doc != nil && s.Doc.Selection != nil {
			for _, sel := range f.dom {
				if s.Doc.FindMatcher(sel).Length() > 0 {
					hit(f, pattern{confidence: 100}, "")
					break
				}
			}
		}
		if f.url != nil {
			try(f, *f.url, s.URL.String())
		}
	}
	// Implied technologies: a WordPress site runs PHP. Twice, for an
	// implied one that implies another.
	for range 2 {
		for i := range fingerprints {
			f := &fingerprints[i]
			t, ok := found[f.Name]
			if !ok {
				continue
			}
			for _, name := range f.Implies {
				if _, ok := found[name]; ok {
					continue
				}
				if j := slices.IndexFunc(fingerprints, func(g compiledFingerprint) bool { return g.Name == name }); j >= 0 {
					g := fingerprints[j]
					found[name] = &Technology{Name: name, Confidence: t.Confidence, URL: g.Website, Categories: slices.Clip(g.Categories)}
				}
			}
		}
	}
	out := make([]Technology, 0, len(found))
	for _, t := range found {
		if t.Categories == nil {
			t.Categories = []string{}
		}
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b Technology) int {
		if a.Confidence != b.Confidence {
			return b.Confidence - a.Confidence
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func clipSignal(s string) string {
	if len(s) > maxSignalValue {
		return s[:maxSignalValue]
	}
	return s
}
