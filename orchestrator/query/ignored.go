package query

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/glimpse/glimpse/orchestrator/apierr"
)

// ignoredOption is a Microlink parameter that glimpse accepts without
// applying it: a client written for Microlink may send it, and refusing
// the whole request for it would break that client. Its value is still
// checked against the documented shape, and the answer names it in the
// `x-glimpse-ignored` header so the caller can tell it made no difference.
type ignoredOption struct {
	name      string   // canonical camelCase name
	spellings []string // other spellings accepted, such as snake_case
	// check returns "" for a value of the documented shape, else what the
	// parameter accepts, as the error message words it; nil takes any value.
	check func(v string) string
}

// ignoredOptions are the known options glimpse does not apply. Adding one
// is one line here.
var ignoredOptions = []ignoredOption{
	{"screenshot.codeScheme", []string{"screenshot.code_scheme"}, checkCodeScheme},
	{"screenshot.animated", nil, checkFlag},
	{"screenshot.animated.duration", nil, checkAnimationDuration},
	{"screenshot.animated.fps", nil, checkWholeNumber(1, 60)},
	{"screenshot.animated.type", nil, checkOneOf("mp4", "webm")},
	{"meta.logo.square", nil, checkFlag},
	// Whole features of Microlink's that glimpse does not have. Their
	// members (`insights.lighthouse.*`, `proxy.countryCode`) are unknown
	// parameters, ignored like any other. A Lighthouse audit loads the
	// page again under throttling for tens of seconds and a CPU core,
	// which no answer's budget holds; `insights.technologies` is applied
	// (see parseExtras).
	{"insights.lighthouse", nil, checkFlag},
	// Like `function` and `modules` (code run beside the page), `filename`
	// (a name for stored files) and `retry` (the client's own retries,
	// which the CLI sends), the value is not checked.
	{"function", nil, nil},
	{"modules", nil, nil},
	{"filename", nil, nil},
	{"retry", nil, nil},
	{"cacheKey", []string{"cache_key"}, nil},
}

// ignoredNames maps every spelling of an ignored option to its name.
var ignoredNames = func() map[string]string {
	m := map[string]string{}
	for _, o := range ignoredOptions {
		m[o.name] = o.name
		for _, s := range o.spellings {
			m[s] = o.name
		}
	}
	return m
}()

// ignoredParam recognises the spellings of an ignored option.
func ignoredParam(name string) (string, bool) {
	c, ok := ignoredNames[name]
	return c, ok
}

// isIgnored reports whether a canonical name is an ignored option.
func isIgnored(name string) bool {
	c, ok := ignoredNames[name]
	return ok && c == name
}

// parseIgnored checks the ignored options given and lists them in
// req.Ignored, in the caller's spelling and order.
func parseIgnored(q *query, req *Request) error {
	for _, o := range ignoredOptions {
		p, ok := q.get(o.name)
		if !ok || o.check == nil {
			continue
		}
		if want := o.check(p.value); want != "" {
			return apierr.Query(p.given, p.value, "`%s` must be %s, got %s.", p.given, want, apierr.Show(p.value))
		}
	}
	for _, p := range q.order {
		if isIgnored(p.name) {
			req.Ignored = append(req.Ignored, p.given)
		}
	}
	return nil
}

// prismTheme is the shape of a Prism theme's name; some have dots
// (`base16-ateliersulphurpool.light`, `github.light-dark`).
var prismTheme = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkCodeScheme accepts a Prism theme's name or the http(s) URL of a
// stylesheet, as Microlink documents; it is never fetched.
func checkCodeScheme(v string) string {
	const want = "a theme name such as `atom-dark`, or the http(s) URL of a stylesheet"
	v = strings.TrimSpace(v)
	if prismTheme.MatchString(v) {
		return ""
	}
	if len(v) <= 2048 {
		if u, err := url.Parse(v); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return ""
		}
	}
	return want
}

// checkFlag accepts a boolean; empty means true, as for `screenshot`.
func checkFlag(v string) string {
	if _, ok := parseBool(v); ok {
		return ""
	}
	return "`true`, `false` or empty (meaning true)"
}

// maxAnimation is Microlink's longest recording.
const maxAnimation = 10 * time.Second

func checkAnimationDuration(v string) string {
	d, ok := parseQueryDuration(v)
	if !ok || d <= 0 || d > maxAnimation {
		return "a duration up to 10 seconds, in milliseconds (`5000`) or with a unit (`5s`)"
	}
	return ""
}

func checkWholeNumber(lo, hi int) func(string) string {
	return func(v string) string {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi || strings.HasPrefix(strings.TrimSpace(v), "+") {
			return "a whole number from " + strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
		}
		return ""
	}
}

func checkOneOf(values ...string) func(string) string {
	return func(v string) string {
		v = strings.ToLower(strings.TrimSpace(v))
		for _, ok := range values {
			if v == ok {
				return ""
			}
		}
		quoted := make([]string, len(values))
		for i, s := range values {
			quoted[i] = "`" + s + "`"
		}
		return "one of " + strings.Join(quoted, ", ")
	}
}
