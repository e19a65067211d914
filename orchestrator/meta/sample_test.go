package meta

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/text/unicode/norm"
)

// The metadata sample (shared/eval/metadata) holds real pages with the values
// the Microlink API's extractor gives for them. This test scores Extract on
// it the way the sample's scorer (score.py) scores the running service: each
// page as if served from a loopback origin at /<name>/, exact comparisons
// after NFC and trimming, descriptions by prefix, dates to the second, and
// URL fields by path and query when the expected host is the page's original
// host.
//
// For image and logo the first candidate counts, as with ping=false. The one
// exception is the <origin>/favicon.ico last resort: on the scorer's page
// server that address is a 404, so a probing caller drops it and answers
// null, which is what this test counts too.

const (
	// samplePort stands for the scorer's random loopback port.
	samplePort = 38917
	// sampleNow is the clock for the sample: after its newest page.
	sampleNow = "2026-01-15T00:00:00Z"
)

var sampleFields = []string{"title", "description", "lang", "author", "publisher", "image", "date", "url", "logo"}

type sampleCase struct {
	name     string
	URL      string                    `json:"url"`
	Expected map[string]*string        `json:"expected"`
	Loose    map[string]map[string]any `json:"expected_loose"`
	pageURL  string
}

func sampleDir(t *testing.T) string {
	dir := os.Getenv("GLIMPSE_EVAL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "eval", "metadata", "cases")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the metadata sample is not at %s (set GLIMPSE_EVAL_DIR to its cases folder to score against it)", dir)
	}
	return dir
}

func TestSampleAccuracy(t *testing.T) {
	dir := sampleDir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("cannot list the sample at %s: %v", dir, err)
	}
	now, _ := time.Parse(time.RFC3339, sampleNow)
	type tally struct{ ok, all int }
	perField := map[string]*tally{}
	for _, f := range sampleFields {
		perField[f] = &tally{}
	}
	var mismatches []string
	cases := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "case.json"))
		if err != nil {
			continue
		}
		c := sampleCase{name: e.Name()}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("case %s: case.json does not parse: %v", e.Name(), err)
		}
		c.pageURL = fmt.Sprintf("http://127.0.0.1:%d/%s/", samplePort, e.Name())
		f, err := os.Open(filepath.Join(dir, e.Name(), "page.html"))
		if err != nil {
			t.Fatalf("case %s: %v", e.Name(), err)
		}
		doc, err := goquery.NewDocumentFromReader(f)
		f.Close()
		if err != nil {
			t.Fatalf("case %s: page.html does not parse: %v", e.Name(), err)
		}
		pu, _ := url.Parse(c.pageURL)
		got := answers(extract(doc, pu, now))
		cases++
		for _, field := range sampleFields {
			var ok bool
			var want string
			if exp, asserted := c.Expected[field]; asserted {
				ok = exactOK(field, exp, got[field], c)
				want = showPtr(exp)
			} else if spec, asserted := c.Loose[field]; asserted {
				ok = looseOK(field, spec, got[field], c)
				want = fmt.Sprint(spec)
			} else {
				continue
			}
			perField[field].all++
			if ok {
				perField[field].ok++
			} else {
				mismatches = append(mismatches, fmt.Sprintf("%s | %s | want %s | got %s", c.name, field, clip(want), clip(showPtr(got[field]))))
			}
		}
	}
	if cases == 0 {
		t.Skipf("the metadata sample at %s has no cases", dir)
	}
	sort.Strings(mismatches)
	for _, m := range mismatches {
		t.Log(m)
	}
	okAll, all := 0, 0
	for _, f := range sampleFields {
		tl := perField[f]
		okAll += tl.ok
		all += tl.all
		t.Logf("%-12s %.3f (%d/%d)", f, float64(tl.ok)/float64(max(tl.all, 1)), tl.ok, tl.all)
	}
	overall := float64(okAll) / float64(max(all, 1))
	t.Logf("overall      %.3f (%d/%d) over %d cases", overall, okAll, all, cases)
	if overall < 0.93 {
		t.Errorf("overall accuracy on the sample is %.3f, want at least 0.93", overall)
	}
	for _, f := range sampleFields {
		tl := perField[f]
		acc := float64(tl.ok) / float64(max(tl.all, 1))
		if acc < sampleFloor[f] {
			t.Errorf("%s accuracy on the sample is %.3f, want at least %.2f", f, acc, sampleFloor[f])
		}
	}
}

// sampleFloor is the accuracy each field must keep on the sample. Logo's is
// lower because 12 of the sample's 48 expected logos depend on what the
// network answered when they were recorded (an icon that was unreachable, a
// redirect's final address) and no rule over the page can give them; see the
// package report.
var sampleFloor = map[string]float64{
	"title": 0.85, "description": 0.85, "lang": 0.85, "author": 0.85, "publisher": 0.85,
	"image": 0.85, "date": 0.85, "url": 0.85, "logo": 0.70,
}

func answers(r Result) map[string]*string {
	first := func(cs []Candidate) *string {
		if len(cs) == 0 || cs[0].Source == sourceFavicon {
			return nil
		}
		return &cs[0].URL
	}
	out := map[string]*string{
		"title": r.Title, "description": r.Description, "lang": r.Lang, "author": r.Author,
		"publisher": r.Publisher, "date": r.Date, "url": r.URL, "image": first(r.Image), "logo": first(r.Logo),
	}
	for k, v := range out {
		if v != nil {
			s := nstr(*v)
			if s == "" {
				out[k] = nil
			} else {
				out[k] = &s
			}
		}
	}
	return out
}

func showPtr(s *string) string {
	if s == nil {
		return "null"
	}
	return strconv.Quote(*s)
}

func clip(s string) string {
	if r := []rune(s); len(r) > 140 {
		return string(r[:137]) + "..."
	}
	return s
}

// nstr is score.py's nstr: NFC, then Python's strip().
func nstr(s string) string {
	return norm.NFC.String(strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }))
}

func exactOK(field string, exp, got *string, c sampleCase) bool {
	if exp == nil {
		return got == nil
	}
	if got == nil {
		return false
	}
	switch field {
	case "url", "image", "logo":
		return urlEq(field, *exp, *got, c)
	case "date":
		return dateEq(*exp, *got)
	case "description":
		return descEq(*exp, *got)
	case "lang":
		return strings.ToLower(nstr(*exp)) == strings.ToLower(*got)
	}
	return nstr(*exp) == nstr(*got)
}

func looseOK(field string, spec map[string]any, got *string, c sampleCase) bool {
	if _, ok := spec["nonnull"]; ok {
		return got != nil
	}
	if got == nil {
		return false
	}
	isURL := field == "url" || field == "image" || field == "logo"
	if v, ok := spec["any_of"].([]any); ok {
		for _, x := range v {
			if s, ok := x.(string); ok && exactOK(field, &s, got, c) {
				return true
			}
		}
		return false
	}
	if v, ok := spec["contains"].(string); ok {
		if isURL {
			return strings.Contains(*got, v)
		}
		return strings.Contains(nstr(*got), nstr(v))
	}
	if v, ok := spec["startswith"].(string); ok {
		if isURL {
			return urlPrefix(v, *got, c)
		}
		return strings.HasPrefix(nstr(*got), nstr(v))
	}
	if v, ok := spec["iequals"].(string); ok {
		return strings.EqualFold(nstr(v), nstr(*got))
	}
	if v, ok := spec["regex"].(string); ok {
		return regexp.MustCompile(v).MatchString(*got)
	}
	return false
}

// split is Python's urllib.parse.urlsplit, enough for http(s) URLs.
type split struct{ scheme, netloc, path, query, fragment, host, port string }

func urlsplit(s string) split {
	var u split
	if i := strings.Index(s, ":"); i > 0 && regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`).MatchString(s[:i]) {
		u.scheme, s = strings.ToLower(s[:i]), s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		u.netloc, s = s[:end], s[end:]
	}
	if i := strings.Index(s, "#"); i >= 0 {
		s, u.fragment = s[:i], s[i+1:]
	}
	if i := strings.Index(s, "?"); i >= 0 {
		s, u.query = s[:i], s[i+1:]
	}
	u.path = s
	hp := u.netloc
	if i := strings.LastIndex(hp, "@"); i >= 0 {
		hp = hp[i+1:]
	}
	if i := strings.LastIndex(hp, ":"); i >= 0 && !strings.Contains(hp[i:], "]") {
		u.host, u.port = hp[:i], hp[i+1:]
	} else {
		u.host = hp
	}
	u.host = strings.ToLower(strings.Trim(u.host, "[]"))
	return u
}

func (u split) pq() string {
	if u.query != "" {
		return u.path + "?" + u.query
	}
	return u.path
}

func (u split) hostPort() string { return u.host + ":" + u.port }

func (u split) full() string {
	netloc := u.host
	if u.port != "" && !(u.scheme == "http" && u.port == "80") && !(u.scheme == "https" && u.port == "443") {
		netloc += ":" + u.port
	}
	s := u.scheme + "://" + netloc + u.path
	if u.query != "" {
		s += "?" + u.query
	}
	if u.fragment != "" {
		s += "#" + u.fragment
	}
	return s
}

func urljoin(base, ref string) string {
	if urlsplit(ref).scheme != "" {
		return ref
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := b.Parse(ref)
	if err != nil {
		return ref
	}
	return r.String()
}

func urlEq(field, exp, got string, c sampleCase) bool {
	orig, served := urlsplit(c.URL), urlsplit(c.pageURL)
	e, g := urlsplit(nstr(exp)), urlsplit(urljoin(c.pageURL, got))
	sameHostAsOrig := e.host == orig.host
	if field == "url" && sameHostAsOrig && e.pq() == orig.pq() {
		if g.hostPort() == served.hostPort() && g.pq() == served.pq() {
			return true
		}
	}
	if !sameHostAsOrig {
		return e.full() == g.full()
	}
	if g.host != orig.host && g.hostPort() != served.hostPort() {
		return false
	}
	if e.pq() == g.pq() {
		return true
	}
	if g.hostPort() == served.hostPort() {
		odir := orig.path[:strings.LastIndex(orig.path, "/")+1]
		sdir := served.path[:strings.LastIndex(served.path, "/")+1]
		if odir != sdir && strings.HasPrefix(e.path, odir) && g.path == sdir+e.path[len(odir):] && e.query == g.query {
			return true
		}
	}
	return false
}

func urlPrefix(prefix, got string, c sampleCase) bool {
	orig, served := urlsplit(c.URL), urlsplit(c.pageURL)
	e, g := urlsplit(prefix), urlsplit(urljoin(c.pageURL, got))
	if e.host == orig.host && (g.hostPort() == orig.hostPort() || g.hostPort() == served.hostPort()) {
		return strings.HasPrefix(g.pq(), e.pq())
	}
	return strings.HasPrefix(got, prefix)
}

func parseSampleDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if regexp.MustCompile(`^-?\d{10,13}$`).MatchString(s) {
		n, _ := strconv.ParseInt(s, 10, 64)
		if len(strings.TrimPrefix(s, "-")) > 11 {
			return time.UnixMilli(n).UTC(), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.Replace(s, "z", "Z", 1)); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func dateEq(exp, got string) bool {
	a, ok1 := parseSampleDate(exp)
	b, ok2 := parseSampleDate(got)
	return ok1 && ok2 && a.Truncate(time.Second).Equal(b.Truncate(time.Second))
}

func stripEllipsis(s string) string {
	s = strings.TrimRightFunc(s, unicode.IsSpace)
	for _, e := range []string{"…", "..."} {
		if strings.HasSuffix(s, e) {
			return strings.TrimRightFunc(strings.TrimSuffix(s, e), unicode.IsSpace)
		}
	}
	return s
}

func descEq(exp, got string) bool {
	a, b := stripEllipsis(nstr(exp)), stripEllipsis(nstr(got))
	if a == b {
		return true
	}
	short, long := a, b
	if len([]rune(a)) > len([]rune(b)) {
		short, long = b, a
	}
	return short != "" && strings.HasPrefix(long, short) && len([]rune(short)) >= min(len([]rune(long)), 40)
}
