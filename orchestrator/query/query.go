package orchestrator

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/http/httpguts"
)

// Request is a parsed, validated API request (API.md "Request").
type Request struct {
	Target    *url.URL      // normalised by ParseTarget; fragment kept
	Fields    []string      // metadata fields to produce, in AllFields order; nil when MetaOff
	MetaOff   bool          // meta=false, or every field switched off
	PDF       *PDFOptions   // nil: no PDF
	MediaType string        // "screen" or "print"
	Embed     string        // "", "pdf.url", "image.url", "logo.url" or "screenshot.url"
	Headers   http.Header   // headers.<name> forwarded to the target, canonical names; nil when none
	Timeout   time.Duration // budget of the whole request
	Force     bool          // skip the cache
	TTL       time.Duration // how long the answer stays cached
	Ping      bool          // fetch image and logo to describe them
	Prerender string        // "auto" (plain fetch first), "true" (always a browser) or "false" (never)

	Screenshot *ScreenshotOptions // nil: no screenshot
	Controls   Controls           // rendering controls
	Data       []DataRule         // custom `data.*` rules
	Filter     []string           // `filter`: the only paths to return; nil: all
	StaleTTL   time.Duration      // `staleTtl`: how long past its ttl an entry may be served while it refreshes; 0: never
}

// AllFields are the metadata fields in the order of the envelope.
var AllFields = []string{"title", "description", "lang", "author", "publisher", "image", "date", "url", "logo"}

// PDFOptions are the pdf.* parameters, resolved to inches.
type PDFOptions struct {
	Format          string  // canonical name such as "A4" or "Letter"; "" when pdf.width or pdf.height is given
	Width, Height   float64 // paper size in inches, as the format or pdf.width/height give it (before landscape)
	Margin          Margins // inches
	Scale           float64 // 0.1 to 2
	Landscape       bool
	PageRanges      string // normalised, such as "1-5,8,11-13"; "" prints every page
	PrintBackground bool
}

// Margins are page margins in inches.
type Margins struct{ Top, Right, Bottom, Left float64 }

// Limits are the bounds the server sets on requests. Zero fields take the
// values of DefaultLimits.
type Limits struct {
	DefaultTimeout time.Duration // timeout when the caller gives none
	MaxTimeout     time.Duration // largest timeout a caller may ask for
	MaxURLLength   int           // longest target, in bytes, as given
}

// DefaultLimits are the limits of API.md: a 28s default timeout, 60s at
// most, targets up to 8192 bytes.
func DefaultLimits() Limits {
	return Limits{DefaultTimeout: 28 * time.Second, MaxTimeout: 60 * time.Second, MaxURLLength: 8192}
}

// Defaults and bounds of the parameters (API.md "Request").
const (
	defaultTTL       = 24 * time.Hour
	minTTL           = time.Minute
	maxTTL           = 31 * 24 * time.Hour
	minTimeout       = time.Second
	defaultPDFScale  = 0.6
	minPDFScale      = 0.1
	maxPDFScale      = 2
	defaultPDFMargin = 0.35 / 2.54 // 0.35cm in inches
	// A PDF page cannot be larger than 14,400 units of 1/72in (ISO 32000),
	// and a page under a tenth of an inch holds nothing readable.
	minPaperInches = 0.1
	maxPaperInches = 200
	maxHeaders     = 32
	maxHeaderBytes = 8 << 10
	maxPageNumber  = 1<<31 - 1
)

// paperSizes are the formats Chromium and puppeteer know, in inches,
// keyed by lower-case name.
var paperSizes = map[string]struct {
	name          string
	width, height float64
}{
	"letter":  {"Letter", 8.5, 11},
	"legal":   {"Legal", 8.5, 14},
	"tabloid": {"Tabloid", 11, 17},
	"ledger":  {"Ledger", 17, 11},
	"a0":      {"A0", 33.1102, 46.811},
	"a1":      {"A1", 23.3858, 33.1102},
	"a2":      {"A2", 16.5354, 23.3858},
	"a3":      {"A3", 11.6929, 16.5354},
	"a4":      {"A4", 8.2677, 11.6929},
	"a5":      {"A5", 5.8268, 8.2677},
	"a6":      {"A6", 4.1339, 5.8268},
}

const paperNames = "Letter, Legal, Tabloid, Ledger, A0, A1, A2, A3, A4, A5 or A6"

// lengthUnits are the units of pdf lengths, in inches; a bare number is px.
var lengthUnits = map[string]float64{"px": 1.0 / 96, "in": 1, "cm": 1 / 2.54, "mm": 1 / 25.4}

// durationUnits are the units `timeout` and `ttl` accept: those of the `ms`
// package that Microlink clients use, from milliseconds to weeks.
var durationUnits = map[string]time.Duration{
	"ms": time.Millisecond, "msec": time.Millisecond, "msecs": time.Millisecond,
	"millisecond": time.Millisecond, "milliseconds": time.Millisecond,
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
}

// embedPaths are the field paths `embed` accepts.
var embedPaths = []string{"pdf.url", "image.url", "logo.url", "screenshot.url"}

// pdfOptionNames maps every accepted spelling of a pdf option to its
// camelCase name.
var pdfOptionNames = map[string]string{
	"format": "format", "margin": "margin",
	"margin.top": "margin.top", "margin.right": "margin.right",
	"margin.bottom": "margin.bottom", "margin.left": "margin.left",
	"scale": "scale", "landscape": "landscape",
	"pageRanges": "pageRanges", "page_ranges": "pageRanges",
	"width": "width", "height": "height",
	"printBackground": "printBackground", "print_background": "printBackground",
}

const pdfOptionList = "`pdf.format`, `pdf.margin` (and `pdf.margin.top`, `.right`, `.bottom`, `.left`), `pdf.scale`, " +
	"`pdf.landscape`, `pdf.pageRanges`, `pdf.width`, `pdf.height` and `pdf.printBackground`"

// topLevelNames maps every accepted spelling of a parameter without a dot
// to its camelCase name.
var topLevelNames = map[string]string{
	"url": "url", "meta": "meta", "pdf": "pdf", "embed": "embed", "headers": "headers",
	"mediaType": "mediaType", "media_type": "mediaType",
	"timeout": "timeout", "force": "force", "ttl": "ttl", "ping": "ping",
	"prerender": "prerender", "staleTtl": "staleTtl", "stale_ttl": "staleTtl",
}

// hopByHop are headers that describe one connection, not the request, or
// that glimpse must set itself; forwarding them would break the exchange
// with the target or reach glimpse's own egress proxy.
var hopByHop = map[string]bool{
	"connection": true, "keep-alive": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "content-length": true,
}

// param is one known parameter of the query: its canonical name, the
// spelling the caller used, made safe to quote (messages and Error.Param
// use it), and its decoded value.
type param struct {
	name, given, value string
}

// displayName is a parameter name as messages quote it: control bytes and
// broken UTF-8 made visible and a long name cut, since `headers.<name>`,
// `meta.<field>` and `pdf.<option>` carry whatever the caller typed.
func displayName(s string) string {
	q := show(s)
	return q[1 : len(q)-1]
}

// query is the known parameters by canonical name, in the order given.
type query struct {
	byName map[string]*param
	order  []*param
}

func (q *query) get(name string) (*param, bool) {
	p, ok := q.byName[name]
	return p, ok
}

// ParseRequest parses the raw query string (r.URL.RawQuery) and validates
// every known parameter; a bad one gives an *Error that names it and says
// what to change. Parsing the raw string here, rather than through
// url.Values, is what lets glimpse see a bare `pdf`, repeated parameters,
// broken UTF-8 and NUL bytes.
//
// Rules that API.md leaves open, settled here: booleans are exactly `true`
// or `false` (an empty value means true for `pdf`, `meta`, `force` and
// `ping` only); a parameter repeated with the same value counts once, with
// different values it is an error, also across spellings (`mediaType` and
// `media_type`); `meta.<field>=true` and `meta.<field>=false` together keep
// only the true ones; switching every field off is `meta=false`;
// `meta=false` beside any `meta.<field>`, like `pdf=false` beside any
// `pdf.<option>`, is a contradiction; an unknown `meta.<field>` or
// `pdf.<option>` is an error (it is a typo more often than a future option)
// while other unknown parameters are ignored for compatibility with
// Microlink clients; `pdf.margin.<side>` overrides `pdf.margin` whatever
// their order; `screenshot` reads like `pdf` (a bare `screenshot` is true,
// any `screenshot.<option>` turns it on, an unknown option is an error),
// and `embed=screenshot.url` needs a screenshot, as `embed=pdf.url` needs a
// PDF.
func ParseRequest(rawQuery string, lim Limits) (*Request, error) {
	lim = lim.withDefaults()
	q, err := splitQuery(rawQuery)
	if err != nil {
		return nil, err
	}
	req := &Request{Timeout: lim.DefaultTimeout, TTL: defaultTTL, Ping: true, MediaType: "screen", Prerender: "auto"}

	if req.Target, err = parseURLParam(q, lim); err != nil {
		return nil, err
	}
	if err := parseMeta(q, req); err != nil {
		return nil, err
	}
	if req.PDF, err = parsePDF(q); err != nil {
		return nil, err
	}
	if req.PDF != nil {
		req.MediaType = "print"
	}
	if p, ok := q.get("mediaType"); ok {
		switch strings.ToLower(strings.TrimSpace(p.value)) {
		case "screen":
			req.MediaType = "screen"
		case "print":
			req.MediaType = "print"
		default:
			return nil, queryError(p.given, p.value, "`%s` must be `screen` or `print`, got %s.", p.given, show(p.value))
		}
	}
	if p, ok := q.get("prerender"); ok {
		switch v := strings.ToLower(strings.TrimSpace(p.value)); v {
		case "auto", "true", "false":
			req.Prerender = v
		case "":
			req.Prerender = "true"
		default:
			return nil, queryError(p.given, p.value, "`%s` must be `auto`, `true` or `false`, got %s.", p.given, show(p.value))
		}
	}
	for _, parse := range []func(*query, *Request) error{parseScreenshot, parseControls, parseData} {
		if err := parse(q, req); err != nil {
			return nil, err
		}
	}
	if req.Embed, err = parseEmbed(q, req); err != nil {
		return nil, err
	}
	if req.Headers, err = parseHeaders(q); err != nil {
		return nil, err
	}
	if p, ok := q.get("timeout"); ok {
		lo := min(minTimeout, lim.MaxTimeout)
		d, ok := parseQueryDuration(p.value)
		if !ok || d < lo || d > lim.MaxTimeout {
			return nil, queryError(p.given, p.value,
				"`%s` must be from %s to %s, in milliseconds (`5000`) or with a unit (`10s`, `1.5s`, `500ms`), got %s.",
				p.given, durationLabel(lo), durationLabel(lim.MaxTimeout), show(p.value))
		}
		req.Timeout = d
	}
	if p, ok := q.get("ttl"); ok {
		d, ok := parseQueryDuration(p.value)
		if !ok || d < minTTL || d > maxTTL {
			return nil, queryError(p.given, p.value,
				"`%s` must be from 1 minute to 31 days, in milliseconds (`3600000`) or with a unit (`1h`, `7d`), got %s.",
				p.given, show(p.value))
		}
		req.TTL = d
	}
	if p, ok := q.get("staleTtl"); ok {
		switch v := strings.TrimSpace(p.value); v {
		case "false", "0":
			req.StaleTTL = 0
		default:
			d, ok := parseQueryDuration(v)
			if !ok || d < 0 || d > maxTTL {
				return nil, queryError(p.given, p.value,
					"`%s` must be from 0 to 31 days, in milliseconds (`60000`) or with a unit (`1h`, `7d`), got %s.",
					p.given, show(p.value))
			}
			req.StaleTTL = d
		}
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"force", &req.Force}, {"ping", &req.Ping}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value, true)
			if !ok {
				return nil, boolError(p, true)
			}
			*b.dst = v
		}
	}
	return req, nil
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxTimeout <= 0 {
		l.MaxTimeout = d.MaxTimeout
	}
	if l.DefaultTimeout <= 0 {
		l.DefaultTimeout = d.DefaultTimeout
	}
	l.DefaultTimeout = min(l.DefaultTimeout, l.MaxTimeout)
	if l.MaxURLLength <= 0 {
		l.MaxURLLength = d.MaxURLLength
	}
	return l
}

// splitQuery decodes the query as application/x-www-form-urlencoded (`&`
// separates pairs, `+` is a space, an escape that is not one stays as
// typed), keeps the known parameters and rejects values that cannot be
// used at all. Each value is decoded exactly once, here: the target's own
// query, sent percent-encoded inside ours, comes out as the target wrote it.
func splitQuery(raw string) (*query, error) {
	q := &query{byName: map[string]*param{}}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		given := formDecode(rawName)
		name, known := canonicalParam(given)
		if !known {
			continue
		}
		value := formDecode(rawValue)
		given = displayName(given)
		if !utf8.ValidString(value) || strings.IndexByte(value, 0) >= 0 {
			if name == "url" {
				// ParseTarget words the message for a target.
				if _, err := ParseTarget(value); err != nil {
					return nil, err
				}
			}
			what := "a NUL character (`%00`)"
			if !utf8.ValidString(value) {
				what = "bytes that are not UTF-8"
			}
			return nil, queryError(given, value, "`%s` contains %s; send text, percent-encoded as UTF-8.", given, what)
		}
		if prev, ok := q.byName[name]; ok {
			if prev.value != value {
				return nil, queryError(given, value, "`%s` is given twice with different values (%s and %s); give it once.",
					given, show(prev.value), show(value))
			}
			continue
		}
		p := &param{name: name, given: given, value: value}
		q.byName[name] = p
		q.order = append(q.order, p)
	}
	return q, nil
}

// canonicalParam returns the canonical name of a parameter and whether it
// is one glimpse knows. Prefixed families are known as a whole so that a
// bad member is reported instead of ignored.
func canonicalParam(name string) (string, bool) {
	if c, ok := topLevelNames[name]; ok {
		return c, true
	}
	if rest, ok := strings.CutPrefix(name, "pdf."); ok {
		if c, ok := pdfOptionNames[rest]; ok {
			return "pdf." + c, true
		}
		return name, true
	}
	if strings.HasPrefix(name, "meta.") {
		return name, true
	}
	for _, known := range []func(string) (string, bool){controlParam, screenshotParam, dataParam} {
		if c, ok := known(name); ok {
			return c, true
		}
	}
	if rest, ok := strings.CutPrefix(name, "headers."); ok {
		// Header names are case-insensitive, so headers.cookie and
		// headers.Cookie are one parameter.
		return "headers." + http.CanonicalHeaderKey(rest), true
	}
	return "", false
}

func parseURLParam(q *query, lim Limits) (*url.URL, error) {
	p, ok := q.get("url")
	if !ok || strings.TrimSpace(p.value) == "" {
		e := NewError(CodeInvalidURL, "The `url` parameter is missing: give the page to fetch, percent-encoded, as in `?url=https%3A%2F%2Fexample.com%2F`.")
		e.Param = "url"
		e.Data = map[string]any{"url": ""}
		if ok {
			e.Data["url"] = clip(p.value, maxDataValue)
		}
		return nil, e
	}
	if len(p.value) > lim.MaxURLLength {
		return nil, urlError(p.value, "The URL is %d bytes long; glimpse accepts URLs of up to %d bytes.", len(p.value), lim.MaxURLLength)
	}
	return ParseTarget(p.value)
}

func parseMeta(q *query, req *Request) error {
	var on, off map[string]bool
	var first *param
	for _, p := range q.order {
		field, ok := strings.CutPrefix(p.name, "meta.")
		if !ok {
			continue
		}
		if !isField(field) {
			return queryError(p.given, p.value, "`%s` is not a metadata field; use `meta.<field>` with one of %s.",
				p.given, strings.Join(AllFields, ", "))
		}
		v, ok := parseBool(p.value, false)
		if !ok {
			return boolError(p, false)
		}
		if first == nil {
			first = p
		}
		if v {
			if on == nil {
				on = map[string]bool{}
			}
			on[field] = true
		} else {
			if off == nil {
				off = map[string]bool{}
			}
			off[field] = true
		}
	}
	if p, ok := q.get("meta"); ok {
		v, ok := parseBool(p.value, true)
		if !ok {
			return boolError(p, true)
		}
		if !v {
			if first != nil {
				return queryError(p.given, p.value,
					"`%s=false` turns metadata off, but `%s` asks for a field; remove `%s=false` to get the chosen fields, or drop `%s`.",
					p.given, first.given, p.given, first.given)
			}
			req.MetaOff = true
			return nil
		}
	}
	for _, f := range AllFields {
		switch {
		case on != nil:
			if on[f] {
				req.Fields = append(req.Fields, f)
			}
		case !off[f]:
			req.Fields = append(req.Fields, f)
		}
	}
	if len(req.Fields) == 0 {
		req.Fields, req.MetaOff = nil, true
	}
	return nil
}

func isField(f string) bool {
	for _, a := range AllFields {
		if a == f {
			return true
		}
	}
	return false
}

func parsePDF(q *query) (*PDFOptions, error) {
	var options []*param
	for _, p := range q.order {
		if strings.HasPrefix(p.name, "pdf.") {
			options = append(options, p)
		}
	}
	on := len(options) > 0
	if p, ok := q.get("pdf"); ok {
		v, ok := parseBool(p.value, true)
		if !ok {
			return nil, boolError(p, true)
		}
		if !v && len(options) > 0 {
			return nil, queryError(p.given, p.value,
				"`%s=false` turns the PDF off, but `%s` sets a PDF option; remove `%s=false` to get a PDF, or drop the `pdf.` options.",
				p.given, options[0].given, p.given)
		}
		on = on || v
	}
	if !on {
		return nil, nil
	}

	o := &PDFOptions{
		Format:          "A4",
		Width:           paperSizes["a4"].width,
		Height:          paperSizes["a4"].height,
		Margin:          Margins{defaultPDFMargin, defaultPDFMargin, defaultPDFMargin, defaultPDFMargin},
		Scale:           defaultPDFScale,
		PrintBackground: true,
	}
	if p, ok := q.get("pdf.format"); ok {
		size, ok := paperSizes[strings.ToLower(strings.TrimSpace(p.value))]
		if !ok {
			return nil, queryError(p.given, p.value, "`%s` must be one of %s (in any case), got %s.", p.given, paperNames, show(p.value))
		}
		o.Format, o.Width, o.Height = size.name, size.width, size.height
	}
	for _, dim := range []struct {
		name string
		dst  *float64
	}{{"pdf.width", &o.Width}, {"pdf.height", &o.Height}} {
		p, ok := q.get(dim.name)
		if !ok {
			continue
		}
		v, ok := parseLength(p.value)
		if !ok || v < minPaperInches || v > maxPaperInches {
			return nil, queryError(p.given, p.value,
				"`%s` must be a length from 0.1in to 200in, such as `8.5in`, `210mm`, `21cm` or `816px` (a bare number is pixels), got %s.",
				p.given, show(p.value))
		}
		*dim.dst = v
		o.Format = ""
	}

	margin := func(p *param) (float64, error) {
		v, ok := parseLength(p.value)
		if !ok {
			return 0, queryError(p.given, p.value,
				"`%s` must be a length such as `1cm`, `10mm`, `0.5in` or `40px` (a bare number is pixels), got %s.",
				p.given, show(p.value))
		}
		if v < 0 {
			return 0, queryError(p.given, p.value, "`%s` must not be negative, got %s.", p.given, show(p.value))
		}
		return v, nil
	}
	if p, ok := q.get("pdf.margin"); ok {
		v, err := margin(p)
		if err != nil {
			return nil, err
		}
		o.Margin = Margins{v, v, v, v}
	}
	for _, side := range []struct {
		name string
		dst  *float64
	}{{"top", &o.Margin.Top}, {"right", &o.Margin.Right}, {"bottom", &o.Margin.Bottom}, {"left", &o.Margin.Left}} {
		if p, ok := q.get("pdf.margin." + side.name); ok {
			v, err := margin(p)
			if err != nil {
				return nil, err
			}
			*side.dst = v
		}
	}

	if p, ok := q.get("pdf.scale"); ok {
		v, ok := parseDecimal(strings.TrimSpace(p.value))
		if !ok || v < minPDFScale || v > maxPDFScale {
			return nil, queryError(p.given, p.value, "`%s` must be a number from 0.1 to 2, got %s.", p.given, show(p.value))
		}
		o.Scale = v
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{{"pdf.landscape", &o.Landscape}, {"pdf.printBackground", &o.PrintBackground}} {
		if p, ok := q.get(b.name); ok {
			v, ok := parseBool(p.value, false)
			if !ok {
				return nil, boolError(p, false)
			}
			*b.dst = v
		}
	}
	if p, ok := q.get("pdf.pageRanges"); ok {
		ranges, problem := normalisePageRanges(p.value)
		if problem != "" {
			return nil, queryError(p.given, p.value,
				"`%s` must list pages and ranges such as `1-5, 8, 11-13`, counting from 1; %s.", p.given, problem)
		}
		o.PageRanges = ranges
	}
	for _, p := range options {
		if _, known := pdfOptionNames[strings.TrimPrefix(p.name, "pdf.")]; !known {
			return nil, queryError(p.given, p.value, "`%s` is not a PDF option; use %s.", p.given, pdfOptionList)
		}
	}

	// Chromium refuses a page whose margins leave no content area; say
	// which parameter to change instead of failing at print time.
	pageW, pageH := o.Width, o.Height
	if o.Landscape {
		pageW, pageH = pageH, pageW
	}
	if err := marginsFit(q, "left", "right", o.Margin.Left, o.Margin.Right, pageW, "wide"); err != nil {
		return nil, err
	}
	if err := marginsFit(q, "top", "bottom", o.Margin.Top, o.Margin.Bottom, pageH, "tall"); err != nil {
		return nil, err
	}
	return o, nil
}

// marginsFit checks that two opposite margins leave part of the page, and
// otherwise names the parameters that set them.
func marginsFit(q *query, sideA, sideB string, a, b, page float64, extent string) error {
	if a+b < page {
		return nil
	}
	var names []string
	var first *param
	for _, side := range []string{sideA, sideB} {
		if p, ok := q.get("pdf.margin." + side); ok {
			names = append(names, "`"+p.given+"`")
			if first == nil {
				first = p
			}
		}
	}
	if p, ok := q.get("pdf.margin"); ok && len(names) < 2 {
		names = append(names, "`"+p.given+"`")
		if first == nil {
			first = p
		}
	}
	if first == nil {
		first = &param{name: "pdf.margin", given: "pdf.margin"}
	}
	return queryError(first.given, first.value,
		"The %s and %s margins (%sin and %sin) leave no room on a page %sin %s; make %s smaller, or use larger paper.",
		sideA, sideB, inches(a), inches(b), inches(page), extent, strings.Join(names, " or "))
}

// normalisePageRanges checks the syntax Chromium's printToPDF accepts
// (`N`, `N-M`, `N-`, `-M`, comma-separated, spaces allowed) and returns it
// without spaces, or what is wrong. Whether the pages exist is known only
// after rendering (EPAGERANGE).
func normalisePageRanges(s string) (string, string) {
	if strings.TrimSpace(s) == "" {
		return "", ""
	}
	var b strings.Builder
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return "", "there is an empty item between commas in " + show(s)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		from, to, isRange := strings.Cut(item, "-")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !isRange {
			n, ok := pageNumber(from)
			if !ok {
				return "", "got " + show(item) + ", which is not a page number"
			}
			b.WriteString(strconv.Itoa(n))
			continue
		}
		if from == "" && to == "" {
			return "", "got " + show(item) + ", a range without pages"
		}
		var a, z int
		var ok bool
		if from != "" {
			if a, ok = pageNumber(from); !ok {
				return "", "got " + show(item) + ", whose start is not a page number"
			}
			b.WriteString(strconv.Itoa(a))
		}
		b.WriteByte('-')
		if to != "" {
			if z, ok = pageNumber(to); !ok {
				return "", "got " + show(item) + ", whose end is not a page number"
			}
			if from != "" && a > z {
				return "", "the range " + show(item) + " starts after it ends"
			}
			b.WriteString(strconv.Itoa(z))
		}
	}
	return b.String(), ""
}

func pageNumber(s string) (int, bool) {
	if s == "" || len(s) > 12 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIIDigit(s[i]) {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxPageNumber {
		return 0, false
	}
	return n, true
}

func parseEmbed(q *query, req *Request) (string, error) {
	p, ok := q.get("embed")
	if !ok {
		return "", nil
	}
	v := strings.TrimSpace(p.value)
	switch v {
	case "pdf.url":
		if req.PDF == nil {
			return "", queryError(p.given, p.value, "`%s=pdf.url` needs a PDF to embed: add `pdf=true` to the query.", p.given)
		}
		return v, nil
	case "image.url", "logo.url":
		field := strings.TrimSuffix(v, ".url")
		switch {
		case req.MetaOff:
			return "", queryError(p.given, p.value,
				"`%s=%s` needs the `%s` field, but metadata is off: remove `meta=false` (or the `meta.<field>=false` parameters).",
				p.given, v, field)
		case !isIn(req.Fields, field):
			return "", queryError(p.given, p.value,
				"`%s=%s` needs the `%s` field, which `meta` switched off: add `meta.%s=true`, or remove `meta.%s=false`.",
				p.given, v, field, field, field)
		}
		return v, nil
	case "screenshot.url":
		if req.Screenshot == nil {
			return "", queryError(p.given, p.value, "`%s=screenshot.url` needs a screenshot to embed: add `screenshot=true` to the query.", p.given)
		}
		return v, nil
	}
	return "", queryError(p.given, p.value, "`%s` must be one of `%s`, got %s.", p.given, strings.Join(embedPaths, "`, `"), show(p.value))
}

func isIn(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func parseHeaders(q *query) (http.Header, error) {
	var h http.Header
	total := 0
	for _, p := range q.order {
		if p.name == "headers" {
			return nil, queryError(p.given, p.value,
				"`%s` takes one parameter per header, such as `headers.cookie=sid%%3Dabc` or `headers.authorization=Bearer%%20xyz`.", p.given)
		}
		name, ok := strings.CutPrefix(p.name, "headers.")
		if !ok {
			continue
		}
		if name == "" {
			return nil, queryError(p.given, p.value, "`%s` needs a header name after the dot, such as `headers.cookie`.", p.given)
		}
		if !httpguts.ValidHeaderFieldName(name) {
			return nil, queryError(p.given, p.value,
				"`%s` does not name a valid header: a header name is letters, digits and ``!#$%%&'*+-.^_`|~``.", p.given)
		}
		lower := strings.ToLower(name)
		if hopByHop[lower] || strings.HasPrefix(lower, "proxy-") {
			return nil, queryError(p.given, p.value,
				"`%s` cannot be forwarded: `%s` concerns the connection, which glimpse manages itself; remove it.",
				p.given, strings.TrimPrefix(p.given, "headers."))
		}
		value := strings.Trim(p.value, " \t")
		if !httpguts.ValidHeaderFieldValue(value) {
			return nil, queryError(p.given, p.value,
				"`%s` has a value with control characters (such as a line break); send the value on one line.", p.given)
		}
		if h == nil {
			h = http.Header{}
		}
		h[name] = []string{value}
		total += len(name) + len(value)
	}
	if len(h) > maxHeaders {
		e := NewError(CodeInvalidQuery, fmt.Sprintf("%d `headers.<name>` parameters were given; glimpse forwards at most %d.", len(h), maxHeaders))
		e.Param = "headers"
		return nil, e
	}
	if total > maxHeaderBytes {
		e := NewError(CodeInvalidQuery, fmt.Sprintf(
			"The `headers.<name>` parameters add up to %d bytes of names and values; glimpse forwards at most %d bytes (8 KiB).",
			total, maxHeaderBytes))
		e.Param = "headers"
		return nil, e
	}
	return h, nil
}

// parseBool accepts exactly `true` and `false`; an empty value (a bare
// `pdf`) is true only where emptyIsTrue.
func parseBool(v string, emptyIsTrue bool) (bool, bool) {
	switch v {
	case "true":
		return true, true
	case "false":
		return false, true
	case "":
		return true, emptyIsTrue
	}
	return false, false
}

func boolError(p *param, emptyIsTrue bool) *Error {
	if emptyIsTrue {
		return queryError(p.given, p.value, "`%s` must be `true`, `false` or empty (meaning true), got %s.", p.given, show(p.value))
	}
	return queryError(p.given, p.value, "`%s` must be `true` or `false`, got %s.", p.given, show(p.value))
}

// parseDecimal accepts plain decimal numbers (`2`, `0.5`, `.5`, `-1`):
// no exponents, hex, underscores, infinities or NaN, which
// strconv.ParseFloat would let through.
func parseDecimal(s string) (float64, bool) {
	body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if body == "" || body == "." || len(body) > 32 {
		return 0, false
	}
	dots := 0
	for i := 0; i < len(body); i++ {
		switch {
		case body[i] == '.':
			dots++
		case !isASCIIDigit(body[i]):
			return 0, false
		}
	}
	if dots > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// parseLength reads a pdf length in inches: a number with `px`, `in`, `cm`
// or `mm` (any case, spaces allowed), or a bare number of pixels, as
// puppeteer reads them.
func parseLength(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	perInch := lengthUnits["px"]
	if len(s) > 2 {
		if f, ok := lengthUnits[strings.ToLower(s[len(s)-2:])]; ok {
			perInch, s = f, strings.TrimSpace(s[:len(s)-2])
		}
	}
	v, ok := parseDecimal(s)
	if !ok {
		return 0, false
	}
	return v * perInch, true
}

// parseQueryDuration reads `5000` (milliseconds), `1.5s`, `500ms`, `10 s`,
// `1h` or `7d`.
func parseQueryDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (isASCIIDigit(s[i]) || s[i] == '.') {
		i++
	}
	number, unitName := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	if number == "" || strings.HasPrefix(number, "-") {
		return 0, false
	}
	v, ok := parseDecimal(number)
	if !ok {
		return 0, false
	}
	unit := time.Millisecond
	if unitName != "" {
		if unit, ok = durationUnits[unitName]; !ok {
			return 0, false
		}
	}
	ns := math.Round(v * float64(unit))
	if ns > float64(math.MaxInt64/2) {
		return 0, false
	}
	return time.Duration(ns), true
}

// durationLabel writes a limit the way a caller would type it: `60s`,
// `1.5s`, `500ms`.
func durationLabel(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

func inches(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

func formDecode(s string) string {
	if strings.IndexByte(s, '+') >= 0 {
		s = strings.ReplaceAll(s, "+", " ")
	}
	return percentDecode(s)
}
