package query

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// Request is a parsed, validated API request (docs/api.md#request).
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
	Extras     Extras             // `video`, `audio`, `iframe`, `palette`, `insights`
	// Stale is whether `staleTtl` was given (and not `false`): an answer
	// may then be served stale while one background render refreshes it,
	// within StaleTTL before it expires, and once it has expired.
	Stale    bool
	StaleTTL time.Duration // `staleTtl`: the refresh window before expiry; at most TTL
	// Ignored are the known options given that glimpse accepts but does
	// not apply, in the caller's spelling (see ignoredOptions). They do
	// not change the answer, so the cache key leaves them out.
	Ignored []string
	// Proxy is the upstream HTTP(S) proxy the request's traffic leaves
	// through (`proxy`), credentials included; nil: none. Never log it:
	// use ProxyHost.
	Proxy *url.URL
}

// Limits are the bounds the service sets on requests. Zero fields take the
// values of DefaultLimits (see WithDefaults).
type Limits struct {
	DefaultTimeout time.Duration // timeout when the caller gives none
	MaxTimeout     time.Duration // largest timeout a caller may ask for
	MaxURLLength   int           // longest target, in bytes, as given
	// NoProxy refuses `proxy` (GLIMPSE_ALLOW_PROXY=false).
	NoProxy bool
}

// DefaultLimits are the limits of docs/api.md#parameters: a 28s default
// timeout, 60s at most, targets up to 8192 bytes.
func DefaultLimits() Limits {
	return Limits{DefaultTimeout: 28 * time.Second, MaxTimeout: 60 * time.Second, MaxURLLength: 8192}
}

// Defaults and bounds of the parameters (docs/api.md#parameters).
const (
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

// topLevelNames maps every accepted spelling of a parameter without a dot
// to its camelCase name.
var topLevelNames = map[string]string{
	"url": "url", "meta": "meta", "pdf": "pdf", "embed": "embed", "headers": "headers",
	"mediaType": "mediaType", "media_type": "mediaType",
	"timeout": "timeout", "force": "force", "ttl": "ttl", "ping": "ping",
	"prerender": "prerender", "staleTtl": "staleTtl", "stale_ttl": "staleTtl",
	"proxy": "proxy",
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
	q := apierr.Show(s)
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

// Parse parses the raw query string (r.URL.RawQuery) and validates
// every known parameter; a bad one gives an *apierr.Error that names it and says
// what to change. Parsing the raw string here, rather than through
// url.Values, is what lets glimpse see a bare `pdf`, repeated parameters,
// broken UTF-8 and NUL bytes.
//
// Rules of docs/api.md#conventions, settled here: booleans are exactly `true`
// or `false`, and an empty value means true for every one of them, as a
// bare `pdf` does in the API and a bare `&meta.title` in Microlink's CLI; a parameter repeated with the same value counts once, with
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
func Parse(rawQuery string, lim Limits) (*Request, error) {
	lim = lim.WithDefaults()
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
			return nil, apierr.Query(p.given, p.value, "`%s` must be `screen` or `print`, got %s.", p.given, apierr.Show(p.value))
		}
	}
	if p, ok := q.get("prerender"); ok {
		switch v := strings.ToLower(strings.TrimSpace(p.value)); v {
		case "auto", "true", "false":
			req.Prerender = v
		case "":
			req.Prerender = "true"
		default:
			return nil, apierr.Query(p.given, p.value, "`%s` must be `auto`, `true` or `false`, got %s.", p.given, apierr.Show(p.value))
		}
	}
	// The timeout comes first: `waitForTimeout` is bounded by it.
	if req.Timeout, err = parseTimeout(q, lim); err != nil {
		return nil, err
	}
	for _, parse := range []func(*query, *Request) error{parseScreenshot, parseIgnored, parseExtras, parseControls, parseData, parsePing, parseCache} {
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
	if req.Proxy, err = parseProxy(q, lim); err != nil {
		return nil, err
	}
	return req, nil
}

// WithDefaults fills the zero fields from DefaultLimits and keeps the
// default timeout within the largest one.
func (l Limits) WithDefaults() Limits {
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
		if !utf8.ValidString(given) || strings.IndexByte(given, 0) >= 0 {
			shown := displayName(given)
			return nil, apierr.Query(shown, "", "The parameter name `%s` holds bytes that are not UTF-8 text (or a NUL); send names as UTF-8, percent-encoded.", shown)
		}
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
			return nil, apierr.Query(given, value, "`%s` contains %s; send text, percent-encoded as UTF-8.", given, what)
		}
		if prev, ok := q.byName[name]; ok {
			if prev.value != value {
				return nil, apierr.Query(given, value, "`%s` is given twice with different values (%s and %s); give it once.",
					given, apierr.Show(prev.value), apierr.Show(value))
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
	if c, ok := ignoredParam(name); ok {
		return c, true
	}
	if c, ok := extraParam(name); ok {
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

// parseTimeout reads `timeout`, the budget of the whole request.
func parseTimeout(q *query, lim Limits) (time.Duration, error) {
	p, ok := q.get("timeout")
	if !ok {
		return lim.DefaultTimeout, nil
	}
	lo := min(minTimeout, lim.MaxTimeout)
	d, ok := parseQueryDuration(p.value)
	if !ok || d < lo || d > lim.MaxTimeout {
		return 0, apierr.Query(p.given, p.value,
			"`%s` must be from %s to %s, in milliseconds (`5000`) or with a unit (`10s`, `1.5s`, `500ms`), got %s.",
			p.given, durationLabel(lo), durationLabel(lim.MaxTimeout), apierr.Show(p.value))
	}
	return d, nil
}

func parseURLParam(q *query, lim Limits) (*url.URL, error) {
	p, ok := q.get("url")
	if !ok || strings.TrimSpace(p.value) == "" {
		e := apierr.New(apierr.CodeInvalidURL, "The `url` parameter is missing: give the page to fetch, percent-encoded, as in `?url=https%3A%2F%2Fexample.com%2F`.")
		e.Param = "url"
		e.Data = map[string]any{"url": ""}
		if ok {
			e.Data["url"] = apierr.Clip(p.value, apierr.MaxDataValue)
		}
		return nil, e
	}
	if len(p.value) > lim.MaxURLLength {
		return nil, apierr.URL(p.value, "The URL is %d bytes long; glimpse accepts URLs of up to %d bytes.", len(p.value), lim.MaxURLLength)
	}
	return ParseTarget(p.value)
}

// parseBool accepts exactly `true` and `false`; an empty value is true, as
// a bare `pdf` is in the API and a bare `&meta.title` in Microlink's CLI
// examples, which its clients send as `meta.title=`.
func parseBool(v string) (bool, bool) {
	switch v {
	case "true", "":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func boolError(p *param) *apierr.Error {
	return apierr.Query(p.given, p.value, "`%s` must be `true`, `false` or empty (meaning true), got %s.", p.given, apierr.Show(p.value))
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

func formDecode(s string) string {
	if strings.IndexByte(s, '+') >= 0 {
		s = strings.ReplaceAll(s, "+", " ")
	}
	return percentDecode(s)
}
